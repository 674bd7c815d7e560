"""Medications: clock times are "HH:MM", one per daily dose."""

from __future__ import annotations

import pytest

from health.models import Medication
from tests.factories import MedicationFactory, PrescriptionFactory


def _payload(**changes) -> dict:
    return {"name": "Metformin", "strength": "500 mg", "times_per_day": 2, "start_date": "2026-01-01"} | changes


def test_a_medication_is_stored_with_its_times_in_order(alice, alice_api):
    prescription = PrescriptionFactory(user=alice)

    response = alice_api.post(
        "/api/medications/", _payload(clock_times=["20:00", "08:00"], prescription=prescription.pk), format="json"
    )

    assert response.status_code == 201, response.json()
    medication = Medication.objects.get(user=alice)
    assert medication.clock_times == ["08:00", "20:00"]
    assert medication.prescription == prescription


def test_clock_times_may_be_left_empty_until_known(alice_api):
    response = alice_api.post("/api/medications/", _payload(clock_times=[]), format="json")

    assert response.status_code == 201


@pytest.mark.parametrize(
    "clock_times",
    [["08:00"], ["08:00", "14:00", "20:00"], ["8am", "20:00"], ["24:00", "08:00"], ["08:00", "08:00"], "08:00"],
)
def test_clock_times_that_do_not_fit_times_per_day_answer_400(alice_api, clock_times):
    response = alice_api.post("/api/medications/", _payload(clock_times=clock_times), format="json")

    assert response.status_code == 400
    assert "clock_times" in response.json()
    assert not Medication.objects.exists()


def test_a_partial_update_is_judged_with_the_stored_values(alice, alice_api):
    medication = MedicationFactory(user=alice, times_per_day=2, clock_times=["08:00", "20:00"])

    refused = alice_api.patch(f"/api/medications/{medication.pk}/", {"times_per_day": 3}, format="json")
    accepted = alice_api.patch(
        f"/api/medications/{medication.pk}/", {"times_per_day": 3, "clock_times": ["08:00", "14:00", "20:00"]}
    )

    assert refused.status_code == 400
    assert accepted.status_code == 200, accepted.json()
    medication.refresh_from_db()
    assert medication.times_per_day == 3


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"end_date": "2025-12-01"}, "end_date"),
        ({"times_per_day": 0}, "times_per_day"),
        ({"times_per_day": 13}, "times_per_day"),
        ({"food_timing": "during"}, "food_timing"),
        ({"name": ""}, "name"),
    ],
)
def test_invalid_fields_answer_400(alice_api, changes, field):
    response = alice_api.post("/api/medications/", _payload(**changes), format="json")

    assert response.status_code == 400
    assert field in response.json()


def test_another_patients_prescription_does_not_exist(bob, alice_api):
    response = alice_api.post("/api/medications/", _payload(prescription=PrescriptionFactory(user=bob).pk))

    assert response.status_code == 400
    assert "does not exist" in response.json()["prescription"][0]
    assert not Medication.objects.exists()


@pytest.mark.parametrize(
    "name, known",
    [("Metformin", True), ("Glycomet", True), ("metformn", True), ("Lottery Ticket", False), ("Magic Beans", False)],
)
def test_a_name_that_is_not_a_medicine_is_stored_as_typed_and_flagged(alice, alice_api, client, name, known):
    """The patient may schedule a medicine the lexicon lacks, but "Lottery Ticket" is flagged on the
    API and on the Medications page for them to check (issue 23: records that make no sense)."""
    response = alice_api.post("/api/medications/", _payload(name=name, clock_times=["08:00", "20:00"]), format="json")

    assert response.status_code == 201, response.json()
    assert response.json()["in_lexicon"] is known
    assert alice_api.get(f"/api/medications/{response.json()['id']}/").json()["in_lexicon"] is known
    client.force_login(alice)
    page = client.get("/medications/").content.decode()
    assert ("is not a medicine name this app knows" in page) is not known
