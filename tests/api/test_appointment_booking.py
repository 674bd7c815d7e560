"""Proposing an appointment holds its slot; a slot is never booked twice."""

from __future__ import annotations

import datetime as dt
import threading

import pytest
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from health.models import Appointment
from tests.factories import AppointmentFactory, SlotFactory, UserFactory


def test_proposing_a_free_slot_holds_it(alice, alice_api):
    slot = SlotFactory()

    response = alice_api.post("/api/appointments/", {"slot": slot.pk, "symptoms": "palpitations"}, format="json")

    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["state"], body["slot"], body["specialist"]) == ("held", slot.pk, slot.specialist_id)
    assert Appointment.objects.get(slot=slot).user == alice


def test_a_held_slot_cannot_be_booked_again(alice, bob_api):
    """GIVEN alice holds a slot WHEN bob proposes the same slot
    THEN he gets 409 with a clear message and nothing is stored for him."""
    slot = SlotFactory()
    AppointmentFactory(user=alice, slot=slot)

    response = bob_api.post("/api/appointments/", {"slot": slot.pk}, format="json")

    assert response.status_code == 409
    assert "booked" in response.json()["detail"]
    assert Appointment.objects.filter(slot=slot).count() == 1


def test_the_same_patient_cannot_hold_a_slot_twice(alice, alice_api):
    slot = SlotFactory()

    assert alice_api.post("/api/appointments/", {"slot": slot.pk}, format="json").status_code == 201
    assert alice_api.post("/api/appointments/", {"slot": slot.pk}, format="json").status_code == 409
    assert Appointment.objects.filter(slot=slot).count() == 1


def test_a_cancelled_appointment_frees_its_slot(alice, alice_api, bob_api):
    slot = SlotFactory()
    appointment = AppointmentFactory(user=alice, slot=slot)

    assert alice_api.post(f"/api/appointments/{appointment.pk}/cancel/").status_code == 200
    response = bob_api.post("/api/appointments/", {"slot": slot.pk}, format="json")

    assert response.status_code == 201


def test_a_past_slot_cannot_be_booked(alice_api):
    start = timezone.now() - dt.timedelta(hours=1)
    slot = SlotFactory(starts_at=start, ends_at=start + dt.timedelta(minutes=30))

    response = alice_api.post("/api/appointments/", {"slot": slot.pk}, format="json")

    assert response.status_code == 409
    assert "past" in response.json()["detail"]
    assert not Appointment.objects.exists()


def test_an_unknown_slot_is_a_field_error(alice_api):
    response = alice_api.post("/api/appointments/", {"slot": 999_999}, format="json")

    assert response.status_code == 400
    assert "does not exist" in response.json()["slot"][0]


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_proposals_for_one_slot_book_it_once():
    """GIVEN two patients WHEN both propose the same slot at the same moment
    THEN exactly one gets it (201) and the other gets 409."""
    slot = SlotFactory()
    patients = [UserFactory(username="first"), UserFactory(username="second")]
    start = threading.Barrier(len(patients), timeout=10)
    statuses: list[int] = []

    def propose(user) -> None:
        client = APIClient()
        client.force_login(user)
        try:
            start.wait()
            statuses.append(client.post("/api/appointments/", {"slot": slot.pk}, format="json").status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=propose, args=(user,)) for user in patients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert sorted(statuses) == [201, 409]
    assert Appointment.objects.filter(slot=slot).count() == 1
