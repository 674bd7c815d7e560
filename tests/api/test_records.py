"""Appointment history and symptom records: appended, listed, never edited."""

from __future__ import annotations

from health.models import AppointmentHistory, SymptomRecord
from tests.factories import AppointmentFactory, SymptomRecordFactory


def test_a_symptom_record_is_stored_for_the_patient(alice, alice_api):
    response = alice_api.post(
        "/api/symptom-records/", {"text": "Dizzy since noon", "symptoms": ["dizziness"]}, format="json"
    )

    assert response.status_code == 201, response.json()
    record = SymptomRecord.objects.get()
    assert (record.user, record.symptoms) == (alice, ["dizziness"])
    assert record.recorded_at is not None


def test_symptoms_must_be_a_list_of_strings(alice_api):
    for symptoms in ("dizziness", [""], [{"name": "dizziness"}]):
        response = alice_api.post("/api/symptom-records/", {"text": "x", "symptoms": symptoms}, format="json")

        assert response.status_code == 400, symptoms
        assert "symptoms" in response.json()
    assert not SymptomRecord.objects.exists()


def test_a_history_entry_may_point_at_the_patients_own_appointment(alice, alice_api):
    appointment = AppointmentFactory(user=alice)

    response = alice_api.post(
        "/api/appointment-history/",
        {
            "appointment": appointment.pk,
            "specialist_name": "Dr. Grey",
            "specialization": "neurologist",
            "scheduled_for": "2026-03-01T10:00:00Z",
            "summary": "Migraine follow-up",
        },
        format="json",
    )

    assert response.status_code == 201, response.json()
    assert AppointmentHistory.objects.get(user=alice).appointment == appointment


def test_a_history_entry_cannot_point_at_another_patients_appointment(bob, alice_api):
    """The error is the same as for an id that does not exist: nothing leaks."""
    foreign = AppointmentFactory(user=bob)
    payload = {"specialist_name": "Dr. Grey", "specialization": "neurologist", "scheduled_for": "2026-03-01T10:00Z"}

    foreign_answer = alice_api.post("/api/appointment-history/", {**payload, "appointment": foreign.pk}, format="json")
    missing_answer = alice_api.post("/api/appointment-history/", {**payload, "appointment": 999_999}, format="json")

    assert foreign_answer.status_code == missing_answer.status_code == 400
    assert foreign_answer.json()["appointment"][0] == missing_answer.json()["appointment"][0].replace(
        "999999", str(foreign.pk)
    )
    assert not AppointmentHistory.objects.exists()


def test_records_cannot_be_edited_or_deleted(alice, alice_api):
    record = SymptomRecordFactory(user=alice)

    assert alice_api.patch(f"/api/symptom-records/{record.pk}/", {"text": "y"}, format="json").status_code == 405
    assert alice_api.delete(f"/api/symptom-records/{record.pk}/").status_code == 405
