"""Merge a peft LoRA adapter into a copy of the default GGUF base: one ready model per role.

llama.cpp can apply a LoRA on the fly (agents.llm.gguf_lora), but on this
135M model that costs: the adapter adds two small products per projection,
210 extra graph nodes per pass. A merged copy runs at the plain base's speed,
at the price of one more file per role (~100-150 MB) on disk and in memory.

Each adapted weight W (dequantised from the base) becomes W + alpha/r * B @ A
and is quantised again. The base's Q4_1 steps are coarser than most of an
adapter's deltas, so merged weights are stored as Q8_0 by default (16 times
finer steps); everything else (embeddings, norms, metadata, tokenizer) is
copied byte for byte.
"""

from __future__ import annotations

import os
from pathlib import Path

from agents.llm.gguf_lora import ExportError, finish, read_adapter


def merge(base: Path, adapter_dir: Path, out: Path, *, heads: int, kv_heads: int, qtype: str = "Q8_0") -> Path:
    """Write ``base`` with ``adapter_dir`` merged into it at ``out`` (merged weights as ``qtype``)."""
    import gguf  # heavy, optional: loaded only when used
    import numpy  # heavy, optional: loaded only when used

    alpha, weights = read_adapter(adapter_dir, heads=heads, kv_heads=kv_heads)
    target_type = gguf.GGMLQuantizationType[qtype]
    reader = gguf.GGUFReader(str(base))
    architecture = reader.fields["general.architecture"].contents()
    out.parent.mkdir(parents=True, exist_ok=True)
    temporary = out.with_suffix(f".{os.getpid()}.tmp")  # processes may write the same file at once
    writer = gguf.GGUFWriter(str(temporary), architecture)
    for field in reader.fields.values():
        if field.name.startswith("GGUF.") or field.name == "general.architecture":
            continue
        value_type = field.types[0]
        sub_type = field.types[-1] if value_type == gguf.GGUFValueType.ARRAY else None
        writer.add_key_value(field.name, field.contents(), value_type, sub_type=sub_type)
    merged = set()
    for tensor in reader.tensors:
        pair = weights.get(tensor.name)
        if pair is None:
            writer.add_tensor(tensor.name, tensor.data, raw_shape=tensor.data.shape, raw_dtype=tensor.tensor_type)
            continue
        weight = gguf.quants.dequantize(tensor.data, tensor.tensor_type).astype(numpy.float32)
        delta = (alpha / pair["a"].shape[0]) * (pair["b"] @ pair["a"])
        if delta.shape != weight.shape:
            raise ExportError(f"{tensor.name}: the adapter's {delta.shape} does not fit the base's {weight.shape}.")
        data = gguf.quants.quantize(weight + delta, target_type)
        writer.add_tensor(tensor.name, data, raw_shape=data.shape, raw_dtype=target_type)
        merged.add(tensor.name)
    missing = set(weights) - merged
    if missing:
        raise ExportError(f"the base has no weight {sorted(missing)[0]} for the adapter ({len(missing)} missing).")
    return finish(writer, temporary, out)
