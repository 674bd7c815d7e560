"""The SOS screens in a real browser: pressing SOS, cancelling in the
countdown, pressing again and seeing the messages sent; soft SOS banners."""

from __future__ import annotations

import time
from unittest import mock

import pytest
from playwright.sync_api import expect
from twilio.http.http_client import TwilioHttpClient

from agents.models import Conversation
from health.models import Alert, Notification, OutboundMessage
from tests.browser.conftest import screenshot, sign_in
from tests.factories import AlertFactory, AmbulanceFactory, EmergencyContactFactory
from tests.messaging.conftest import ACCOUNT_SID, AUTH_TOKEN, FROM_NUMBER, FakeTwilio


@pytest.fixture
def alice_world(alice):
    EmergencyContactFactory(user=alice, name="Dana", phone="+14155550101")
    AmbulanceFactory(code="AMB-NEAR", phone="+14155560001", latitude=52.53, longitude=13.41)
    return alice


@pytest.fixture
def twilio(settings):
    """An SMS provider at Twilio's HTTP boundary (the official client runs for real above it)."""
    settings.TWILIO_ACCOUNT_SID, settings.TWILIO_AUTH_TOKEN = ACCOUNT_SID, AUTH_TOKEN
    settings.TWILIO_FROM_NUMBER = FROM_NUMBER
    fake = FakeTwilio()
    with mock.patch.object(TwilioHttpClient, "request", autospec=True, side_effect=fake):
        yield fake


def press_and_send(page, settings) -> None:
    settings.SOS_COUNTDOWN_SECONDS = 0
    page.get_by_role("link", name="SOS").click()
    page.get_by_role("button", name="SOS").click()
    expect(page.get_by_text("Your SOS is active.")).to_be_visible()


def assistant_closing_text(user, timeout: float = 20.0) -> str:
    """The SOS conversation's last notification, once the conversation has ended: the page shows each
    message's state as the outbox records it, which can come before the flow writes its closing words."""
    sent = Alert.objects.get(user=user, kind=Alert.Kind.HARD, state=Alert.State.OPEN)
    start = sent.events.get(kind="agent_conversation", data__conversation_kind="hard_sos_start")
    conversation = start.data["conversation"]
    deadline = time.monotonic() + timeout
    ended = (Conversation.Status.COMPLETED, Conversation.Status.FAILED)
    while Conversation.objects.get(pk=conversation).status not in ended and time.monotonic() < deadline:
        time.sleep(0.1)
    return Notification.objects.filter(user=user, data__conversation=conversation).latest("id").body


def test_sos_can_be_cancelled_in_the_countdown_then_sent_and_ended_saying_why(
    page, alice_world, scripted_model, settings, twilio
):
    scripted_model()  # no model outputs: the SOS guard completes the sequence
    settings.SOS_COUNTDOWN_SECONDS = 30
    sign_in(page, "alice")
    page.get_by_role("link", name="SOS").click()

    page.get_by_role("button", name="SOS").click()

    expect(page.get_by_role("timer")).to_contain_text("s")
    expect(page.get_by_role("button", name="Cancel, I am fine")).to_be_focused()
    screenshot(page, "sos-countdown")
    page.get_by_role("button", name="Cancel, I am fine").click()
    expect(page.get_by_text("Cancelled. Nothing was sent.")).to_be_visible()
    assert Alert.objects.get(user=alice_world).state == Alert.State.CANCELLED
    assert not OutboundMessage.objects.exists()

    press_and_send(page, settings)

    progress = page.get_by_role("list", name="Progress")
    for step in ["Location found", "Nearest ambulance chosen", "Ambulance: SMS sent", "Emergency contacts: SMS sent"]:
        expect(progress.locator("li.done", has_text=step)).to_be_visible()
    outbox = page.locator("#outbox-list")
    expect(outbox).to_contain_text("AMB-NEAR")
    expect(outbox).to_contain_text("Dana")
    expect(outbox).to_contain_text("sent (accepted by the SMS provider)")
    expect(page.locator("#sos-call-now")).to_be_hidden()
    screenshot(page, "sos-sent")
    closing = assistant_closing_text(alice_world)
    assert "was sent an SMS with your location" in closing and "NOT" not in closing
    assert "on its way" not in closing
    sent = Alert.objects.get(user=alice_world, state=Alert.State.OPEN)
    assert {m["to"] for m in twilio.accepted} == {"+14155560001", "+14155550101"}

    page.get_by_role("button", name="It was a false alarm").click()

    expect(page.get_by_text("This SOS has ended (a false alarm).")).to_be_visible()
    expect(outbox).to_contain_text("FALSE ALARM")
    sent.refresh_from_db()
    assert sent.state == Alert.State.RESOLVED and sent.end_reason == "false_alarm"
    ends = [m for m in twilio.accepted if "FALSE ALARM" in m["body"]]
    assert sorted(m["to"] for m in ends) == ["+14155550101", "+14155560001"]
    screenshot(page, "sos-ended")


def test_with_no_sms_provider_the_sos_says_not_sent_and_to_call_the_emergency_number(
    page, alice_world, scripted_model, settings
):
    scripted_model()
    settings.TWILIO_ACCOUNT_SID = settings.TWILIO_AUTH_TOKEN = settings.TWILIO_FROM_NUMBER = ""
    settings.EMERGENCY_NUMBER = "112"
    sign_in(page, "alice")

    press_and_send(page, settings)

    call_now = page.locator("#sos-call-now")
    expect(call_now).to_be_visible()
    expect(call_now.get_by_role("heading")).to_have_text("Call 112 now")
    expect(call_now.get_by_role("link", name="Call 112")).to_have_attribute("href", "tel:112")
    progress = page.get_by_role("list", name="Progress")
    expect(progress.locator("li.problem", has_text="Ambulance: SMS NOT sent")).to_be_visible()
    expect(progress.locator("li.problem", has_text="Emergency contacts: SMS NOT sent")).to_be_visible()
    expect(progress.locator("li.done", has_text="SMS sent")).to_have_count(0)
    expect(page.locator("#outbox-list")).to_contain_text("NOT SENT")
    screenshot(page, "sos-not-sent")
    closing = assistant_closing_text(alice_world)
    assert closing.startswith("Call 112 now: your SOS texts did not all go out.\n")
    assert "was NOT sent (no SMS provider configured)" in closing
    assert "sent an SMS" not in closing and "on its way" not in closing


def test_when_the_provider_refuses_the_sos_says_failed_and_to_call_the_emergency_number(
    page, alice_world, scripted_model, settings, twilio
):
    scripted_model()
    twilio.answer_posts((400, 21211), (400, 21211))  # both numbers refused by the provider
    sign_in(page, "alice")

    press_and_send(page, settings)

    expect(page.locator("#sos-call-now")).to_be_visible()
    progress = page.get_by_role("list", name="Progress")
    expect(progress.locator("li.problem", has_text="Ambulance: SMS FAILED")).to_be_visible()
    expect(progress.locator("li.problem", has_text="Emergency contacts: SMS FAILED")).to_be_visible()
    expect(page.locator("#outbox-list")).to_contain_text("not a valid phone number")
    closing = assistant_closing_text(alice_world)
    assert closing.startswith("Call 911 now") and "FAILED" in closing


def test_a_soft_sos_banner_can_be_escalated(page, alice_world, settings):
    settings.SOS_COUNTDOWN_SECONDS = 30
    soft = AlertFactory(
        user=alice_world, kind=Alert.Kind.SOFT, state=Alert.State.OPEN, condition="hypoxia", summary="SpO2 was 86%."
    )
    sign_in(page, "alice")

    banner = page.get_by_role("region", name="Health alert")
    expect(banner).to_contain_text("SpO2 was 86%.")
    screenshot(page, "soft-sos-banner")

    banner.get_by_role("button", name="Escalate: send for help").click()

    page.wait_for_url("**/sos/")
    expect(page.get_by_role("button", name="Cancel, I am fine")).to_be_visible()
    hard = Alert.objects.get(user=alice_world, kind=Alert.Kind.HARD)
    assert (hard.state, hard.escalated_from) == (Alert.State.COUNTDOWN, soft)


def test_an_sos_asked_for_in_the_chat_is_cancelled_in_the_chat_before_anything_is_sent(
    page, alice_world, scripted_model, settings
):
    scripted_model()  # never called: help now and its cancel need no model
    settings.SOS_COUNTDOWN_SECONDS = 60
    sign_in(page, "alice")
    page.get_by_role("link", name="Chat").click()
    messages = page.get_by_role("log", name="Messages")

    page.get_by_label("Your message").fill("my husband collapsed, call an ambulance")
    page.get_by_role("button", name="Send").click()
    expect(messages).to_contain_text("I've started an emergency SOS.")
    assert Alert.objects.get(user=alice_world).state == Alert.State.COUNTDOWN

    page.get_by_label("Your message").fill("false alarm, he's fine now")
    page.get_by_role("button", name="Send").click()

    expect(messages).to_contain_text("I've cancelled the SOS before it went out")
    expect(page.get_by_role("status").filter(has_text="thinking")).to_be_hidden()
    screenshot(page, "chat-sos-cancelled")
    assert Alert.objects.get(user=alice_world).state == Alert.State.CANCELLED
    assert not OutboundMessage.objects.exists()
