"""Appointment actions follow the state machine: held -> confirmed ->
completed, or cancelled; anything else answers 409 and changes nothing."""

from __future__ import annotations

import pytest

from health.models import Appointment
from tests.api.helpers import ids
from tests.factories import AppointmentFactory

S = Appointment.State


@pytest.mark.parametrize(
    ("start", "action", "end", "stamp"),
    [
        (S.HELD, "confirm", S.CONFIRMED, "confirmed_at"),
        (S.HELD, "cancel", S.CANCELLED, "cancelled_at"),
        (S.CONFIRMED, "complete", S.COMPLETED, "completed_at"),
        (S.CONFIRMED, "cancel", S.CANCELLED, "cancelled_at"),
    ],
)
def test_an_allowed_transition_moves_and_stamps_the_appointment(alice, alice_api, start, action, end, stamp):
    appointment = AppointmentFactory(user=alice, state=start)

    response = alice_api.post(f"/api/appointments/{appointment.pk}/{action}/")

    assert response.status_code == 200, response.json()
    assert response.json()["state"] == end
    assert response.json()[stamp] is not None
    appointment.refresh_from_db()
    assert appointment.state == end


@pytest.mark.parametrize(
    ("start", "action"),
    [
        (S.HELD, "complete"),
        (S.CONFIRMED, "confirm"),
        (S.COMPLETED, "cancel"),
        (S.COMPLETED, "confirm"),
        (S.CANCELLED, "confirm"),
        (S.CANCELLED, "cancel"),
    ],
)
def test_a_refused_transition_answers_409_and_changes_nothing(alice, alice_api, start, action):
    appointment = AppointmentFactory(user=alice, state=start)

    response = alice_api.post(f"/api/appointments/{appointment.pk}/{action}/")

    assert response.status_code == 409
    assert response.json()["detail"].startswith(f"Cannot go from {start}")
    appointment.refresh_from_db()
    assert appointment.state == start


def test_appointments_filter_by_state(alice, alice_api):
    held = AppointmentFactory(user=alice)
    confirmed = AppointmentFactory(user=alice, state=S.CONFIRMED)

    assert ids(alice_api.get("/api/appointments/", {"state": "confirmed"})) == {confirmed.pk}
    assert ids(alice_api.get("/api/appointments/")) == {held.pk, confirmed.pk}
    assert alice_api.get("/api/appointments/", {"state": "dreaming"}).status_code == 400


def test_appointments_cannot_be_edited_or_deleted_directly(alice, alice_api):
    appointment = AppointmentFactory(user=alice)

    assert alice_api.patch(f"/api/appointments/{appointment.pk}/", {"state": "completed"}).status_code == 405
    assert alice_api.delete(f"/api/appointments/{appointment.pk}/").status_code == 405
