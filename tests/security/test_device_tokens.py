"""A watch's device token posts readings and does nothing else, anywhere; its patient can revoke it.

Every route of the project is tried with the token alone: GET everywhere, and POST on the API
(pages and the admin refuse a POST without CSRF anyway, see test_csrf_on_every_route.py).
"""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from health.models import VitalReading
from tests.factories import VitalReadingFactory
from tests.security.routes import all_routes

ROUTES = all_routes()
READING = {"measured_at": "2026-01-01T08:00:00Z", "heart_rate": 64}
# Answer everyone alike and hold no personal data.
PUBLIC = {"login", "healthz", "api-schema", "api-docs", "favicon.ico"}


@pytest.fixture
def watch(alice_device) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Device {alice_device[1]}")
    return client


@pytest.mark.parametrize("route", ROUTES, ids=[f"{r.name} {r.url}" for r in ROUTES])
def test_a_device_token_reads_nothing(watch, alice_device, route):
    VitalReadingFactory(device=alice_device[0], heart_rate=71)

    response = watch.get(route.url)

    if route.name in PUBLIC:
        return
    if route.url.startswith("/api/"):
        assert response.status_code == 403, f"GET {route.url} with a device token answered {response.status_code}"
    else:
        # Pages and the admin do not know device tokens: the visitor is anonymous (sent to a login
        # page, or refused: logout answers only POST).
        assert response.status_code in (302, 404, 405), f"GET {route.url} answered {response.status_code}"
        assert b"71" not in response.content


API_ROUTES = [r for r in ROUTES if r.url.startswith("/api/") and r.name not in PUBLIC]


@pytest.mark.parametrize("route", API_ROUTES, ids=[f"{r.name} {r.url}" for r in API_ROUTES])
def test_a_device_token_writes_only_readings(watch, alice, route):
    before = alice.devices.count(), alice.emergency_contacts.count()

    response = watch.post(route.url, READING, format="json")

    if route.name == "vital-reading-list":
        assert response.status_code == 201
        assert VitalReading.objects.filter(user=alice).count() == 1
    else:
        assert response.status_code == 403, f"POST {route.url} with a device token answered {response.status_code}"
        assert not VitalReading.objects.exists()
    assert (alice.devices.count(), alice.emergency_contacts.count()) == before


def test_the_patient_revokes_a_token_and_it_stops_at_once(alice_api, alice_device, watch):
    device, _ = alice_device
    assert watch.post("/api/vitals/", READING, format="json").status_code == 201

    assert alice_api.delete(f"/api/devices/{device.pk}/").status_code == 204

    response = watch.post("/api/vitals/", {**READING, "measured_at": "2026-01-01T08:01:00Z"}, format="json")
    # DRF answers 403, not 401, because session authentication comes first and sends no challenge.
    assert response.status_code in (401, 403)
    assert "revoked" in response.json()["detail"]
    assert VitalReading.objects.count() == 1
