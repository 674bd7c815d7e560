"""Clients for the API tests, beside the named users of tests/conftest.py:
bob is the second patient, and alice's watch talks with its device token."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.factories import DeviceFactory


@pytest.fixture
def bob_api(bob) -> APIClient:
    client = APIClient()
    client.force_login(bob)
    return client


@pytest.fixture
def alice_watch_api(alice_device) -> APIClient:
    """A client that authenticates with the token of alice's watch only."""
    _, token = alice_device
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Device {token}")
    return client


@pytest.fixture
def bob_device(bob):
    return DeviceFactory(user=bob, name="Bob's watch")
