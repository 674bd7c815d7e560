"""Which version of each user's memory is current: a save or delete of a source model bumps it.

Kept apart from ``agents.memory.index`` so that connecting the signals at start-up
(``AgentsConfig.ready()``) loads neither spaCy nor the sentence encoder.
"""

from __future__ import annotations

from typing import Any

from core import speedup_cache

# user id -> (version, built at (monotonic), MemoryIndex): the indexes this process built
_indexes: dict[int, tuple[int, float, Any]] = {}


def version(user_id: int) -> int | None:
    """The user's memory version; None when the cache (Redis) cannot be reached: nobody can tell
    whether the data changed, so the caller rebuilds."""
    found = speedup_cache.get(_version_key(user_id), 0)
    return None if found is speedup_cache.UNREACHABLE else found


def invalidate(user_id: int | None) -> None:
    """The user's data changed: every process rebuilds their index on its next use.

    The version lives in the cache, which is a speed-up and never the record: with Redis down the
    save that changed the data (an SOS, a booking, a symptom) must still succeed. The bump is then
    lost; every process rebuilds while the cache is unreachable (``version`` is None), and an index
    built before the outage is rebuilt at the latest after ``MEMORY_INDEX_MAX_AGE_SECONDS``."""
    if user_id is None:
        return
    _indexes.pop(user_id, None)  # this process forgets at once (a deleted account's data too)
    speedup_cache.bump(_version_key(user_id))


def _version_key(user_id: int) -> str:
    return f"agents.memory.version.{user_id}"


def on_change(sender, instance, **kwargs) -> None:
    """post_save/post_delete receiver of every model memory items are built from."""
    invalidate(getattr(instance, "user_id", None))


def connect_signals() -> None:
    """Called from ``AgentsConfig.ready()``: memory follows every change of its source models."""
    from django.db.models.signals import post_delete, post_save

    from health.models import (
        Alert,
        Appointment,
        AppointmentHistory,
        DailyReport,
        Medication,
        PatientProfile,
        SymptomRecord,
    )

    for model in (PatientProfile, SymptomRecord, Appointment, AppointmentHistory, Medication, Alert, DailyReport):
        for name, signal in (("saved", post_save), ("deleted", post_delete)):
            signal.connect(on_change, sender=model, dispatch_uid=f"agents.memory.{model.__name__}.{name}")
