"""The optional llama.cpp backend: the LoRA export always; the backend itself where llama-cpp-python is installed."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from agents.llm import gguf_lora
from tests.agents.helpers import fixture_trajectory

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


@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is not installed")
@pytest.mark.parametrize("adapters", ["merged", "lora"])
def test_llama_cpp_answers_as_the_trained_planner_and_caller(settings, default_model_dir, adapters):
    from agents.llm import llamacpp_backend
    from agents.prompts import build_messages
    from agents.runtime import STOP
    from agents.tools import REGISTRY
    from agents.trajectory import parse_caller, parse_planner

    settings.AGENT_BACKEND = "llamacpp"
    settings.AGENT_BASE_MODEL = ""  # the default base, so the committed adapters load
    settings.AGENT_PLANNER_ADAPTER = settings.AGENT_CALLER_ADAPTER = ""
    settings.MODEL_CACHE_DIR = default_model_dir.parent
    settings.AGENT_LLAMACPP_ADAPTERS = adapters
    backend = llamacpp_backend.configured()
    assert not backend.few_shot
    # merged: one model per role; lora: both roles on one model
    assert (backend.runners["planner"] is backend.runners["caller"]) == (adapters == "lora")
    states = fixture_trajectory("d1_appointment_generic.json")["interaction_trajectory"]
    steps = [(i, state["from"]) for i, state in enumerate(states) if state["from"] in ("planner", "caller")]
    for index, role in steps[:3]:  # planner, caller, planner: the second planner step reuses its cache
        generation = backend.generate(role, build_messages(role, states[:index], REGISTRY), STOP[role], timeout=120)
        assert generation.completion_tokens > 0
        if role == "planner":
            parse_planner(generation.text)
        else:
            call = parse_caller(generation.text)
            REGISTRY.get(call["tool"]).validate(call["parameters"])


@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is not installed")
def test_the_plain_base_on_llama_cpp_answers_in_the_planner_format_and_with_valid_calls(default_model_dir):
    """No adapters: the structured planner and the schema-constrained caller answer, on llama.cpp too."""
    from transformers import AutoTokenizer

    from agents.llm import llamacpp_backend, model_store
    from agents.prompts import build_messages
    from agents.runtime import STOP
    from agents.tools import REGISTRY
    from agents.trajectory import parse_caller, parse_planner

    tokenizer = AutoTokenizer.from_pretrained(default_model_dir, local_files_only=True)
    runner = llamacpp_backend._Runner(model_store.gguf_path(), {}, 1, 2)
    backend = llamacpp_backend.LlamaCppBackend(
        {"planner": runner, "caller": runner}, tokenizer, [tokenizer.eos_token_id], trained=[]
    )
    assert backend.few_shot
    states = fixture_trajectory("d1_appointment_generic.json")["interaction_trajectory"]
    steps = [(i, state["from"]) for i, state in enumerate(states) if state["from"] in ("planner", "caller")]
    for index, role in steps[:4]:
        messages = build_messages(role, states[:index], REGISTRY, few_shot=True)
        generation = backend.generate(role, messages, STOP[role], timeout=120)
        if role == "planner":
            assert parse_planner(generation.text)["action"]
        else:
            call = parse_caller(generation.text)
            REGISTRY.get(call["tool"]).validate(call["parameters"])


@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is not installed")
def test_a_long_feed_reads_its_last_logits_across_a_batch_boundary(default_model_dir):
    """514 tokens with the logits of the last 4 read: 2 would fall into a second batch of their own."""
    from agents.llm import llamacpp_backend, model_store

    runner = llamacpp_backend._Runner(model_store.gguf_path(), {}, 1, 2)
    tokens = [int(t) for t in np.random.default_rng(0).integers(100, 40_000, size=514)]
    at_once = llamacpp_backend._Sequence(runner, 0).forward(tokens, 4)
    in_two = llamacpp_backend._Sequence(runner, 1)
    in_two.forward(tokens[:500], 1)
    assert at_once == in_two.forward(tokens[500:], 4)
    assert len(at_once) == 4


def _tiny_base(path: Path) -> None:
    """A two-weight Llama GGUF in the default base's layout (Q4_1 projections, F32 norm)."""
    import gguf

    rng = np.random.default_rng(0)
    weights = {
        "blk.0.attn_q.weight": rng.normal(size=(8, 64)).astype("float32"),
        "blk.0.ffn_down.weight": rng.normal(size=(64, 32)).astype("float32"),
    }
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_uint32("llama.block_count", 1)
    writer.add_string("tokenizer.chat_template", "{{ messages }}")
    for name, array in weights.items():
        data = gguf.quants.quantize(array, gguf.GGMLQuantizationType.Q4_1)
        writer.add_tensor(name, data, raw_shape=data.shape, raw_dtype=gguf.GGMLQuantizationType.Q4_1)
    writer.add_tensor("blk.0.attn_norm.weight", np.arange(64, dtype="float32"))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def _tiny_adapter(directory: Path, modules: dict[str, tuple[int, int]]) -> dict[str, np.ndarray]:
    from safetensors.numpy import save_file

    rng = np.random.default_rng(1)
    tensors = {}
    for module, (rows, cols) in modules.items():
        group = "self_attn" if module.endswith(("q_proj", "k_proj")) else "mlp"
        prefix = f"base_model.model.model.layers.0.{group}.{module}"
        tensors[f"{prefix}.lora_A.weight"] = rng.normal(size=(4, cols)).astype("float32")
        tensors[f"{prefix}.lora_B.weight"] = rng.normal(size=(rows, 4)).astype("float32")
    directory.mkdir()
    save_file(tensors, str(directory / "adapter_model.safetensors"))
    (directory / "adapter_config.json").write_text('{"peft_type": "LORA", "lora_alpha": 8, "r": 4}')
    return tensors


def test_merging_an_adapter_writes_base_plus_scaled_delta_and_copies_the_rest(tmp_path):
    import gguf

    from agents.llm import gguf_merge

    base = tmp_path / "base.gguf"
    _tiny_base(base)
    tensors = _tiny_adapter(tmp_path / "adapter", {"q_proj": (8, 64), "down_proj": (64, 32)})
    out = gguf_merge.merge(base, tmp_path / "adapter", tmp_path / "merged.gguf", heads=2, kv_heads=1)

    source = {tensor.name: tensor for tensor in gguf.GGUFReader(str(base)).tensors}
    reader = gguf.GGUFReader(str(out))
    assert reader.fields["tokenizer.chat_template"].contents() == "{{ messages }}"
    assert reader.fields["llama.block_count"].contents() == 1
    merged = {tensor.name: tensor for tensor in reader.tensors}
    assert set(merged) == set(source)
    assert np.array_equal(np.asarray(merged["blk.0.attn_norm.weight"].data), np.arange(64, dtype="float32"))
    for name, module, heads in (
        ("blk.0.attn_q.weight", "self_attn.q_proj", 2),
        ("blk.0.ffn_down.weight", "mlp.down_proj", 0),
    ):
        prefix = f"base_model.model.model.layers.0.{module}"
        b = tensors[f"{prefix}.lora_B.weight"]
        if heads:
            b = gguf_lora.permute(b, heads)  # the GGUF keeps q/k rows in the rotary order
        expected = (
            gguf.quants.dequantize(source[name].data, source[name].tensor_type)
            + 2.0 * b @ tensors[f"{prefix}.lora_A.weight"]
        )
        assert merged[name].tensor_type == gguf.GGMLQuantizationType.Q8_0
        written = gguf.quants.dequantize(merged[name].data, merged[name].tensor_type)
        step = np.abs(expected).max() / 127
        assert np.abs(written - expected).max() <= step
        # The delta survived: the merged weight is nearer the expected one than the plain base is.
        plain = gguf.quants.dequantize(source[name].data, source[name].tensor_type)
        assert np.abs(written - expected).mean() < np.abs(plain - expected).mean() / 10


def test_merging_refuses_an_adapter_that_does_not_fit_the_base(tmp_path):
    from agents.llm import gguf_merge

    base = tmp_path / "base.gguf"
    _tiny_base(base)
    _tiny_adapter(tmp_path / "adapter", {"v_proj": (8, 64)})
    with pytest.raises(gguf_lora.ExportError, match=r"no weight blk\.0\.attn_v\.weight"):
        gguf_merge.merge(base, tmp_path / "adapter", tmp_path / "merged.gguf", heads=2, kv_heads=1)
    assert not (tmp_path / "merged.gguf").exists() and not list(tmp_path.glob("merged*.tmp"))
