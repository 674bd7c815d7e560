"""Named users for every test: alice owns data, bob is another patient,
carol is staff (operator), and anonymous has no session."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.factories import DeviceFactory, UserFactory


@pytest.fixture
def alice(db):
    return UserFactory(username="alice", first_name="Alice")


@pytest.fixture
def bob(db):
    return UserFactory(username="bob", first_name="Bob")


@pytest.fixture
def carol(db):
    return UserFactory(username="carol", first_name="Carol", is_staff=True, is_superuser=True)


@pytest.fixture
def api() -> APIClient:
    return APIClient()


@pytest.fixture
def alice_api(alice) -> APIClient:
    client = APIClient()
    client.force_login(alice)
    return client


@pytest.fixture
def alice_device(alice):
    """(device, raw_token) for a watch paired to alice."""
    device = DeviceFactory.build(user=alice)
    token = device.issue_token()
    device.save()
    return device, token
