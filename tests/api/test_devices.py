"""/api/devices/: pairing shows the token once; deleting a device revokes it."""

from __future__ import annotations

import datetime as dt

from django.utils import timezone
from rest_framework.test import APIClient

from health.models import Device, VitalReading
from tests.factories import DeviceFactory


def _device_client(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Device {token}")
    return client


def test_pairing_returns_a_working_token_once(alice, alice_api):
    """GIVEN alice pairs a watch WHEN she reads the device later
    THEN the token was in the pairing answer only, and it authenticates the watch."""
    paired = alice_api.post("/api/devices/", {"name": "Watch", "kind": "watch"}, format="json")

    assert paired.status_code == 201, paired.json()
    token = paired.json()["token"]
    device = Device.objects.get(pk=paired.json()["id"], user=alice)
    assert token.startswith(device.token_prefix)
    assert alice_api.get(f"/api/devices/{device.pk}/").json()["token"] is None
    assert all(row["token"] is None for row in alice_api.get("/api/devices/").json()["results"])

    posted = _device_client(token).post("/api/vitals/", {"measured_at": "2026-01-01T08:00:00Z", "heart_rate": 61})

    assert posted.status_code == 201
    assert VitalReading.objects.get().device == device


def test_the_token_hash_is_never_exposed(alice, alice_api):
    paired = alice_api.post("/api/devices/", {"name": "Watch"}, format="json").json()
    device = Device.objects.get(pk=paired["id"])

    for response in (alice_api.get("/api/devices/"), alice_api.get(f"/api/devices/{device.pk}/")):
        assert device.token_hash not in response.content.decode()
    assert "token_hash" not in paired


def test_deleting_a_device_revokes_its_token_but_keeps_the_record(alice, alice_api):
    device = DeviceFactory.build(user=alice)
    token = device.issue_token()
    device.save()

    response = alice_api.delete(f"/api/devices/{device.pk}/")

    assert response.status_code == 204
    device.refresh_from_db()
    assert device.revoked_at is not None
    assert alice_api.get(f"/api/devices/{device.pk}/").json()["is_active"] is False
    refused = _device_client(token).post("/api/vitals/", {"measured_at": "2026-01-01T08:00:00Z", "heart_rate": 61})
    assert refused.status_code in (401, 403)
    assert not VitalReading.objects.exists()


def test_revoking_twice_keeps_the_first_revocation_time(alice, alice_api):
    device = DeviceFactory(user=alice)
    alice_api.delete(f"/api/devices/{device.pk}/")
    device.refresh_from_db()
    first = device.revoked_at

    assert alice_api.delete(f"/api/devices/{device.pk}/").status_code == 204
    device.refresh_from_db()
    assert device.revoked_at == first


def test_an_unknown_kind_answers_400(alice_api):
    response = alice_api.post("/api/devices/", {"name": "Toaster", "kind": "toaster"}, format="json")

    assert response.status_code == 400
    assert "kind" in response.json()


def test_last_seen_is_kept_to_the_minute_without_a_write_per_reading(alice, alice_api):
    """GIVEN a watch streaming a reading a second WHEN it posts THEN "last seen"
    moves once its recorded value is a minute old, not on every request."""
    paired = alice_api.post("/api/devices/", {"name": "Watch"}, format="json").json()
    watch = _device_client(paired["token"])
    device = Device.objects.get(pk=paired["id"])
    assert device.last_seen_at is None

    def post_at(second: int) -> None:
        reading = {"measured_at": f"2026-01-01T08:00:{second:02d}Z", "heart_rate": 61}
        assert watch.post("/api/vitals/", reading, format="json").status_code == 201

    post_at(0)
    device.refresh_from_db()
    first = device.last_seen_at
    assert first is not None and timezone.now() - first < dt.timedelta(seconds=30)

    recent = timezone.now() - dt.timedelta(seconds=10)
    Device.objects.filter(pk=device.pk).update(last_seen_at=recent)
    post_at(1)
    device.refresh_from_db()
    assert device.last_seen_at == recent

    stale = timezone.now() - dt.timedelta(minutes=2)
    Device.objects.filter(pk=device.pk).update(last_seen_at=stale)
    post_at(2)
    device.refresh_from_db()
    assert timezone.now() - device.last_seen_at < dt.timedelta(seconds=30)
