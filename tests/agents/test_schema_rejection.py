"""Caller output is parsed and validated against the tool's JSON Schema before
anything runs: an unusable call becomes an error observation, the caller gets a
bounded retry, and then the run fails gracefully with a message to the user."""

from __future__ import annotations

import pytest

from agents.llm.scripted import ScriptedBackend
from agents.services import start_chat
from health.models import Notification, SymptomRecord
from tests.agents.helpers import call, end, observations, plan, states


def store(ref: str, **overrides) -> str:
    parameters = {"user_id": ref, "symptoms": "headache", "timestamp": "2026-01-05T09:00:00", **overrides}
    return call("store_symptoms", **{k: v for k, v in parameters.items() if v is not None})


@pytest.mark.parametrize(
    ("bad_call", "error"),
    [
        (call("store_everything", user_id="1"), "Unknown tool 'store_everything'. Available tools: "),
        (store("{ref}", timestamp=None), "Invalid parameters for store_symptoms: 'timestamp' is a required property."),
        (store("{ref}", symptoms=42), "Invalid parameters for store_symptoms: symptoms: 42 is not of type 'string'."),
        (store("{ref}", severity="high"), "Additional properties are not allowed ('severity' was unexpected)"),
        ("I think you should store the symptoms", "The caller output is not JSON"),
        ('{"tool": "store_symptoms", "parameters": {"user_id": ', "The caller output is not valid JSON"),
        ('{"name": "store_symptoms", "arguments": {}}', 'must be {"tool": "<name>", "parameters": {...}}'),
    ],
    ids=["unknown-tool", "missing-argument", "wrong-type", "extra-argument", "prose", "truncated-json", "wrong-keys"],
)
def test_an_unusable_call_becomes_an_error_observation_and_executes_nothing(alice, bad_call, error):
    ref = str(alice.pk)
    backend = ScriptedBackend(
        planner=[plan("Headache.", "Store the symptoms."), end()],
        caller=[bad_call.replace("{ref}", ref), store(ref)],
    )

    conversation = start_chat(alice, "I have a headache.", backend=backend)

    first, second = observations(conversation)
    assert error in first["error"]
    assert second == {"result": True}
    assert SymptomRecord.objects.filter(user=alice).count() == 1  # only the retried, valid call ran
    assert conversation.status == "completed"


def test_the_error_is_shown_to_the_caller_on_its_retry(alice):
    backend = ScriptedBackend(
        planner=[plan("Headache.", "Store the symptoms."), end()],
        caller=[call("store_everything"), store(str(alice.pk))],
    )

    start_chat(alice, "I have a headache.", backend=backend)

    retry_prompt = [messages for role, messages in backend.calls if role == "caller"][1][-1].content
    assert "Unknown tool 'store_everything'" in retry_prompt


def test_after_the_bounded_retries_the_run_fails_with_a_message_to_the_user(alice):
    backend = ScriptedBackend(
        planner=[plan("Headache.", "Store the symptoms.")],
        caller=["nonsense", "more nonsense", call("store_symptoms", user_id=str(alice.pk))],
    )

    conversation = start_chat(alice, "I have a headache.", backend=backend)

    assert conversation.status == "failed"
    assert conversation.error == "the caller produced no usable call in 3 attempts"
    assert [s["from"] for s in states(conversation)][2:] == ["planner"] + ["caller", "observation"] * 3
    assert not SymptomRecord.objects.exists()
    assert Notification.objects.get(user=alice).title.startswith("Sorry, I could not finish this request")


def test_unparseable_planner_output_fails_the_chat_gracefully(alice):
    backend = ScriptedBackend(planner=["I don't know"])

    conversation = start_chat(alice, "Hello, I have a question.", backend=backend)

    assert conversation.status == "failed"
    assert "planner's output was unusable" in conversation.error
