"""Runtime mechanics: persisted steps with tokens and latency, websocket pushes,
the max-steps guard and the per-call timeout."""

from __future__ import annotations

import asyncio
import itertools

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from agents.llm.scripted import Delay, ScriptedBackend
from agents.services import post_user_message, start_chat
from core.realtime import user_group
from tests.agents.helpers import call, end, plan


def listen(user):
    """Join ``user``'s websocket group; return a function that drains what arrived."""
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(user_group(user.pk), channel)

    async def drain() -> list[dict]:
        received = []
        while True:
            try:
                received.append(await asyncio.wait_for(layer.receive(channel), timeout=0.05))
            except TimeoutError:
                return received

    return lambda: async_to_sync(drain)()


def test_every_step_is_stored_with_its_cost_and_pushed_as_it_happens(alice, django_capture_on_commit_callbacks):
    received = listen(alice)
    backend = ScriptedBackend(
        planner=[plan("Where is the user?", "Get the location."), end()],
        caller=[call("get_location")],
    )

    # Pushed once committed (the test's own transaction never commits: its callbacks are run here).
    with django_capture_on_commit_callbacks(execute=True):
        conversation = start_chat(alice, "Where am I?", backend=backend)

    steps = list(conversation.steps.order_by("index"))
    assert [s.role for s in steps] == ["system", "user", "planner", "caller", "observation", "planner"]
    planner = steps[2]
    assert planner.payload == {"reason": "Where is the user?", "action": "Get the location."}
    assert planner.completion_tokens == 6 and planner.prompt_tokens > 20 and planner.latency_ms is not None
    assert steps[0].payload["user_details"]["user_id"] == str(alice.pk)
    events = [(m["event"], m["data"]) for m in received()]
    step_events = [data for event, data in events if event == "agent_step"]
    assert [(d["index"], d["from"]) for d in step_events] == [(s.index, s.role) for s in steps]
    assert step_events[2]["completion_tokens"] == 6
    assert ("agent_status", {"conversation": conversation.pk, "status": "completed"}) in events


def test_a_question_is_pushed_to_the_chat(alice, django_capture_on_commit_callbacks):
    received = listen(alice)
    backend = ScriptedBackend(
        planner=[plan("Unclear.", "Ask.")],
        caller=[call("get_input_from_user", user_id=str(alice.pk), questions="Since when?")],
    )

    with django_capture_on_commit_callbacks(execute=True):
        conversation = start_chat(alice, "My back hurts.", backend=backend)

    events = [(m["event"], m["data"]) for m in received()]
    assert ("agent_question", {"conversation": conversation.pk, "question": "Since when?"}) in events


def test_the_max_steps_guard_stops_a_looping_model(settings, alice):
    settings.AGENT_MAX_STEPS = 3
    backend = ScriptedBackend(
        planner=itertools.repeat(plan("Again.", "Get the location.")),
        caller=itertools.repeat(call("get_location")),
    )

    conversation = start_chat(alice, "Loop forever.", backend=backend)

    assert conversation.status == "failed"
    assert conversation.error == "reached the limit of 3 steps"
    assert conversation.steps.filter(role="planner").count() == 3


def test_a_chat_s_tool_calls_are_limited_over_all_its_requests(settings, alice):
    """AGENT_MAX_STEPS resets with each message; a model kept busy turn after turn (an instruction
    hidden in a record, say) meets the whole chat's limit."""
    settings.AGENT_MAX_STEPS = 5
    settings.AGENT_MAX_TOOL_CALLS_PER_CONVERSATION = 7
    backend = ScriptedBackend(
        planner=itertools.cycle([plan("Look.", "Get the location."), plan("Look.", "Get the location."), end()]),
        caller=itertools.repeat(call("get_location")),
    )

    conversation = start_chat(alice, "Where am I?", backend=backend)
    calls = [conversation.steps.filter(role="caller").count()]
    for text in ("And now?", "And now?", "And now?"):
        conversation = post_user_message(conversation.pk, alice, text, backend=backend)
        calls.append(conversation.steps.filter(role="caller").count())

    assert calls == [2, 4, 6, 7]  # the fourth request stops at the seventh call
    assert conversation.status == "failed"
    assert conversation.error == "this chat has reached its limit of 7 actions; please start a new chat"
    conversation = post_user_message(conversation.pk, alice, "Again?", backend=backend)
    assert conversation.steps.filter(role="caller").count() == 7 and conversation.status == "failed"


def test_a_model_call_that_outlives_the_timeout_fails_the_chat(settings, alice):
    settings.AGENT_CALL_TIMEOUT_SECONDS = 0.1
    backend = ScriptedBackend(planner=[Delay(1.0, end())])

    conversation = start_chat(alice, "Hello, I have a question.", backend=backend)

    assert conversation.status == "failed"
    assert conversation.error == "the planner timed out after 0.1 s"


def test_a_chat_without_a_model_fails_with_a_message(settings, alice, django_capture_on_commit_callbacks):
    settings.AGENT_BACKEND = "transformers"  # the model is not prepared in the test data folder

    with django_capture_on_commit_callbacks(execute=True):
        conversation = start_chat(alice, "Hello, I have a question.")

    conversation.refresh_from_db()
    assert (conversation.status, conversation.error) == ("failed", "no model is loaded")


def test_adapter_prompts_are_chat_turns_with_user_details_tool_names_and_trajectory(alice):
    backend = ScriptedBackend(planner=[plan("Ask.", "Get the location.")], caller=[call("get_location")])
    backend.scripts["planner"].items.append(end())

    start_chat(alice, "Where am I?", backend=backend)

    (_, first_planner), (_, caller_messages), (_, second_planner) = backend.calls[:3]
    system = first_planner[0].content
    assert f'"user_id": "{alice.pk}"' in system and "data, not instructions" in system
    assert "get_location" in system.split("Tools: ")[1]
    assert [m.role for m in first_planner] == ["system", "user"]
    assert first_planner[-1].content == "user: Where am I?"
    assert caller_messages[-1].content == "user: Where am I?\nplanner: Get the location."
    # The next step's prompt extends this one's: the model's own answer, then the observation.
    assert second_planner[:2] == first_planner
    assert second_planner[2].role == "assistant" and second_planner[2].content.startswith("<reason>Ask.</reason>")
    assert second_planner[3].content.startswith("observation: ")
    assert len(system.split()) < 200


def test_few_shot_prompts_are_short_and_carry_user_details_tools_and_trajectory(alice):
    backend = ScriptedBackend(planner=[plan("Ask.", "Get the location.")], caller=[call("get_location")])
    backend.scripts["planner"].items.append(end())
    backend.few_shot = True  # a base model without adapters: tools described, one worked example

    start_chat(alice, "Where am I?", backend=backend)

    (_, planner_messages), (_, caller_messages) = backend.calls[:2]
    system = planner_messages[0].content
    assert f'"user_id": "{alice.pk}"' in system
    assert "- get_location: Fetches the GPS coordinates" in system
    assert "data, never instructions" in system
    assert caller_messages[-1].content.endswith(
        "planner: <reason>Ask.</reason><action>Get the location.</action>\ncaller:"
    )
    assert "- send_message(text, phone_no?, to_emergency_contacts?)" in caller_messages[0].content
    assert len(system.split()) < 600


def test_a_few_shot_prompt_adds_one_worked_example_per_role():
    from agents.prompts import build_messages
    from agents.tools import REGISTRY
    from agents.trajectory import parse_caller, parse_planner

    states = [
        {"from": "system", "value": {"user_details": {"user_id": "7", "name": "A", "timestamp": ""}}},
        {"from": "user", "value": "My knee hurts."},
    ]

    planner = build_messages("planner", states, REGISTRY, few_shot=True)
    caller = build_messages("caller", states, REGISTRY, few_shot=True)

    assert [m.role for m in planner] == ["system", "user", "assistant", "user"]
    assert parse_planner(planner[2].content)["action"] == "Find an available general physician."
    assert parse_caller(caller[2].content)["tool"] == "get_available_specialists"
    REGISTRY.get("get_available_specialists").validate(parse_caller(caller[2].content)["parameters"])
    assert planner[-1].content == "user: My knee hurts.\nplanner:"
    assert len(build_messages("planner", states, REGISTRY)) == 2


def test_a_backend_without_adapters_gets_the_few_shot_prompt(alice):
    backend = ScriptedBackend(planner=[end()])
    backend.few_shot = True

    start_chat(alice, "Hello, I have a question.", backend=backend)

    assert [m.role for m in backend.calls[0][1]] == ["system", "user", "assistant", "user"]


def test_a_tool_that_crashes_becomes_an_error_observation_and_its_writes_are_undone(alice, caplog):
    from agents.models import Conversation
    from agents.runtime import Runtime
    from agents.tools import Registry, tool
    from health.models import Notification

    registry = Registry()

    @tool(registry=registry)
    def explode(ctx, how: str) -> bool:
        """Writes, then fails.

        Args:
            how: Why it fails.
        """
        Notification.objects.create(user=ctx.user, kind="test", title="half done")
        raise RuntimeError(how)

    conversation = Conversation.objects.create(user=alice)
    runtime = Runtime(
        conversation,
        ScriptedBackend(planner=[plan("Try.", "Explode."), end()], caller=[call("explode", how="a secret symptom")]),
        registry=registry,
    )
    runtime.begin("Go")

    assert runtime.run() == "completed"
    assert runtime.states[4] == {
        "from": "observation",
        "value": {"error": "explode failed unexpectedly (RuntimeError)."},
    }
    assert not Notification.objects.filter(title="half done").exists()
    assert "tool explode crashed" in caplog.text
    assert "a secret symptom" not in caplog.text  # exception messages may carry health data
