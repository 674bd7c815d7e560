"""Vital readings are validated item by item against physiological bounds, and
a batch is stored whole or not at all."""

from __future__ import annotations

import datetime as dt

import pytest

from health.models import VitalReading


def _reading(device, minute: int = 0, **values) -> dict:
    measured = dt.datetime(2026, 1, 1, 8, 0, tzinfo=dt.UTC) + dt.timedelta(minutes=minute)
    return {"device": device.pk, "measured_at": measured.isoformat(), **({"heart_rate": 70} | values)}


@pytest.fixture
def watch(alice_device):
    return alice_device[0]


@pytest.mark.parametrize(
    ("values", "field"),
    [
        ({"heart_rate": 900}, "heart_rate"),
        ({"heart_rate": -1}, "heart_rate"),
        ({"spo2": 140}, "spo2"),
        ({"spo2": 20}, "spo2"),
        ({"systolic_bp": 400, "diastolic_bp": 80}, "systolic_bp"),
        ({"diastolic_bp": 5}, "diastolic_bp"),
        ({"steps": 200_000}, "steps"),
        ({"sleep_stage": "dreaming"}, "sleep_stage"),
        ({"sleep_minutes": 2000}, "sleep_minutes"),
        ({"measured_at": "yesterday"}, "measured_at"),
    ],
)
def test_an_impossible_reading_answers_400_with_its_field_and_stores_nothing(alice_api, watch, values, field):
    response = alice_api.post("/api/vitals/", _reading(watch, **values), format="json")

    assert response.status_code == 400
    assert field in response.json()
    assert not VitalReading.objects.exists()


def test_bounds_are_inclusive_and_a_zero_heart_rate_is_kept(alice_api, watch):
    """A watch sends 0 when it loses skin contact; the monitor needs to see it."""
    batch = [
        _reading(watch, 0, heart_rate=0),
        _reading(watch, 1, heart_rate=250, spo2=100),
        _reading(watch, 2, spo2=50, systolic_bp=260, diastolic_bp=180),
    ]

    response = alice_api.post("/api/vitals/", batch, format="json")

    assert response.status_code == 201, response.json()
    assert VitalReading.objects.count() == 3


def test_one_bad_item_refuses_the_whole_batch_with_errors_per_item(alice_api, watch):
    """GIVEN a batch whose second item has heart_rate 900 and fourth spo2 140
    THEN 400 lists the errors at those positions, and nothing is stored."""
    batch = [_reading(watch, 0), _reading(watch, 1, heart_rate=900), _reading(watch, 2), _reading(watch, 3, spo2=140)]

    response = alice_api.post("/api/vitals/", batch, format="json")

    assert response.status_code == 400
    # Errors are keyed by the position of the item in the batch.
    assert {position: list(fields) for position, fields in response.json().items()} == {
        "1": ["heart_rate"],
        "3": ["spo2"],
    }
    assert not VitalReading.objects.exists()


def test_a_batch_of_more_than_1000_readings_is_refused(alice_api, watch):
    batch = [_reading(watch, minute) for minute in range(1001)]

    response = alice_api.post("/api/vitals/", batch, format="json")

    assert response.status_code == 400
    assert "1000" in response.json()["non_field_errors"][0]
    assert not VitalReading.objects.exists()


def test_a_batch_of_exactly_1000_readings_is_stored_in_a_few_queries(alice_api, watch, django_assert_max_num_queries):
    batch = [_reading(watch, minute) for minute in range(1000)]

    # The device is looked up once and the readings inserted in batches (SQLite
    # caps the parameters of one INSERT), never one query per reading.
    with django_assert_max_num_queries(40):
        response = alice_api.post("/api/vitals/", batch, format="json")

    assert response.status_code == 201
    assert response.json() == {"created": 1000, "duplicates": 0}
    assert VitalReading.objects.count() == 1000


def test_systolic_must_be_above_diastolic(alice_api, watch):
    response = alice_api.post("/api/vitals/", _reading(watch, systolic_bp=80, diastolic_bp=90), format="json")

    assert response.status_code == 400
    assert "diastolic_bp" in response.json()


def test_a_reading_needs_at_least_one_measurement(alice_api, watch):
    response = alice_api.post(
        "/api/vitals/", {"device": watch.pk, "measured_at": "2026-01-01T08:00:00Z"}, format="json"
    )

    assert response.status_code == 400
    assert "non_field_errors" in response.json()


def test_a_signed_in_patient_must_name_an_active_device_of_theirs(alice, alice_api, watch):
    missing = alice_api.post("/api/vitals/", {"measured_at": "2026-01-01T08:00:00Z", "heart_rate": 60}, format="json")
    watch.revoked_at = watch.created_at
    watch.save()
    revoked = alice_api.post("/api/vitals/", _reading(watch), format="json")

    assert missing.status_code == 400
    assert "device" in missing.json()
    assert revoked.status_code == 400
    assert "does not exist" in revoked.json()["device"][0]
    assert not VitalReading.objects.exists()


@pytest.mark.parametrize(
    "body",
    ['{"heart_rate": 70, ', "[1, 2", '"just a string"', "42", "[]", "[42]"],
)
def test_malformed_or_empty_bodies_answer_400(alice_api, watch, body):
    response = alice_api.generic("POST", "/api/vitals/", body, content_type="application/json")

    assert response.status_code == 400
    assert not VitalReading.objects.exists()
