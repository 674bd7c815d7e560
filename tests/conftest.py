"""Named users for every test: alice owns data, bob is another patient,
carol is staff (operator), and anonymous has no session."""

from __future__ import annotations

import os

import pytest
from rest_framework.test import APIClient

from tests.factories import DeviceFactory, UserFactory


def pytest_configure(config):
    """The socket guard (tests/network_guard.py): a test that reaches past loopback fails, so no
    code path sends health data off the device unnoticed (Twilio and remote models are mocked at
    their HTTP boundary or served by stand-ins on 127.0.0.1)."""
    from tests.network_guard import install

    install()


def pytest_sessionstart(session):
    """With REDIS_URL set and no Redis answering, every test that touches the cache, the broker or the
    channel layer fails at setup, one slow connection error after another (most of an hour): stop at
    once and say why instead."""
    url = os.environ.get("REDIS_URL")
    if not url:
        return
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=3, socket_timeout=3).ping()
    except redis.exceptions.RedisError as error:
        pytest.exit(f"REDIS_URL is set to {url}, but that Redis does not answer ({error})", returncode=2)


def pytest_terminal_summary(terminalreporter):
    """The counts the fault, attack and privacy tests hand to tests.summary.summarise."""
    from tests.summary import LINES

    if LINES:
        terminalreporter.section("what the fault, attack and privacy tests tried")
        for line in LINES:
            terminalreporter.write_line(line)


@pytest.fixture(autouse=True)
def fresh_channel_layer():
    """Each test gets its own channel layer: channels_redis binds a layer's receivers to one event loop,
    and a receive left pending when an earlier test's loop closed made every later socket test fail."""
    from channels.layers import channel_layers

    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


@pytest.fixture(autouse=True)
def no_first_step_classifier(settings):
    """The first step's classifier (agents/first_step.py) is off unless a test turns it on: tests
    script which requests reach their model, and a route by meaning would take some of them away.
    Its own tests (tests/agents/test_first_step.py) and the desks' end-to-end checks turn it on."""
    settings.AGENT_FIRST_STEP_MODEL = False


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
