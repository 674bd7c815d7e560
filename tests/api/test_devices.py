"""/api/devices/: pairing shows the token once; deleting a device revokes it."""

from __future__ import annotations

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
