"""One appointment lifecycle through the API: held -> confirmed -> cancelled/completed, no clash
with the patient's other appointments, rescheduling within the same specialist, each change
notified, and every time in the patient's own zone."""

from __future__ import annotations

import datetime as dt
import threading
import zoneinfo

import pytest
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from health.models import Appointment, Notification, PatientProfile
from tests.factories import AppointmentFactory, SlotFactory, SpecialistFactory, UserFactory

LA = zoneinfo.ZoneInfo("America/Los_Angeles")


def _slot(specialist=None, *, days=3, hour=9, minute=0, tz=LA, minutes=30):
    day = (timezone.now().astimezone(tz) + dt.timedelta(days=days)).date()
    start = dt.datetime.combine(day, dt.time(hour, minute), tzinfo=tz)
    return SlotFactory(
        specialist=specialist or SpecialistFactory(), starts_at=start, ends_at=start + dt.timedelta(minutes=minutes)
    )


@pytest.fixture
def alice_in_la(alice):
    PatientProfile.objects.filter(user=alice).update(timezone="America/Los_Angeles")
    return alice


def test_times_are_given_in_the_patients_zone_with_the_zone_named(alice_in_la, alice_api):
    slot = _slot(hour=9)
    AppointmentFactory(user=alice_in_la, slot=slot)

    body = alice_api.get("/api/appointments/").json()["results"][0]

    starts = dt.datetime.fromisoformat(body["starts_at"])
    assert starts.utcoffset() == slot.starts_at.astimezone(LA).utcoffset()
    assert (starts.hour, starts.minute) == (9, 0)
    assert body["time_zone"] == "America/Los_Angeles"
    assert "09:00\u201309:30" in body["when"]
    assert body["when"].endswith("(America/Los_Angeles)")
    assert (body["state"], body["state_label"]) == ("held", "Held \u2014 not booked yet")


def test_an_overlapping_booking_is_refused_in_words_the_patient_reads(alice_in_la, alice_api):
    """GIVEN alice holds 09:00-09:30 with one specialist WHEN she asks for 09:15-09:45 with another
    THEN 409 naming her other appointment in her own time, and nothing is stored."""
    first = _slot(hour=9)
    AppointmentFactory(user=alice_in_la, slot=first, state=Appointment.State.CONFIRMED)
    overlapping = _slot(hour=9, minute=15)

    response = alice_api.post("/api/appointments/", {"slot": overlapping.pk}, format="json")

    assert response.status_code == 409, response.json()
    detail = response.json()["detail"]
    assert first.specialist.name in detail
    assert "09:00\u201309:30 (America/Los_Angeles)" in detail
    assert "Nothing was booked" in detail
    assert not Appointment.objects.filter(slot=overlapping).exists()


def test_back_to_back_appointments_do_not_clash(alice_in_la, alice_api):
    AppointmentFactory(user=alice_in_la, slot=_slot(hour=9))

    response = alice_api.post("/api/appointments/", {"slot": _slot(hour=9, minute=30).pk}, format="json")

    assert response.status_code == 201, response.json()


def test_a_cancelled_appointment_does_not_clash(alice_in_la, alice_api):
    first = _slot(hour=9)
    AppointmentFactory(user=alice_in_la, slot=first, state=Appointment.State.CANCELLED)

    assert alice_api.post("/api/appointments/", {"slot": _slot(hour=9).pk}, format="json").status_code == 201


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_overlapping_bookings_of_one_patient_book_one():
    """GIVEN one patient in two tabs WHEN both book overlapping slots with two specialists at the
    same moment (two threads, two database connections) THEN one is held and the other refused."""
    patient = UserFactory(username="twotabs")
    slots = [_slot(hour=9), _slot(hour=9)]
    start = threading.Barrier(len(slots), timeout=10)
    statuses: list[int] = []

    def book(slot) -> None:
        client = APIClient()
        client.force_login(patient)
        try:
            start.wait()
            statuses.append(client.post("/api/appointments/", {"slot": slot.pk}, format="json").status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=book, args=(slot,)) for slot in slots]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert sorted(statuses) == [201, 409]
    assert Appointment.objects.filter(user=patient).count() == 1


def test_confirming_and_cancelling_notify_the_patient_in_their_time(alice_in_la, alice_api):
    appointment = AppointmentFactory(user=alice_in_la, slot=_slot(hour=14))

    assert alice_api.post(f"/api/appointments/{appointment.pk}/confirm/").json()["state_label"] == "Confirmed"
    assert alice_api.post(f"/api/appointments/{appointment.pk}/cancel/").json()["state_label"] == "Cancelled"

    titles = list(Notification.objects.filter(user=alice_in_la, kind="appointment").values_list("title", flat=True))
    assert len(titles) == 2
    assert any(t.startswith("Appointment confirmed") and "14:00" in t for t in titles)
    assert any(t.startswith("Appointment cancelled") and "(America/Los_Angeles)" in t for t in titles)


def test_reschedule_moves_to_another_free_slot_of_the_same_specialist(alice_in_la, alice_api, bob):
    specialist = SpecialistFactory()
    appointment = AppointmentFactory(user=alice_in_la, slot=_slot(specialist, hour=9), state="confirmed")
    later = _slot(specialist, hour=11)
    taken = _slot(specialist, hour=12)
    AppointmentFactory(user=bob, slot=taken)
    old_slot = appointment.slot

    offered = alice_api.get(f"/api/appointments/{appointment.pk}/free-slots/").json()
    assert later.pk in [s["id"] for s in offered]
    assert taken.pk not in [s["id"] for s in offered]
    assert all(s["when"].endswith("(America/Los_Angeles)") for s in offered)

    response = alice_api.post(f"/api/appointments/{appointment.pk}/reschedule/", {"slot": later.pk}, format="json")

    assert response.status_code == 200, response.json()
    assert (response.json()["slot"], response.json()["state"]) == (later.pk, "confirmed")
    assert "11:00" in response.json()["when"]
    note = Notification.objects.get(user=alice_in_la, kind="appointment", data__event="rescheduled")
    assert "09:00" in note.body and "11:00" in note.body
    # The old slot is free for others again.
    bob_api = APIClient()
    bob_api.force_login(bob)
    assert bob_api.post("/api/appointments/", {"slot": old_slot.pk}, format="json").status_code == 201


def test_reschedule_refuses_a_taken_slot_or_another_specialist(alice_in_la, alice_api, bob):
    specialist = SpecialistFactory()
    appointment = AppointmentFactory(user=alice_in_la, slot=_slot(specialist, hour=9))
    taken = _slot(specialist, hour=12)
    AppointmentFactory(user=bob, slot=taken)
    elsewhere = _slot(hour=15)

    for slot in (taken, elsewhere):
        response = alice_api.post(f"/api/appointments/{appointment.pk}/reschedule/", {"slot": slot.pk}, format="json")
        assert response.status_code == 409, response.json()
    appointment.refresh_from_db()
    assert appointment.slot.starts_at.astimezone(LA).hour == 9


def test_a_cancelled_appointment_cannot_be_rescheduled(alice_in_la, alice_api):
    specialist = SpecialistFactory()
    appointment = AppointmentFactory(user=alice_in_la, slot=_slot(specialist, hour=9), state="cancelled")

    response = alice_api.post(
        f"/api/appointments/{appointment.pk}/reschedule/", {"slot": _slot(specialist, hour=11).pk}, format="json"
    )

    assert response.status_code == 409
    assert alice_api.get(f"/api/appointments/{appointment.pk}/free-slots/").json() == []
