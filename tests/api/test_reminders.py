"""Reminders: only for the patient's own medications, one per time of day."""

from __future__ import annotations

from health.models import Reminder
from tests.factories import MedicationFactory, ReminderFactory


def test_a_reminder_is_set_for_an_own_medication(alice, alice_api):
    medication = MedicationFactory(user=alice)

    response = alice_api.post("/api/reminders/", {"medication": medication.pk, "time_of_day": "08:30"}, format="json")

    assert response.status_code == 201, response.json()
    assert response.json()["medication_name"] == medication.name
    assert Reminder.objects.get().medication == medication


def test_another_patients_medication_answers_does_not_exist_like_a_missing_one(bob, alice_api):
    """GIVEN bob's medication id WHEN alice sets a reminder on it
    THEN 400 "does not exist", word for word what a never-used id gets."""
    foreign = MedicationFactory(user=bob)
    unused = foreign.pk + 1000

    foreign_answer = alice_api.post("/api/reminders/", {"medication": foreign.pk, "time_of_day": "08:30"})
    unused_answer = alice_api.post("/api/reminders/", {"medication": unused, "time_of_day": "08:30"})

    assert foreign_answer.status_code == unused_answer.status_code == 400
    assert "does not exist" in foreign_answer.json()["medication"][0]
    assert foreign_answer.json()["medication"][0] == unused_answer.json()["medication"][0].replace(
        str(unused), str(foreign.pk)
    )
    assert not Reminder.objects.exists()


def test_a_reminder_cannot_be_moved_to_another_patients_medication(alice, bob, alice_api):
    reminder = ReminderFactory(medication=MedicationFactory(user=alice))

    response = alice_api.patch(
        f"/api/reminders/{reminder.pk}/", {"medication": MedicationFactory(user=bob).pk}, format="json"
    )

    assert response.status_code == 400
    reminder.refresh_from_db()
    assert reminder.medication.user == alice


def test_the_same_time_twice_for_one_medication_answers_400(alice, alice_api):
    reminder = ReminderFactory(medication=MedicationFactory(user=alice))

    response = alice_api.post(
        "/api/reminders/", {"medication": reminder.medication_id, "time_of_day": "08:00"}, format="json"
    )

    assert response.status_code == 400
    assert Reminder.objects.count() == 1


def test_a_reminder_can_be_disabled_and_deleted(alice, alice_api):
    reminder = ReminderFactory(medication=MedicationFactory(user=alice))

    disabled = alice_api.patch(f"/api/reminders/{reminder.pk}/", {"enabled": False}, format="json")
    deleted = alice_api.delete(f"/api/reminders/{reminder.pk}/")

    assert disabled.json()["enabled"] is False
    assert deleted.status_code == 204
    assert not Reminder.objects.exists()
