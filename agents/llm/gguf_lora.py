"""Export a peft LoRA adapter of the default Llama-architecture base to llama.cpp's LoRA GGUF.

llama.cpp loads such a file next to the unchanged base GGUF and applies it on
the fly (``llama_adapter_lora_init``), so the planner and caller share one
copy of the base weights there too. The format is the one llama.cpp's own
``convert_lora_to_gguf.py`` writes:

- ``general.type = "adapter"``, ``adapter.type = "lora"``, ``adapter.lora.alpha``
  (llama.cpp scales by alpha / rank, as peft does);
- per adapted weight ``blk.N.<name>.weight``, the tensors ``….lora_a`` (peft's
  ``lora_A``, rank x in) and ``….lora_b`` (``lora_B``, out x rank);
- the query and key projections' output rows permuted as the GGUF base's are
  (GGUF stores them in the interleaved rotary layout).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

# peft module name -> llama.cpp tensor name
TENSOR_NAMES = {
    "q_proj": "attn_q",
    "k_proj": "attn_k",
    "v_proj": "attn_v",
    "o_proj": "attn_output",
    "gate_proj": "ffn_gate",
    "up_proj": "ffn_up",
    "down_proj": "ffn_down",
}
_KEY = re.compile(r"layers\.(\d+)\.(?:self_attn|mlp)\.(\w+)\.lora_([AB])\.weight$")


class ExportError(Exception):
    """The adapter cannot be written as a llama.cpp LoRA."""


def permute(weights, heads: int):
    """convert_hf_to_gguf's rotary permutation of a projection's output rows, for ``heads`` heads."""
    rows = weights.shape[0]
    return weights.reshape(heads, 2, rows // heads // 2, *weights.shape[1:]).swapaxes(1, 2).reshape(weights.shape)


def read_adapter(adapter_dir: Path, *, heads: int, kv_heads: int) -> tuple[float, dict[str, dict[str, Any]]]:
    """The adapter's alpha and, per llama.cpp weight name, its ``a`` (rank x in) and ``b`` (out x rank).

    ``b`` of the query and key projections is already in the GGUF base's rotary row order.
    """
    from safetensors.numpy import load_file  # heavy, optional: loaded only when used

    config_path = adapter_dir / "adapter_config.json"
    weights_path = adapter_dir / "adapter_model.safetensors"
    if not config_path.is_file() or not weights_path.is_file():
        raise ExportError(f"{adapter_dir} is not a peft adapter (adapter_config.json + adapter_model.safetensors).")
    config = json.loads(config_path.read_text(encoding="utf-8"))
    if config.get("peft_type") != "LORA":
        raise ExportError(f"{adapter_dir} holds a {config.get('peft_type')} adapter, not a LoRA.")
    weights: dict[str, dict[str, Any]] = {}
    for key, tensor in load_file(str(weights_path)).items():
        match = _KEY.search(key)
        if match is None or match.group(2) not in TENSOR_NAMES:
            raise ExportError(f"{key}: not a LoRA weight of a Llama projection llama.cpp knows.")
        layer, module, part = match.groups()
        array = tensor.astype("float32")
        if part == "B" and module in ("q_proj", "k_proj"):
            array = permute(array, heads if module == "q_proj" else kv_heads)
        weights.setdefault(f"blk.{layer}.{TENSOR_NAMES[module]}.weight", {})[part.lower()] = array
    if not weights:
        raise ExportError(f"{adapter_dir} holds no LoRA weights.")
    if any(len(pair) != 2 for pair in weights.values()):
        raise ExportError(f"{adapter_dir}: a LoRA weight lacks its A or B half.")
    return float(config["lora_alpha"]), weights


def export(adapter_dir: Path, out: Path, *, heads: int, kv_heads: int) -> Path:
    """Write ``adapter_dir`` (peft, safetensors) as a llama.cpp LoRA GGUF at ``out``; returns ``out``."""
    import gguf  # heavy, optional: loaded only when used

    alpha, weights = read_adapter(adapter_dir, heads=heads, kv_heads=kv_heads)
    out.parent.mkdir(parents=True, exist_ok=True)
    temporary = out.with_suffix(f".{os.getpid()}.tmp")  # processes may write the same file at once
    writer = gguf.GGUFWriter(str(temporary), "llama")
    writer.add_string("general.type", "adapter")
    writer.add_string("adapter.type", "lora")
    writer.add_float32("adapter.lora.alpha", alpha)
    for name in sorted(weights):
        for part in ("a", "b"):
            writer.add_tensor(f"{name}.lora_{part}", weights[name][part])
    return finish(writer, temporary, out)


def finish(writer: Any, temporary: Path, out: Path) -> Path:
    """Write a filled GGUFWriter to its temporary file and move that into place at ``out``."""
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    temporary.replace(out)
    return out
