"""Dose events: the patient marks a dose taken or skipped, or snoozes its reminder."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from health.models import DoseEvent
from tests.factories import DoseEventFactory, MedicationFactory, ReminderFactory

S = DoseEvent.State


@pytest.fixture
def dose(alice) -> DoseEvent:
    return DoseEventFactory(reminder=ReminderFactory(medication=MedicationFactory(user=alice)))


@pytest.mark.parametrize("state", [S.DUE, S.SENT, S.SNOOZED, S.MISSED, S.SKIPPED])
def test_a_dose_not_yet_taken_can_be_marked_taken(alice_api, dose, state):
    DoseEvent.objects.filter(pk=dose.pk).update(state=state, snoozed_until=timezone.now())

    response = alice_api.post(f"/api/dose-events/{dose.pk}/taken/")

    assert response.status_code == 200
    assert (response.json()["state"], response.json()["snoozed_until"]) == ("taken", None)
    assert response.json()["acted_at"] is not None


def test_a_taken_dose_cannot_be_taken_again_or_snoozed(alice_api, dose):
    alice_api.post(f"/api/dose-events/{dose.pk}/taken/")
    dose.refresh_from_db()
    acted_at = dose.acted_at

    assert alice_api.post(f"/api/dose-events/{dose.pk}/taken/").status_code == 409
    assert alice_api.post(f"/api/dose-events/{dose.pk}/snooze/", {"minutes": 10}).status_code == 409
    assert alice_api.post(f"/api/dose-events/{dose.pk}/skip/").status_code == 409
    dose.refresh_from_db()
    assert (dose.state, dose.acted_at) == (S.TAKEN, acted_at)


def test_snoozing_postpones_the_reminder_by_the_given_minutes(alice_api, dose):
    before = timezone.now()

    response = alice_api.post(f"/api/dose-events/{dose.pk}/snooze/", {"minutes": 30}, format="json")

    assert response.status_code == 200
    assert response.json()["state"] == "snoozed"
    until = parse_datetime(response.json()["snoozed_until"])
    assert before + dt.timedelta(minutes=30) <= until <= timezone.now() + dt.timedelta(minutes=30)


def test_snoozing_defaults_to_ten_minutes(alice_api, dose):
    before = timezone.now()

    response = alice_api.post(f"/api/dose-events/{dose.pk}/snooze/")

    until = parse_datetime(response.json()["snoozed_until"])
    assert before + dt.timedelta(minutes=10) <= until <= timezone.now() + dt.timedelta(minutes=10)


@pytest.mark.parametrize("minutes", [10, 30, 60])
def test_snoozing_accepts_10_30_or_60_minutes(alice_api, dose, minutes):
    response = alice_api.post(f"/api/dose-events/{dose.pk}/snooze/", {"minutes": minutes}, format="json")

    assert response.status_code == 200
    assert response.json()["state"] == "snoozed"


@pytest.mark.parametrize("minutes", [0, 5, -5, 45, 241, "soon"])
def test_a_snooze_other_than_10_30_or_60_minutes_answers_400(alice_api, dose, minutes):
    response = alice_api.post(f"/api/dose-events/{dose.pk}/snooze/", {"minutes": minutes}, format="json")

    assert response.status_code == 400
    assert "minutes" in response.json()
    dose.refresh_from_db()
    assert dose.state == S.DUE


@pytest.mark.parametrize("state", [S.DUE, S.SENT, S.SNOOZED, S.MISSED])
def test_a_dose_not_yet_taken_can_be_skipped(alice_api, dose, state):
    DoseEvent.objects.filter(pk=dose.pk).update(state=state)

    response = alice_api.post(f"/api/dose-events/{dose.pk}/skip/")

    assert response.status_code == 200
    assert response.json()["state"] == "skipped"
    assert response.json()["acted_at"] is not None


def test_a_skipped_dose_can_still_be_marked_taken_but_not_snoozed(alice_api, dose):
    alice_api.post(f"/api/dose-events/{dose.pk}/skip/")

    assert alice_api.post(f"/api/dose-events/{dose.pk}/snooze/").status_code == 409
    assert alice_api.post(f"/api/dose-events/{dose.pk}/taken/").json()["state"] == "taken"


def test_a_missed_dose_cannot_be_snoozed(alice_api, dose):
    DoseEvent.objects.filter(pk=dose.pk).update(state=S.MISSED)

    assert alice_api.post(f"/api/dose-events/{dose.pk}/snooze/").status_code == 409


def test_dose_events_name_their_medication(alice_api, dose):
    row = alice_api.get("/api/dose-events/").json()["results"][0]

    assert (row["id"], row["medication"], row["medication_name"]) == (
        dose.pk,
        dose.reminder.medication_id,
        dose.reminder.medication.name,
    )
