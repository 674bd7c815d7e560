"""A stored complaint is not closed unreferred (agents/tools/interaction.py, ``notify_user``): when a
chat request stored the user's complaint, looked for no specialist and the user declined nothing,
the first notification is refused with what to do instead. A small planner read the follow-up
guard's "no more questions" as the user's "no" and ended on "Your symptoms have been recorded"."""

from __future__ import annotations

from agents.llm.scripted import ScriptedBackend
from agents.services import start_chat
from agents.tools.interaction import UNREFERRED
from health.models import Notification
from tests.agents.helpers import call, end, observations, plan

RECORDED = "Your symptoms have been recorded for future reference."


def _store_then_notify(ref, symptoms: str, *, notifications: int = 1, searched: bool = False) -> ScriptedBackend:
    planner = [plan("Symptoms given.", "Store the symptoms only.")]
    caller = [call("store_symptoms", user_id=ref, symptoms=symptoms, timestamp="2026-03-01T10:00:00")]
    if searched:
        planner.append(plan("Stored.", "Match the symptoms to a specialization."))
        caller.append(call("match_specialization", symptoms=symptoms))
    for _ in range(notifications):
        planner.append(plan("Stored.", "Tell the user the symptoms are saved."))
        caller.append(call("notify_user", user_id=ref, message=RECORDED))
    return ScriptedBackend(planner=[*planner, end()], caller=caller)


def test_a_stored_complaint_with_no_specialist_looked_for_is_not_closed_at_once(alice, ref):
    conversation = start_chat(alice, "my knee is swollen and stiff", backend=_store_then_notify(ref, "swollen knee"))

    assert observations(conversation)[1] == {"error": UNREFERRED}
    assert not Notification.objects.filter(user=alice, body__contains="recorded").exists()


def test_the_refusal_is_said_once_so_a_model_that_insists_is_not_looped(alice, ref):
    backend = _store_then_notify(ref, "swollen knee", notifications=2)

    conversation = start_chat(alice, "my knee is swollen and stiff", backend=backend)

    assert observations(conversation)[1:] == [{"error": UNREFERRED}, {"result": True}]
    assert Notification.objects.filter(user=alice, body__contains="recorded").count() == 1


def test_a_user_who_asked_for_no_appointment_is_told_at_once(alice, ref):
    text = "just note that my knee is swollen, I don't need an appointment"

    conversation = start_chat(alice, text, backend=_store_then_notify(ref, "swollen knee"))

    assert observations(conversation)[1] == {"result": True}


def test_once_a_specialization_was_looked_for_the_model_tells_the_user_its_own_way(alice, ref):
    backend = _store_then_notify(ref, "swollen knee", searched=True)

    conversation = start_chat(alice, "my knee is swollen and stiff", backend=backend)

    assert observations(conversation)[2] == {"result": True}
