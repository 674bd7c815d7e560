"""The optional llama.cpp backend: the LoRA export always; the backend itself where llama-cpp-python is installed."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from agents.llm import gguf_lora

ADAPTERS = Path(__file__).resolve().parents[2] / "agents" / "adapters"


def _fields(reader) -> dict:
    values = {}
    for name, field in reader.fields.items():
        part = field.parts[field.data[0]] if field.data else None
        values[name] = bytes(part).decode() if field.types and field.types[0].name == "STRING" else part
    return values


def test_the_committed_planner_adapter_exports_as_a_llama_cpp_lora(tmp_path):
    import gguf
    from safetensors.numpy import load_file

    out = gguf_lora.export(ADAPTERS / "planner", tmp_path / "planner.gguf", heads=9, kv_heads=3)
    reader = gguf.GGUFReader(str(out))
    fields = _fields(reader)
    assert fields["general.architecture"] == "llama"
    assert fields["general.type"] == "adapter" and fields["adapter.type"] == "lora"
    assert float(fields["adapter.lora.alpha"][0]) == 16.0
    tensors = {tensor.name: tensor for tensor in reader.tensors}
    # 30 layers x 7 projections x (A, B)
    assert len(tensors) == 420
    source = load_file(str(ADAPTERS / "planner" / "adapter_model.safetensors"))
    a_key = "base_model.model.model.layers.3.mlp.down_proj.lora_A.weight"
    assert np.allclose(np.asarray(tensors["blk.3.ffn_down.weight.lora_a"].data), source[a_key].astype("float32"))
    # The query projection's B rows are permuted as the GGUF base's rows are.
    b_key = "base_model.model.model.layers.3.self_attn.q_proj.lora_B.weight"
    written = np.asarray(tensors["blk.3.attn_q.weight.lora_b"].data)
    assert np.allclose(written, gguf_lora.permute(source[b_key].astype("float32"), 9))
    assert not np.allclose(written, source[b_key].astype("float32"))


def test_the_rotary_permutation_moves_rows_within_each_head_only():
    rows = np.arange(12, dtype="float32").reshape(12, 1)
    permuted = gguf_lora.permute(rows, 2)[:, 0].tolist()
    # Per head of 6 rows: first halves and second halves interleaved.
    assert permuted == [0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11]


def test_exporting_something_that_is_not_a_lora_is_refused(tmp_path):
    with pytest.raises(gguf_lora.ExportError, match="not a peft adapter"):
        gguf_lora.export(tmp_path, tmp_path / "x.gguf", heads=9, kv_heads=3)
    (tmp_path / "adapter_config.json").write_text('{"peft_type": "IA3"}')
    (tmp_path / "adapter_model.safetensors").write_bytes(b"")
    with pytest.raises(gguf_lora.ExportError, match="not a LoRA"):
        gguf_lora.export(tmp_path, tmp_path / "x.gguf", heads=9, kv_heads=3)
    assert not (tmp_path / "x.gguf").exists()


@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is optional (make llama)")
def test_llama_cpp_answers_as_the_trained_planner_and_caller(settings, default_model_dir):
    from agents.llm import bench, llamacpp_backend
    from agents.prompts import build_messages
    from agents.runtime import STOP
    from agents.tools import REGISTRY
    from agents.trajectory import parse_caller, parse_planner

    settings.AGENT_BACKEND = "llamacpp"
    settings.AGENT_BASE_MODEL = ""  # the default base, so the committed adapters load
    settings.AGENT_PLANNER_ADAPTER = settings.AGENT_CALLER_ADAPTER = ""
    settings.MODEL_CACHE_DIR = default_model_dir.parent
    backend = llamacpp_backend.configured()
    assert not backend.few_shot
    states = bench.load_states("d1_appointment_generic.json")
    steps = [(i, state["from"]) for i, state in enumerate(states) if state["from"] in ("planner", "caller")]
    for index, role in steps[:3]:  # planner, caller, planner: the second planner step reuses its cache
        generation = backend.generate(role, build_messages(role, states[:index], REGISTRY), STOP[role], timeout=120)
        assert generation.completion_tokens > 0
        if role == "planner":
            parse_planner(generation.text)
        else:
            call = parse_caller(generation.text)
            REGISTRY.get(call["tool"]).validate(call["parameters"])
