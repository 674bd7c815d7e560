"""The batch API's fast path (``_plain_batch``) accepts exactly what the
serializer accepts and returns the same validated data; anything it is not
sure of goes to the serializer, which words the errors."""

from __future__ import annotations

import datetime as dt
from types import SimpleNamespace

import pytest
from django.utils import timezone

from health.api.vitals import MAX_BATCH, VitalReadingSerializer, _plain_batch
from health.models import VitalReading
from tests.factories import DeviceFactory

AT = "2026-01-01T08:00:00+00:00"


@pytest.fixture
def watch(alice):
    return DeviceFactory(user=alice)


def signed_in(user):
    return SimpleNamespace(user=user, auth=None)


def by_token(device):
    return SimpleNamespace(user=device.user, auth=device)


def serializer_data(items, request) -> list[dict]:
    batch = VitalReadingSerializer(data=items, many=True, allow_empty=False, max_length=MAX_BATCH,
                                   context={"request": request})  # fmt: skip
    assert batch.is_valid(), batch.errors
    return [dict(attrs) for attrs in batch.validated_data]


def plain_items(watch) -> list[dict]:
    return [
        {"device": watch.pk, "measured_at": AT, "heart_rate": 70},
        {"device": watch.pk, "measured_at": "2026-01-01T08:00:01Z", "spo2": 97},  # an int SpO2 becomes 97.0
        {"device": watch.pk, "measured_at": "2026-01-01T10:00:02+02:00", "spo2": 96.5, "heart_rate": None},
        {"device": watch.pk, "measured_at": "2026-01-01T08:00:03", "steps": 0, "sleep_stage": ""},  # naive: UTC
        {"device": watch.pk, "measured_at": "2026-01-01T08:00:04.250000Z", "sleep_stage": "rem", "sleep_minutes": 5},
        {"device": watch.pk, "measured_at": AT, "systolic_bp": 260, "diastolic_bp": 180, "heart_rate": 250},
        {"device": watch.pk, "measured_at": AT, "heart_rate": 0, "spo2": 50.0, "steps": 100_000},
        {"device": watch.pk, "measured_at": AT, "heart_rate": 60, "id": 12, "received_at": AT, "extra": "ignored"},
    ]


def test_plain_readings_validate_as_the_serializer_validates_them(alice, watch):
    items = plain_items(watch)

    fast = _plain_batch(items, signed_in(alice))

    assert fast == serializer_data(items, signed_in(alice))
    assert [type(attrs.get("spo2")) for attrs in fast[1:3]] == [float, float]
    assert fast[3]["measured_at"] == dt.datetime(2026, 1, 1, 8, 0, 3, tzinfo=dt.UTC)
    assert fast[2]["measured_at"] == dt.datetime(2026, 1, 1, 8, 0, 2, tzinfo=dt.UTC)
    assert all(attrs["device"] == watch for attrs in fast)


def test_a_device_token_may_leave_out_or_name_its_own_device(watch):
    items = [{"measured_at": AT, "heart_rate": 70}, {"device": watch.pk, "measured_at": AT, "spo2": 99}]

    assert _plain_batch(items, by_token(watch)) == serializer_data(items, by_token(watch))


@pytest.mark.parametrize(
    "change",
    [
        {"heart_rate": 900},
        {"heart_rate": -1},
        {"heart_rate": "70"},  # a spelling only the serializer parses
        {"heart_rate": 70.0},
        {"heart_rate": True},
        {"spo2": 140},
        {"spo2": 49.9},
        {"spo2": float("nan")},
        {"spo2": float("inf")},
        {"steps": 100_001},
        {"sleep_minutes": 1441},
        {"sleep_stage": "dreaming"},
        {"sleep_stage": None},
        {"systolic_bp": 80, "diastolic_bp": 90},
        {"systolic_bp": 90, "diastolic_bp": 90},
        {"measured_at": "yesterday"},
        {"measured_at": 1767254400},
        {"measured_at": None},
        {"device": None},
        {"device": "1"},
    ],
)
def test_anything_else_goes_to_the_serializer(alice, watch, change):
    item = {"device": watch.pk, "measured_at": AT, "heart_rate": 70} | change

    assert _plain_batch([item], signed_in(alice)) is None


def test_batches_the_fast_path_refuses(alice, bob, watch):
    good = {"device": watch.pk, "measured_at": AT, "heart_rate": 70}
    revoked = DeviceFactory(user=alice, revoked_at=timezone.now())
    bobs = DeviceFactory(user=bob)

    assert _plain_batch([], signed_in(alice)) is None
    assert _plain_batch([good] * (MAX_BATCH + 1), signed_in(alice)) is None
    assert _plain_batch([good] * MAX_BATCH, signed_in(alice)) is not None
    assert _plain_batch([good, 42], signed_in(alice)) is None
    assert _plain_batch([good, {"device": watch.pk, "measured_at": AT}], signed_in(alice)) is None  # no metric
    assert _plain_batch([good, {"device": watch.pk, "measured_at": AT, "sleep_stage": ""}], signed_in(alice)) is None
    assert _plain_batch([{"measured_at": AT, "heart_rate": 70}], signed_in(alice)) is None  # no device
    assert _plain_batch([{"device": watch.pk, "heart_rate": 70}], signed_in(alice)) is None  # no measured_at
    assert _plain_batch([good | {"device": revoked.pk}], signed_in(alice)) is None
    assert _plain_batch([good | {"device": bobs.pk}], signed_in(alice)) is None
    assert _plain_batch([good | {"device": bobs.pk}], by_token(watch)) is None


def test_through_the_api_a_plain_batch_is_stored_and_a_bad_one_answered_per_item(alice_api, watch):
    items = plain_items(watch)[:5]
    bad = [dict(items[0]), dict(items[1], spo2=140)]

    stored = alice_api.post("/api/vitals/", items, format="json")
    refused = alice_api.post("/api/vitals/", bad, format="json")

    assert stored.status_code == 201 and stored.json() == {"created": 5, "duplicates": 0}
    assert VitalReading.objects.get(measured_at=dt.datetime(2026, 1, 1, 8, 0, 1, tzinfo=dt.UTC)).spo2 == 97.0
    assert refused.status_code == 400 and list(refused.json()) == ["1"]
    assert "spo2" in refused.json()["1"]
