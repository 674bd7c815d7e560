"""The decline guard (agents/decline_guard.py): a user who says no to the offered appointment still
has the complaint and the referral on record, whatever the model did after the "no". Conversations
go through the chat services with the model scripted; the directory has every specialization."""

from __future__ import annotations

import datetime as dt
import itertools
from dataclasses import dataclass

import pytest
from django.utils import timezone

from agents.llm.scripted import ScriptedBackend
from agents.runtime import FAILURE_MESSAGE
from agents.services import post_user_message, start_chat
from health import demo_data
from health.models import Appointment, Notification, SymptomRecord
from tests.agents.helpers import BERLIN, call, end, plan, states
from tests.factories import SlotFactory, SpecialistFactory, SpecializationFactory

PROPOSAL = "Would you like me to book an appointment with a doctor?"


@pytest.fixture
def directory(db):
    """One specialist with one free slot tomorrow at 10:00 for every specialization of the demo
    directory, so that a search finds one whichever specialization triage ranks first."""
    local = timezone.now().astimezone(BERLIN) + dt.timedelta(days=1)
    starts = local.replace(hour=10, minute=0, second=0, microsecond=0)
    for row in demo_data.SPECIALIZATIONS:
        specialization = SpecializationFactory(name=row.name, synonyms=row.synonyms)
        specialist = SpecialistFactory(name=row.specialists[0][0], specialization=specialization)
        SlotFactory(specialist=specialist, starts_at=starts, ends_at=starts + dt.timedelta(minutes=30))


@dataclass(frozen=True)
class Case:
    """A complaint, the model's moves up to its offer, the user's answer and what the model does then."""

    message: str
    answer: str
    before: tuple[tuple[str, str], ...]  # (planner, caller) pairs up to and including the offer
    after: tuple[tuple[str, str | None], ...]  # the model's moves after the answer (None: it ends)
    stored: list[str] | None  # the symptoms on record afterwards (None: no record)
    guard_acts: bool


def ask(ref: str) -> tuple[str, str]:
    return (
        plan("The user reports symptoms.", "Ask the user whether to book an appointment."),
        call("get_input_from_user", user_id=ref, questions=PROPOSAL),
    )


def search(symptoms: str, specialization: str = "general physician") -> tuple[str, str]:
    return (
        plan("Find a specialist.", "Find a general physician."),
        call("get_available_specialists", symptoms=symptoms, specialization=specialization),
    )


def ends() -> tuple[str, None]:
    return (end("The user declined."), None)


def cases(ref: str) -> dict[str, Case]:
    return {
        # The held-out failure: asked before any search, the model ends at the "no".
        "ended at the no, nothing searched": Case(
            "I have a high fever and a cough.",
            "No, thank you.",
            (ask(ref),),
            (ends(),),
            ["high fever", "cough"],
            True,
        ),
        "searched, ended at the no": Case(
            "I've had a sore throat and a runny nose since Monday.",
            "No, not now.",
            (search("sore throat, runny nose"), ask(ref)),
            (ends(),),
            ["sore throat", "runny nose"],
            True,
        ),
        "a denied symptom is not stored": Case(
            "I have a cough but no fever.",
            "no thanks",
            (ask(ref),),
            (ends(),),
            ["cough"],
            True,
        ),
        "typos are read as the symptoms meant": Case(
            "i hav a hedache and feever, my stomache hurts",
            "Nope, maybe later",
            (ask(ref),),
            (ends(),),
            ["headache", "fever", "abdominal pain"],
            True,
        ),
        "stored, never searched": Case(
            "I have a high fever and a cough.",
            "No",
            (ask(ref),),
            (
                (
                    plan("The user declined.", "Store the symptoms."),
                    call("store_symptoms", user_id=ref, symptoms="high fever, cough", timestamp="2026-03-01T10:00:00"),
                ),
                ends(),
            ),
            ["high fever", "cough"],
            True,
        ),
        # The seed paper's decline flow, done by the model: the guard adds nothing.
        "the model stored and told the user itself": Case(
            "I have a high fever and a cough.",
            "No, thank you.",
            (search("high fever, cough"), ask(ref)),
            (
                (
                    plan("The user declined.", "Store the symptoms."),
                    call("store_symptoms", user_id=ref, symptoms="high fever, cough", timestamp="2026-03-01T10:00:00"),
                ),
                (
                    plan("Stored.", "Tell the user."),
                    call("notify_user", user_id=ref, message="Your symptoms have been recorded."),
                ),
                ends(),
            ),
            ["high fever", "cough"],
            False,
        ),
        "not a no": Case(
            "I have a high fever and a cough.",
            "Not sure, what do you think?",
            (ask(ref),),
            (ends(),),
            None,
            False,
        ),
        "no complaint to store": Case(
            "Can you book me a general check-up?",
            "No, thank you.",
            (ask(ref),),
            (ends(),),
            None,
            False,
        ),
    }


def run(case: Case, alice) -> tuple:
    moves = [*case.before, *case.after]
    backend = ScriptedBackend(
        planner=[planner for planner, _ in moves],
        caller=[caller for _, caller in moves if caller is not None],
    )
    conversation = start_chat(alice, case.message, backend=backend)
    assert conversation.status == "waiting_input"
    conversation = post_user_message(conversation.pk, alice, case.answer, backend=backend)
    return conversation, backend


@pytest.mark.parametrize(
    "name",
    [
        "ended at the no, nothing searched",
        "searched, ended at the no",
        "a denied symptom is not stored",
        "typos are read as the symptoms meant",
        "stored, never searched",
        "the model stored and told the user itself",
        "not a no",
        "no complaint to store",
    ],
)
def test_a_declined_appointment_leaves_the_complaint_and_the_referral_on_record(alice, ref, directory, name):
    case = cases(ref)[name]

    conversation, backend = run(case, alice)

    assert conversation.status == "completed"
    assert backend.remaining("planner") == [] and backend.remaining("caller") == []
    assert not Appointment.objects.exists(), "a no books nothing"
    records = list(SymptomRecord.objects.filter(user=alice))
    if case.stored is None:
        assert records == []
    else:
        assert [record.symptoms for record in records] == [case.stored]
    trajectory = states(conversation)
    guard_steps = [s for s in trajectory if s["from"] == "planner" and s["value"]["reason"].startswith("Decline guard")]
    assert bool(guard_steps) == case.guard_acts
    if case.guard_acts:
        assert trajectory[-1]["value"]["action"] == "<END>"
        assert searched_specialization(trajectory), "the referral is on record: a specialist was searched"


def searched_specialization(trajectory: list[dict]) -> str:
    """The specialization of the last specialist found (the evaluation's reading of a referral)."""
    found = ""
    for before, after in itertools.pairwise(trajectory):
        if before["from"] == "caller" and before["value"]["tool"] == "get_available_specialists":
            result = after["value"].get("result") or {}
            found = result.get("name", "").rpartition("(")[2].rstrip(")").lower()
    return found


def test_the_guard_searches_the_specialization_triage_ranked_first_and_tells_the_user(alice, ref, directory):
    conversation, _ = run(cases(ref)["ended at the no, nothing searched"], alice)

    trajectory = states(conversation)
    calls = [s["value"] for s in trajectory if s["from"] == "caller"]
    assert [c["tool"] for c in calls] == [
        "get_input_from_user",
        "match_specialization",
        "get_available_specialists",
        "store_symptoms",
        "notify_user",
    ]
    results = [s["value"] for s in trajectory if s["from"] == "observation"]
    ranked = results[1]["result"]["specializations"]
    assert searched_specialization(trajectory) == ranked[0]
    assert "error" not in results[2]
    message = calls[-1]["parameters"]["message"]
    assert message.startswith("I saved your symptoms for future reference: high fever, cough.")
    assert ranked[0] in message
    assert Notification.objects.filter(user=alice, body=message).exists()


def test_a_model_that_loops_after_the_no_ends_with_the_complaint_stored_not_a_failure(settings, alice, ref, directory):
    settings.AGENT_MAX_STEPS = 3
    proposal = ask(ref)
    backend = ScriptedBackend(
        planner=itertools.chain([proposal[0]], itertools.repeat(plan("Again.", "Check the history."))),
        caller=itertools.chain([proposal[1]], itertools.repeat(call("get_appointment_history", user_id=ref))),
    )
    conversation = start_chat(alice, "My back is killing me and my knee is swollen.", backend=backend)
    conversation = post_user_message(conversation.pk, alice, "No, thank you.", backend=backend)

    assert conversation.status == "completed"
    assert SymptomRecord.objects.get(user=alice).symptoms == ["back pain", "my knee is swollen"]
    assert searched_specialization(states(conversation))
    assert not Notification.objects.filter(user=alice, title=FAILURE_MESSAGE).exists()
