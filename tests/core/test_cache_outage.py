"""The cache (Redis) is a speed-up, never the record: with it unreachable, a save that changes a
patient's memory (an SOS, a symptom) and a vitals reading still succeed, and memory is rebuilt
rather than served stale."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from redis.exceptions import ConnectionError as RedisConnectionError
from rest_framework.test import APIClient

from agents.memory import index as memory_index
from health.models import Alert, SymptomRecord, VitalReading


@pytest.fixture
def cache_down(monkeypatch):
    def refused(*args, **kwargs):
        raise RedisConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    for name in ("get", "set", "add", "incr"):
        monkeypatch.setattr(cache, name, refused)


def test_saves_that_change_memory_succeed_with_the_cache_down(alice, cache_down):
    SymptomRecord.objects.create(user=alice, text="a cough for three days", symptoms=["cough"])
    alert = Alert.objects.create(user=alice, kind=Alert.Kind.HARD, state=Alert.State.OPEN, condition="")

    assert SymptomRecord.objects.filter(user=alice).count() == 1
    assert Alert.objects.filter(pk=alert.pk).exists()


def test_memory_is_rebuilt_not_reused_while_the_cache_is_down(alice, monkeypatch, cache_down):
    built = []
    real = memory_index.items_for
    monkeypatch.setattr(memory_index, "items_for", lambda user, now=None: built.append(1) or real(user, now))

    memory_index.index_for(alice)
    memory_index.index_for(alice)

    assert len(built) == 2


def test_readings_are_stored_and_judged_with_the_cache_down(alice_device, cache_down):
    _device, token = alice_device
    watch = APIClient()
    watch.credentials(HTTP_AUTHORIZATION=f"Device {token}")
    low = [
        {"measured_at": f"2026-03-02T10:{second // 60:02d}:{second % 60:02d}Z", "spo2": 86}
        for second in range(0, 80, 10)
    ]

    answer = watch.post("/api/vitals/", low, format="json")

    assert answer.status_code == 201, answer.json()
    assert VitalReading.objects.count() == len(low)
    assert Alert.objects.filter(kind="soft", condition="hypoxia").count() == 1
