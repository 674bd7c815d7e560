"""A device token posts readings for its own device and does nothing else."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from health.models import VitalReading
from tests.factories import DeviceFactory, VitalReadingFactory

READING = {"measured_at": "2026-01-01T08:00:00Z", "heart_rate": 64}


def test_a_device_posts_readings_for_itself_and_its_user(alice, alice_device, alice_watch_api):
    device, _ = alice_device

    response = alice_watch_api.post("/api/vitals/", READING, format="json")

    assert response.status_code == 201
    reading = VitalReading.objects.get()
    assert (reading.user, reading.device) == (alice, device)


def test_naming_its_own_device_is_fine(alice_device, alice_watch_api):
    device, _ = alice_device

    response = alice_watch_api.post("/api/vitals/", {**READING, "device": device.pk}, format="json")

    assert response.status_code == 201


def test_a_device_cannot_post_for_another_device_of_the_same_user(alice, alice_watch_api):
    ring = DeviceFactory(user=alice, name="Ring")

    response = alice_watch_api.post("/api/vitals/", {**READING, "device": ring.pk}, format="json")

    assert response.status_code == 400
    assert "own readings" in response.json()["device"][0]
    assert not VitalReading.objects.exists()


def test_a_device_cannot_post_for_another_users_device(bob_device, alice_watch_api):
    response = alice_watch_api.post("/api/vitals/", {**READING, "device": bob_device.pk}, format="json")

    assert response.status_code == 400
    assert "does not exist" in response.json()["device"][0]
    assert not VitalReading.objects.exists()


@pytest.mark.parametrize(
    ("method", "url"),
    [
        ("get", "/api/vitals/"),
        ("get", "/api/profile/"),
        ("get", "/api/devices/"),
        ("post", "/api/devices/"),
        ("get", "/api/appointments/"),
        ("get", "/api/alerts/"),
        ("get", "/api/notifications/unread-count/"),
    ],
)
def test_a_device_token_reads_nothing_and_writes_nothing_else(alice, alice_device, alice_watch_api, method, url):
    device, _ = alice_device
    VitalReadingFactory(device=device)

    response = getattr(alice_watch_api, method)(url, {"name": "Another watch"} if method == "post" else None)

    assert response.status_code == 403
    assert alice.devices.count() == 1


def test_a_revoked_or_made_up_token_is_refused(alice_device):
    device, token = alice_device
    device.revoked_at = device.created_at
    device.save()

    for header in (f"Device {token}", "Device not-a-token", "Device", f"Device {token} extra"):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=header)
        assert client.post("/api/vitals/", READING, format="json").status_code in (401, 403), header
    assert not VitalReading.objects.exists()
