"""The SOS screens in a real browser: pressing SOS, cancelling in the
countdown, pressing again and seeing the messages sent; soft SOS banners."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from health.models import Alert, OutboundMessage
from tests.browser.conftest import screenshot, sign_in
from tests.factories import AlertFactory, AmbulanceFactory, EmergencyContactFactory


@pytest.fixture
def alice_world(alice):
    EmergencyContactFactory(user=alice, name="Dana", phone="+14155550101")
    AmbulanceFactory(code="AMB-NEAR", phone="+14155560001", latitude=52.53, longitude=13.41)
    return alice


def test_sos_can_be_cancelled_in_the_countdown_then_sent_and_ended(page, alice_world, scripted_model, settings):
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

    settings.SOS_COUNTDOWN_SECONDS = 0
    page.get_by_role("button", name="SOS").click()

    expect(page.get_by_text("SOS sent. Help is being arranged.")).to_be_visible()
    progress = page.get_by_role("list", name="Progress")
    for step in ["Location found", "Ambulance assigned", "Ambulance messaged", "Emergency contacts messaged"]:
        expect(progress.locator("li.done", has_text=step)).to_be_visible()
    outbox = page.locator("#outbox-list")
    expect(outbox).to_contain_text("AMB-NEAR")
    expect(outbox).to_contain_text("Dana")
    screenshot(page, "sos-sent")
    sent = Alert.objects.get(user=alice_world, state=Alert.State.OPEN)
    assert set(OutboundMessage.objects.filter(alert=sent).values_list("recipient", flat=True)) == {
        "+14155560001",
        "+14155550101",
    }

    page.get_by_role("button", name="End SOS").click()

    expect(page.get_by_text("This SOS has ended.")).to_be_visible()
    expect(progress.locator("li.done")).to_have_count(4)
    expect(outbox).to_contain_text("No help is needed.")
    sent.refresh_from_db()
    assert sent.state == Alert.State.RESOLVED
    screenshot(page, "sos-ended")


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
