"""Django's cache as what it is here: a speed-up, never the record.

With Redis down, a save of health data (an SOS, a booking, a reading) must still succeed and every
reading must still be judged; only the shortcut is lost. These calls never raise for an unreachable
cache: a read answers ``UNREACHABLE`` (so that a caller that must know, such as memory's version,
can tell "not cached" from "nobody can tell"), a write answers False. Each outage is logged.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.cache import cache
from redis.exceptions import RedisError

log = logging.getLogger(__name__)

UNREACHABLE: Any = type("Unreachable", (), {"__repr__": lambda self: "UNREACHABLE", "__bool__": lambda self: False})()


def get(key: str, default: Any = None) -> Any:
    """The cached value, ``default`` when there is none, ``UNREACHABLE`` when the cache is down."""
    try:
        return cache.get(key, default)
    except RedisError as exc:
        log.warning("cache unreachable reading %s: %s", key, exc)
        return UNREACHABLE


def put(key: str, value: Any, timeout: float | None) -> bool:
    """Store ``value``; whether the cache took it."""
    try:
        cache.set(key, value, timeout)
    except RedisError as exc:
        log.warning("cache unreachable writing %s: %s", key, exc)
        return False
    return True


def bump(key: str) -> bool:
    """Add one to the counter at ``key`` (kept for ever; created at 1); whether the cache took it."""
    try:
        cache.add(key, 0, None)
        try:
            cache.incr(key)
        except ValueError:  # evicted between add and incr
            cache.set(key, 1, None)
    except RedisError as exc:
        log.warning("cache unreachable counting %s: %s", key, exc)
        return False
    return True
