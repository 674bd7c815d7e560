"""Fixtures of the Health Manager's tests: alice's contacts, ambulances around
her home in Berlin, a watch with its token, and a clock that tests can move."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from unittest import mock

import pytest
from django.utils import timezone

from tests.factories import AmbulanceFactory, EmergencyContactFactory


@pytest.fixture
def alice_contacts(alice):
    return [
        EmergencyContactFactory(user=alice, name="Dana", phone="+14155550101"),
        EmergencyContactFactory(user=alice, name="Eli", phone="+14155550102"),
    ]


@pytest.fixture
def ambulances(db):
    """One ambulance near alice's home, one far away in Munich, one busy next door."""
    return {
        "near": AmbulanceFactory(code="AMB-NEAR", phone="+14155560001", latitude=52.53, longitude=13.41),
        "far": AmbulanceFactory(code="AMB-FAR", phone="+14155560002", latitude=48.14, longitude=11.58),
        "busy": AmbulanceFactory(
            code="AMB-BUSY", phone="+14155560003", latitude=52.52, longitude=13.405, available=False
        ),
    }


@contextmanager
def _frozen(when: dt.datetime) -> Iterator[dt.datetime]:
    with mock.patch("django.utils.timezone.now", return_value=when):
        yield when


@pytest.fixture
def clock() -> Callable[[float], object]:
    """``with clock(seconds):`` runs the block that many seconds from the test's start."""
    start = timezone.now()
    return lambda seconds: _frozen(start + dt.timedelta(seconds=seconds))


@pytest.fixture(autouse=True)
def fresh_cache():
    """Baselines are cached per user id, and ids repeat across tests."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def no_countdown_timer_outlives_its_test():
    """Eager mode counts a hard SOS down with a timer thread; stop any a test left."""
    from health.sos import cancel_countdown_timers

    yield
    cancel_countdown_timers()
