"""The transformers backend's mechanics on a tiny randomly initialised Llama with
SmolLM2's real tokenizer: adapters on one base, stop sequences, timeouts, prefix
reuse and schema-constrained tool calls. Fast once the session's tokenizer exists."""

from __future__ import annotations

import json

import pytest

from agents.llm import local, transformers_backend
from agents.llm.base import BackendTimeout, Message
from agents.runtime import STOP
from agents.tools import REGISTRY
from agents.trajectory import parse_caller, parse_planner

PROMPT = [
    Message("system", "You are the planner of a private health assistant. Answer with one action."),
    Message("user", "user: I have a headache.\nplanner:"),
]
LONGER = [
    PROMPT[0],
    Message(
        "user", "user: I have a headache.\nplanner: <reason>r</reason><action>a</action>\nobservation: {}\nplanner:"
    ),
]


@pytest.fixture(scope="session")
def tiny_adapters(tmp_path_factory, tiny_model_dir):
    """Two LoRA adapters with random (non-zero) weights, as a training run would save them."""
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    paths = {}
    for seed, role in enumerate(("planner", "caller"), start=1):
        torch.manual_seed(seed)
        base = AutoModelForCausalLM.from_pretrained(tiny_model_dir, local_files_only=True)
        config = LoraConfig(r=8, lora_alpha=64, target_modules="all-linear", init_lora_weights=False)
        paths[role] = tmp_path_factory.mktemp(f"adapter-{role}")
        get_peft_model(base, config).save_pretrained(paths[role])
    return paths


def backend_for(model_dir, adapters=None, **options):
    """A fresh backend; free planner generation unless ``structured_planner=True`` is asked for."""
    backend = transformers_backend._build(model_dir, adapters or {}, threads=1)
    for name, value in {"structured_planner": False, **options}.items():
        setattr(backend, name, value)
    return backend


def test_each_role_runs_its_own_adapter_on_one_shared_base(tiny_model_dir, tiny_adapters):
    plain = backend_for(tiny_model_dir, constrained_caller=False)
    both = backend_for(tiny_model_dir, tiny_adapters, constrained_caller=False)
    base_weight = both.model.base_model.model.model.layers[0].self_attn.q_proj.base_layer.weight

    planner = both.generate("planner", PROMPT).text
    caller = both.generate("caller", PROMPT).text
    again = both.generate("planner", PROMPT).text

    assert len({planner, caller, plain.generate("planner", PROMPT).text}) == 3
    assert again == planner
    assert both.model.base_model.model.model.layers[0].self_attn.q_proj.base_layer.weight is base_weight
    base_parameters = sum(p.numel() for p in plain.model.parameters())
    assert sum(p.numel() for n, p in both.model.named_parameters() if "lora_" not in n) == base_parameters
    assert not both.few_shot and plain.few_shot


def test_a_role_without_an_adapter_runs_the_plain_base(tiny_model_dir, tiny_adapters):
    plain = backend_for(tiny_model_dir, constrained_caller=False)
    planner_only = backend_for(tiny_model_dir, {"planner": tiny_adapters["planner"]}, constrained_caller=False)

    assert planner_only.generate("caller", PROMPT).text == plain.generate("caller", PROMPT).text
    assert planner_only.generate("planner", PROMPT).text != plain.generate("planner", PROMPT).text
    assert planner_only.few_shot


def test_generation_stops_at_a_stop_sequence_and_counts_tokens(tiny_model_dir):
    backend = backend_for(tiny_model_dir, stop_loops=False)  # the random model loops
    full = backend.generate("planner", PROMPT)
    stop = full.text[len(full.text) // 2 :][:3]

    cut = backend.generate("planner", PROMPT, stop=(stop,))

    assert full.completion_tokens == backend.max_new_tokens["planner"]
    assert cut.text == full.text[: full.text.find(stop)]
    assert 0 < cut.completion_tokens < full.completion_tokens
    assert cut.prompt_tokens == full.prompt_tokens == len(backend.prompt_ids(PROMPT))


def test_a_generation_past_its_timeout_raises(tiny_model_dir):
    backend = backend_for(tiny_model_dir, max_new_tokens={"planner": 100_000, "caller": 100_000}, stop_loops=False)

    with pytest.raises(BackendTimeout):
        backend.generate("planner", PROMPT, timeout=0.3)
    backend.max_new_tokens = dict(transformers_backend.MAX_NEW_TOKENS)
    assert backend.generate("planner", PROMPT, timeout=60).completion_tokens > 0  # the model is free again


def test_an_answer_stuck_in_a_loop_stops_before_the_cap(tiny_model_dir):
    looping = backend_for(tiny_model_dir, stop_loops=False).generate("planner", PROMPT)
    stopped = backend_for(tiny_model_dir).generate("planner", PROMPT)

    # The random model falls into a loop well before the cap; the answer is the same up to there.
    assert stopped.completion_tokens < looping.completion_tokens == transformers_backend.MAX_NEW_TOKENS["planner"]
    assert looping.text.startswith(stopped.text)


def test_the_prefix_cache_gives_the_same_output_as_no_cache(tiny_model_dir, tiny_adapters):
    cached = backend_for(tiny_model_dir, tiny_adapters, constrained_caller=False)
    uncached = backend_for(tiny_model_dir, tiny_adapters, constrained_caller=False, prefix_cache=False)

    first = [cached.generate("planner", PROMPT).text, cached.generate("caller", PROMPT).text]
    second = cached.generate("planner", LONGER)

    assert cached.last_reused_tokens > len(cached.prompt_ids(PROMPT)) // 2
    assert second.text == uncached.generate("planner", LONGER).text
    assert first == [uncached.generate("planner", PROMPT).text, uncached.generate("caller", PROMPT).text]
    assert uncached.last_reused_tokens == 0


def test_the_structured_planner_always_answers_in_the_planner_format(tiny_model_dir, tiny_adapters):
    structured = backend_for(tiny_model_dir, tiny_adapters, structured_planner=True)
    uncached = backend_for(tiny_model_dir, tiny_adapters, structured_planner=True, prefix_cache=False)

    for messages in (PROMPT, LONGER):
        generation = structured.generate("planner", messages, stop=STOP["planner"])
        value = parse_planner(generation.text)
        assert generation.text == f"<reason>{value['reason']}</reason><action>{value['action']}"
        # With an adapter the free answer is tried first (this random one does not parse), then the
        # structured planner answers: both count, each within its cap.
        assert (
            0
            < generation.completion_tokens
            <= transformers_backend.MAX_NEW_TOKENS["planner"]
            + local.PLANNER_REASON_TOKENS
            + local.PLANNER_ACTION_TOKENS
        )
        assert generation.text == uncached.generate("planner", messages, stop=STOP["planner"]).text


def test_the_constrained_caller_always_writes_a_valid_call(tiny_model_dir, tiny_adapters):
    backend = backend_for(tiny_model_dir, tiny_adapters)
    prompts = [PROMPT, LONGER, [PROMPT[0], Message("user", "planner: Send the SOS message.\ncaller:")]]

    for messages in prompts:
        generation = backend.generate("caller", messages)
        call = parse_caller(generation.text)
        REGISTRY.get(call["tool"]).validate(call["parameters"])
        assert json.loads(generation.text) == call
        assert generation.prompt_tokens > 0


def test_a_constrained_call_past_its_timeout_raises(tiny_model_dir):
    backend = backend_for(tiny_model_dir)

    with pytest.raises(BackendTimeout):
        backend.generate("caller", PROMPT, timeout=1e-3)
