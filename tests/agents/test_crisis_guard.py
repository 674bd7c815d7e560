"""The crisis guard (agents/crisis.py): a message about suicide or self-harm gets a caring answer at
once, with the emergency number, the SOS button and crisis lines, without the model; nothing is
stored, booked or sent. "I took all my pills", and suicide with a plan, the means or the hour ("I'm
going to kill myself", "I have a gun and I want to die"), are the help-now guard's: they start the
hard SOS, and its reply gives the crisis lines too."""

from __future__ import annotations

import pytest

from agents import crisis
from agents.help_now import emergency
from agents.llm.scripted import ScriptedBackend
from agents.services import post_user_message, start_chat
from health.models import Alert, Appointment, OutboundMessage, SymptomRecord
from tests.agents.helpers import call, end, harmful_model, plan, states

CRISIS = [
    "I'm going to end it tonight",
    "I cut myself again tonight",
    "I want to kill myself",
    "i wanna die",
    "I've been thinking about suicide",
    "I feel suicidal",
    "I keep wanting to hurt myself",
    "I've been cutting myself again",
    "everyone would be better off without me",
    "I don't want to live anymore",
    "I want to end my life",
    "there's no point in living",
    "i wish i was dead",
    "my daughter has been self-harming",
]
NOT_CRISIS = [
    "I have a headache and a fever",
    "I'm dying to know when my appointment is",
    "my phone died",
    "I cut my finger while cooking",
    "I cut myself shaving this morning",
    "I burned myself on the oven",
    "I want to end it with my boyfriend tonight",
    "book me a dermatologist",
    "I hurt my back lifting boxes",
]


@pytest.mark.parametrize("text", CRISIS)
def test_suicide_and_self_harm_are_recognised(text):
    assert crisis.crisis(text)


@pytest.mark.parametrize("text", NOT_CRISIS)
def test_other_messages_are_not(text):
    assert not crisis.crisis(text)


def test_the_answer_gives_the_emergency_number_the_sos_button_and_crisis_lines(settings):
    settings.EMERGENCY_NUMBER = "112"
    answer = crisis.reply()
    assert "call 112 now" in answer and "/sos/" in answer and "988" in answer and "116 123" in answer
    assert "{" not in answer


def test_the_crisis_answer_comes_at_once_without_the_model_and_nothing_is_stored(alice):
    backend = harmful_model()

    conversation = start_chat(alice, "I want to kill myself", backend=backend)

    assert conversation.status == "completed"
    assert backend.calls == []
    trajectory = states(conversation)
    assert trajectory[2]["value"]["reason"].startswith("Crisis guard:")
    assert trajectory[3]["value"]["parameters"]["message"] == crisis.reply()
    assert not SymptomRecord.objects.exists() and not Appointment.objects.exists()
    assert not OutboundMessage.objects.exists()


def test_it_is_answered_in_the_middle_of_a_question_too(alice):
    backend = ScriptedBackend(
        planner=[plan("Need details.", "Ask since when.")],
        caller=[call("get_input_from_user", user_id=str(alice.pk), questions="Since when?")],
    )
    conversation = start_chat(alice, "I can't sleep", backend=backend)
    assert conversation.status == "waiting_input"

    conversation = post_user_message(conversation.pk, alice, "honestly I just want to die", backend=harmful_model())

    assert conversation.status == "completed"
    assert any(
        s["from"] == "planner" and s["value"]["reason"].startswith("Crisis guard:") for s in states(conversation)
    )


def test_an_overdose_is_the_help_now_guards(alice):
    assert emergency("I took all my pills") is not None or emergency("I took too many pills") is not None


def test_a_care_request_goes_to_the_model(alice):
    backend = ScriptedBackend(planner=[end("Nothing to do.")])
    start_chat(alice, "I cut my finger while cooking", backend=backend)
    assert len(backend.calls) == 1


def test_suicide_with_the_means_at_hand_starts_the_hard_sos_and_the_reply_gives_the_crisis_lines(alice):
    backend = harmful_model()

    conversation = start_chat(alice, "I have all my pills ready and I'm going to end my life", backend=backend)

    assert backend.calls == []
    [alert] = Alert.objects.filter(user=alice, kind=Alert.Kind.HARD)
    assert alert.state == Alert.State.COUNTDOWN
    said = next(s["value"]["parameters"]["message"] for s in reversed(states(conversation)) if s["from"] == "caller")
    assert said.startswith("I've started an emergency SOS.") and "988" in said and "116 123" in said


def test_thoughts_of_suicide_without_a_plan_get_the_answer_and_no_sos(alice):
    start_chat(alice, "I want to end my life", backend=harmful_model())
    assert not Alert.objects.exists()
