"""The Appointments page in a real browser: upcoming and past in the patient's own time zone
(the zone named), open one, reschedule it to another free slot of the same specialist, cancel it;
each change is recorded and notified."""

from __future__ import annotations

import datetime as dt
import zoneinfo
from pathlib import Path

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from health.models import Appointment, Notification, PatientProfile
from tests.browser.conftest import sign_in
from tests.factories import AppointmentFactory, SlotFactory, SpecialistFactory, SpecializationFactory

LA = zoneinfo.ZoneInfo("America/Los_Angeles")
SHOTS = Path("/tmp/shots")


def _slot(specialist, *, days: int, hour: int, minute: int = 0):
    day = (timezone.now().astimezone(LA) + dt.timedelta(days=days)).date()
    start = dt.datetime.combine(day, dt.time(hour, minute), tzinfo=LA)
    return SlotFactory(specialist=specialist, starts_at=start, ends_at=start + dt.timedelta(minutes=30))


@pytest.fixture
def alice_appointments(alice):
    PatientProfile.objects.filter(user=alice).update(timezone="America/Los_Angeles")
    cardiology = SpecializationFactory(name="cardiologist")
    heart = SpecialistFactory(name="Dr. Amara Okafor", specialization=cardiology, hospital="Riverside Clinic")
    skin = SpecialistFactory(
        name="Dr. Lena Park", specialization=SpecializationFactory(name="dermatologist"), hospital="City Hospital"
    )
    confirmed = AppointmentFactory(
        user=alice, slot=_slot(heart, days=2, hour=9), state=Appointment.State.CONFIRMED, symptoms="palpitations"
    )
    later = _slot(heart, days=2, hour=14)
    _slot(heart, days=3, hour=10)
    held = AppointmentFactory(user=alice, slot=_slot(skin, days=4, hour=16))
    AppointmentFactory(user=alice, slot=_slot(skin, days=6, hour=11), state=Appointment.State.CANCELLED)
    past_start = timezone.now() - dt.timedelta(days=10)
    past = SlotFactory(specialist=heart, starts_at=past_start, ends_at=past_start + dt.timedelta(minutes=30))
    AppointmentFactory(user=alice, slot=past, state=Appointment.State.COMPLETED)
    return {"confirmed": confirmed, "held": held, "later": later}


def test_the_appointments_page_lists_opens_reschedules_and_cancels(page, alice, alice_appointments):
    confirmed = alice_appointments["confirmed"]
    sign_in(page, "alice")
    page.get_by_role("link", name="Appointments", exact=True).click()

    upcoming = page.get_by_role("region", name="Upcoming")
    expect(upcoming.locator(".appointment-item")).to_have_count(2)
    first = upcoming.locator(".appointment-item").first
    expect(first).to_contain_text("09:00\u201309:30 (America/Los_Angeles)")
    expect(first).to_contain_text("Dr. Amara Okafor")
    expect(first.locator(".state")).to_have_text("Confirmed")
    expect(upcoming.locator(".appointment-item").nth(1).locator(".state")).to_have_text("Held \u2014 not booked yet")
    past = page.get_by_role("region", name="Past and cancelled")
    expect(past.locator(".state")).to_have_text(["Cancelled", "Completed"])
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "appointments.png"), full_page=True)

    first.get_by_role("link").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Appointment with Dr. Amara Okafor")
    page.get_by_label("14:00\u201314:30 (America/Los_Angeles)", exact=False).check()
    page.get_by_role("button", name="Move my appointment").click()

    expect(page.locator(".msg-success")).to_contain_text("Moved to")
    expect(page.locator("#appointment-when")).to_contain_text("14:00\u201314:30 (America/Los_Angeles)")
    expect(page.locator("#appointment-state")).to_have_text("Confirmed")
    page.screenshot(path=str(SHOTS / "appointment-detail.png"), full_page=True)
    confirmed.refresh_from_db()
    assert confirmed.slot == alice_appointments["later"]

    page.get_by_role("button", name="Cancel this appointment").click()

    expect(page.locator(".msg-success")).to_contain_text("Cancelled")
    expect(page.locator("#appointment-state")).to_have_text("Cancelled")
    expect(page.get_by_role("button", name="Cancel this appointment")).to_have_count(0)
    confirmed.refresh_from_db()
    assert confirmed.state == Appointment.State.CANCELLED
    events = set(Notification.objects.filter(user=alice, kind="appointment").values_list("data__event", flat=True))
    assert events == {"rescheduled", "cancelled"}


def test_home_links_each_upcoming_appointment_with_its_state(page, alice, alice_appointments):
    sign_in(page, "alice")

    card = page.get_by_role("region", name="Upcoming appointments")
    expect(card.locator(".state")).to_have_text(["Confirmed", "Held \u2014 not booked yet"])
    card.get_by_role("link", name="(America/Los_Angeles)").nth(1).click()

    expect(page.get_by_role("heading", level=1)).to_have_text("Appointment with Dr. Lena Park")
    expect(page.get_by_text("not booked yet", exact=False).first).to_be_visible()
    page.get_by_role("button", name="Confirm this appointment").click()
    expect(page.locator("#appointment-state")).to_have_text("Confirmed")
