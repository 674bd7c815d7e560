"""The audit log: who read or changed whose health records, in the operator dashboard."""

from __future__ import annotations

import pytest
from auditlog.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.test import Client

from health.audit import audited_models
from health.privacy.records import owned_models
from tests.security.test_export import give_a_world

PATHS = {entry.model: entry.path for entry in owned_models()}
AUDITED = audited_models()


@pytest.fixture
def operator(carol) -> Client:
    client = Client()
    client.force_login(carol)
    return client


def _entries(model, obj, action) -> list[LogEntry]:
    return list(
        LogEntry.objects.filter(content_type=ContentType.objects.get_for_model(model), object_id=obj.pk, action=action)
    )


def test_the_personal_health_models_are_all_audited():
    names = {model.__name__ for model in AUDITED}
    assert names >= {
        "VitalReading", "SymptomRecord", "Prescription", "Medication", "Appointment", "Alert",
        "DailyReport", "EmergencyContact", "PatientProfile",
    }  # fmt: skip


@pytest.mark.parametrize("model", AUDITED, ids=[m.__name__ for m in AUDITED])
def test_an_operator_opening_a_patients_record_is_logged_as_an_access(bob, carol, operator, model):
    give_a_world(bob)
    record = model._default_manager.filter(**{PATHS[model]: bob}).first()
    assert record is not None

    url = f"/admin/health/{model._meta.model_name}/{record.pk}/change/"
    assert operator.get(url).status_code == 200

    (entry,) = _entries(model, record, LogEntry.Action.ACCESS)
    assert entry.actor == carol
    assert entry.additional_data == {"patient_id": bob.pk, "patient": "bob"}


def test_a_patient_changing_their_profile_is_logged_with_them_as_actor(alice, alice_api):
    response = alice_api.patch("/api/profile/", {"home_address": "1 New Street"}, format="json")

    assert response.status_code == 200
    (entry,) = _entries(type(alice.profile), alice.profile, LogEntry.Action.UPDATE)
    assert entry.actor == alice
    assert entry.additional_data["patient_id"] == alice.pk
    assert entry.changes_dict["home_address"][1] == "1 New Street"


def test_an_operator_deleting_a_patients_contact_is_logged(bob, carol, operator):
    contact = give_a_world(bob) and bob.emergency_contacts.get()

    response = operator.post(f"/admin/health/emergencycontact/{contact.pk}/delete/", {"post": "yes"})

    assert response.status_code == 302
    (entry,) = _entries(type(contact), contact, LogEntry.Action.DELETE)
    assert (entry.actor, entry.additional_data["patient"]) == (carol, "bob")


def test_a_watch_posting_readings_writes_no_audit_entry_per_batch(alice, alice_device):
    client = Client(HTTP_AUTHORIZATION=f"Device {alice_device[1]}")
    before = LogEntry.objects.count()

    response = client.post(
        "/api/vitals/", {"measured_at": "2026-01-01T08:00:00Z", "heart_rate": 64}, content_type="application/json"
    )

    assert response.status_code == 201
    assert LogEntry.objects.count() == before


def test_the_dashboard_lists_who_did_what_to_whose_record(bob, carol, operator):
    give_a_world(bob)
    symptom = bob.symptom_records.get()
    operator.get(f"/admin/health/symptomrecord/{symptom.pk}/change/")

    page = operator.get("/admin/auditlog/logentry/?action__exact=3").content.decode()

    assert "column-patient" in page
    assert ">bob<" in page
    assert "carol" in page
