"""Cancelling the hard SOS from the chat (agents/sos_cancel.py): with the SOS page's own service, only
while the countdown runs, the reply from the alert's record, and never the model."""

from __future__ import annotations

import pytest

from agents import sos_cancel
from agents.services import post_user_message, start_chat
from health.models import Alert, OutboundMessage
from tests.agents.helpers import states
from tests.agents.test_help_now import no_model

NAMED = [
    "cancel the sos",
    "please stop the ambulance",
    "don't send the ambulance, I'm fine",
    "call off the emergency",
    "no ambulance needed thanks",
    "I pressed the sos by mistake",
    "the emergency is over, stop the alert",
]
SHORT = [
    "cancel it",
    "false alarm",
    "I'm ok now, cancel it",
    "it's fine now, I feel better",
    "sorry, it was a mistake",
    "never mind",
    "he's fine now",
]
NOT_A_CANCEL = [
    "cancel my appointment with the urologist",
    "cancel my emergency contact Dana, she moved",
    "I'm fine, thanks for asking",  # not right after an SOS: a courtesy, not a cancel
    "cancel that, he's not breathing",  # a cancel with an emergency: the help-now guard's
    "stop, my chest hurts and I can't breathe",
    "I can't stop the bleeding, this is an emergency",
    "stop, it's an emergency, he's not breathing",
]


@pytest.mark.parametrize("text", NAMED)
def test_a_cancel_that_names_the_sos_is_read_whenever_it_is_said(text):
    assert sos_cancel.asks_to_cancel(text, just_started=False)


@pytest.mark.parametrize("text", SHORT)
def test_a_short_cancel_is_read_only_right_after_the_chat_started_the_sos(text):
    assert sos_cancel.asks_to_cancel(text, just_started=True)
    assert not sos_cancel.asks_to_cancel(text, just_started=False)


@pytest.mark.parametrize("text", NOT_A_CANCEL[2:])
def test_no_cancel_is_read_where_help_is_asked_for_or_the_sos_is_not_meant(text):
    assert not sos_cancel.asks_to_cancel(text, just_started=True)
    assert not sos_cancel.asks_to_cancel(text, just_started=False)


@pytest.mark.parametrize("text", NOT_A_CANCEL[:2])
def test_another_thing_to_cancel_is_no_sos(text):
    assert not sos_cancel.asks_to_cancel(text, just_started=True)


def reply(conversation) -> str:
    return next(s["value"]["parameters"]["message"] for s in reversed(states(conversation)) if s["from"] == "caller")


@pytest.mark.parametrize("text", ["false alarm", "cancel the sos", "I'm ok now, cancel it"])
def test_the_sos_started_in_the_chat_is_cancelled_in_its_countdown_and_nothing_is_sent(alice, settings, text):
    settings.SOS_COUNTDOWN_SECONDS = 10
    backend = no_model()
    conversation = start_chat(alice, "call an ambulance", backend=backend)
    alert = Alert.objects.get(user=alice, kind=Alert.Kind.HARD)
    assert alert.state == Alert.State.COUNTDOWN

    conversation = post_user_message(conversation.pk, alice, text, backend=backend)

    alert.refresh_from_db()
    assert alert.state == Alert.State.CANCELLED
    assert [e.kind for e in alert.events.order_by("pk")][-2:] == ["cancelled", "chat_cancel"]
    assert backend.calls == []
    assert conversation.status == "completed"
    assert reply(conversation).startswith("I've cancelled the SOS before it went out")
    assert OutboundMessage.objects.count() == 0


def test_an_sos_that_went_out_is_not_cancelled_and_the_page_to_end_it_is_named(alice):
    conversation = start_chat(alice, "call an ambulance", backend=no_model())
    Alert.objects.filter(user=alice).update(state=Alert.State.OPEN)  # the countdown is over

    conversation = post_user_message(conversation.pk, alice, "cancel the ambulance", backend=no_model())

    assert Alert.objects.get(user=alice).state == Alert.State.OPEN
    assert reply(conversation).startswith("The SOS has already gone out, so it can no longer be cancelled.")


def test_a_cancel_with_no_sos_under_way_says_so(alice):
    conversation = start_chat(alice, "cancel the sos", backend=no_model())

    assert reply(conversation).startswith("There is no SOS under way, so there is nothing to cancel.")
    assert not Alert.objects.exists()


def test_a_short_cancel_in_another_chat_does_not_touch_the_sos(alice):
    start_chat(alice, "call an ambulance", backend=no_model())

    start_chat(alice, "false alarm", backend=no_model())

    assert Alert.objects.get(user=alice).state == Alert.State.COUNTDOWN


def test_help_asked_for_with_the_cancel_keeps_the_sos(alice):
    conversation = start_chat(alice, "call an ambulance", backend=no_model())

    conversation = post_user_message(conversation.pk, alice, "cancel that, he's not breathing", backend=no_model())

    assert Alert.objects.get(user=alice).state == Alert.State.COUNTDOWN
    assert reply(conversation).startswith("An emergency SOS is already under way")
