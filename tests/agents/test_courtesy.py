"""Greetings, thanks and "what can you do?" said alone get an answer without the model (agents/courtesy.py)."""

from __future__ import annotations

import pytest

from agents import courtesy
from agents.services import post_user_message, start_chat
from health.models import Alert, Appointment, Notification, SymptomRecord
from tests.agents.helpers import harmful_model
from tests.agents.test_appointment_desk import _booked

COURTESIES = [
    ("hi", courtesy.GREETING),
    ("Hello there!", courtesy.GREETING),
    ("good morning, how are you?", courtesy.GREETING),
    ("thanks", courtesy.THANKS),
    ("ok thank you", courtesy.THANKS),
    ("great, thanks a lot!", courtesy.THANKS),
    ("thx bye", courtesy.THANKS),
    ("that's all, cheers", courtesy.THANKS),
    ("help", courtesy.WHAT_I_DO),
    ("what can you do?", courtesy.WHAT_I_DO),
    ("what's your name", courtesy.WHAT_I_DO),
    ("who made you?", courtesy.WHAT_I_DO),
    ("are you a real doctor", courtesy.WHAT_I_DO),
    ("hi, how does this app work", courtesy.WHAT_I_DO),
]

NOT_COURTESIES = [
    "hi, I have a headache",
    "thanks, and cancel my appointment",
    "ok",  # answers a question; said alone it is no thanks
    "no",
    "good",
    "hello, can you book me a dermatologist",
    "thank you, my chest hurts though",
    "help me with my booking",
    "how are you supposed to take metformin",
    "Again?",
    "there",
]


@pytest.mark.parametrize(("text", "kind"), COURTESIES)
def test_a_courtesy_said_alone_is_read(text, kind):
    assert courtesy.courtesy(text) == kind


@pytest.mark.parametrize("text", NOT_COURTESIES)
def test_a_request_with_a_courtesy_in_it_is_no_courtesy(text):
    assert courtesy.courtesy(text) is None


@pytest.mark.parametrize("kind", [courtesy.GREETING, courtesy.THANKS, courtesy.WHAT_I_DO])
def test_each_answer_says_how_to_get_emergency_help(kind):
    answer = courtesy.reply(kind)
    assert "SOS" in answer and "{" not in answer and "\n" not in answer


def said(user) -> str:
    """What the assistant told ``user`` (its notices in the chat)."""
    return " ".join(Notification.objects.filter(user=user, kind="assistant").values_list("body", flat=True))


def test_a_greeting_gets_what_the_assistant_does_and_nothing_happens(alice):
    backend = harmful_model()

    conversation = start_chat(alice, "hello", backend=backend)

    assert conversation.status == "completed"
    assert backend.calls == []
    assert "Tell me your symptoms" in said(alice)
    assert not SymptomRecord.objects.exists() and not Appointment.objects.exists() and not Alert.objects.exists()


def test_thanks_after_an_answer_is_answered_without_the_model(alice):
    _booked(alice, "urologist", "Dr. Ida Berg", 2, 9)
    backend = harmful_model()
    conversation = start_chat(alice, "what's my next appointment?", backend=backend)

    conversation = post_user_message(conversation.pk, alice, "ok thank you", backend=backend)

    assert conversation.status == "completed"
    assert backend.calls == []
    assert "You're welcome" in said(alice)
    assert Appointment.objects.get(user=alice).state == "confirmed"


def test_help_alone_explains_and_help_with_a_mark_still_starts_the_sos(alice):
    start_chat(alice, "help", backend=harmful_model())
    assert "Here is what I can do" in said(alice)
    assert not Alert.objects.exists()

    start_chat(alice, "help!", backend=harmful_model())
    assert Alert.objects.filter(user=alice).exists()
