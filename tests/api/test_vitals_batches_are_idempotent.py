"""A resent batch is counted, never stored twice: readings are unique per
(device, measured_at), whatever order or time zone they arrive in."""

from __future__ import annotations

import datetime as dt

from health.models import VitalReading
from tests.api.helpers import results
from tests.factories import DeviceFactory

START = dt.datetime(2026, 1, 1, 8, 0, tzinfo=dt.UTC)


def _reading(device, minute: int, heart_rate: int = 70) -> dict:
    return {
        "device": device.pk,
        "measured_at": (START + dt.timedelta(minutes=minute)).isoformat(),
        "heart_rate": heart_rate,
    }


def test_a_resent_batch_is_counted_as_duplicates_and_stored_once(alice_api, alice_device):
    watch, _ = alice_device
    batch = [_reading(watch, minute) for minute in range(3)]

    first = alice_api.post("/api/vitals/", batch, format="json")
    again = alice_api.post("/api/vitals/", batch, format="json")

    assert (first.status_code, first.json()) == (201, {"created": 3, "duplicates": 0})
    assert (again.status_code, again.json()) == (200, {"created": 0, "duplicates": 3})
    assert VitalReading.objects.count() == 3


def test_an_overlapping_batch_stores_only_the_new_readings(alice_api, alice_device):
    watch, _ = alice_device
    alice_api.post("/api/vitals/", [_reading(watch, minute) for minute in range(3)], format="json")

    response = alice_api.post("/api/vitals/", [_reading(watch, minute) for minute in range(2, 6)], format="json")

    assert (response.status_code, response.json()) == (201, {"created": 3, "duplicates": 1})
    assert VitalReading.objects.count() == 6


def test_a_resend_keeps_the_first_values(alice_api, alice_device):
    watch, _ = alice_device
    alice_api.post("/api/vitals/", _reading(watch, 0, heart_rate=70), format="json")

    alice_api.post("/api/vitals/", _reading(watch, 0, heart_rate=99), format="json")

    assert VitalReading.objects.get().heart_rate == 70


def test_repeats_inside_one_batch_are_duplicates_too(alice_api, alice_device):
    watch, _ = alice_device
    same_instant_in_paris = {**_reading(watch, 0), "measured_at": "2026-01-01T09:00:00+01:00"}

    response = alice_api.post("/api/vitals/", [_reading(watch, 0), same_instant_in_paris], format="json")

    assert response.json() == {"created": 1, "duplicates": 1}
    assert VitalReading.objects.count() == 1


def test_the_same_instant_from_two_devices_is_two_readings(alice, alice_api, alice_device):
    watch, _ = alice_device
    ring = DeviceFactory(user=alice, name="Ring")

    response = alice_api.post("/api/vitals/", [_reading(watch, 0), _reading(ring, 0)], format="json")

    assert response.json() == {"created": 2, "duplicates": 0}


def test_out_of_order_readings_are_stored_and_listed_newest_first(alice_api, alice_device):
    watch, _ = alice_device
    alice_api.post("/api/vitals/", [_reading(watch, m) for m in (5, 1, 9, 3)], format="json")

    listed = [row["measured_at"] for row in results(alice_api.get("/api/vitals/"))]

    assert len(listed) == 4
    assert listed == sorted(listed, reverse=True)


def test_readings_filter_by_time_range_and_device(alice, alice_api, alice_device):
    watch, _ = alice_device
    ring = DeviceFactory(user=alice, name="Ring")
    alice_api.post("/api/vitals/", [_reading(watch, m) for m in range(10)] + [_reading(ring, 4)], format="json")
    since, until = (START + dt.timedelta(minutes=3)).isoformat(), (START + dt.timedelta(minutes=6)).isoformat()

    in_range = results(alice_api.get("/api/vitals/", {"since": since, "until": until}))
    from_ring = results(alice_api.get("/api/vitals/", {"device": ring.pk}))

    assert len(in_range) == 4  # minutes 3, 4, 5 from the watch and 4 from the ring; until is exclusive
    assert [row["device"] for row in from_ring] == [ring.pk]
    assert alice_api.get("/api/vitals/", {"since": until, "until": since}).status_code == 400
    assert alice_api.get("/api/vitals/", {"since": "last week"}).status_code == 400
