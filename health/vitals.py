"""Vital readings in: stored exactly once, judged by the monitor, pushed live.

``record_readings`` is what the API calls: it stores the batch
(``ingest_readings``), runs the vitals monitor on the new readings
(``health.monitor.check``) and pushes the latest values to the user's open tabs.

A watch resends a batch when it missed the answer, so the same
(device, measured_at) may arrive any number of times, in any order. The
unique constraint on those two columns is the guarantee; this module keeps the
answer honest by counting what was new and what was already there.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from core.events import Event
from core.realtime import push_to_user
from health.models import Alert, VitalReading
from health.monitor.check import Span, check_readings, crossing

# Keeps each "which of these already exist?" query far below every backend's
# limit on bound parameters.
_LOOKUP_CHUNK = 500
# A batch measured within this span is looked up with one range query (at
# most an hour of one device's readings comes back); a wider one, by its
# instants.
_RANGE_LOOKUP_SPAN = dt.timedelta(hours=1)
# A concurrent sender can insert between our lookup and our insert; after that
# many lost races something else is wrong, and the error should surface.
_MAX_ATTEMPTS = 3

# The window a reading's ``measured_at`` must fall in; the one place it is defined.
# - Not before EARLIEST_MEASURED_AT: a watch whose clock was never set reads
#   0001, 1970 or 2000, and no device this app pairs with predates 2010. The
#   floor is fixed rather than "30 days ago": a device's stored history may be
#   imported long after it was measured, and a relative floor would refuse it.
# - Not after now + CLOCK_SKEW: a device's clock may run a little fast; a reading
#   from further ahead (2099) would stay "the newest reading" for ever.
EARLIEST_MEASURED_AT = dt.datetime(2010, 1, 1, tzinfo=dt.UTC)
CLOCK_SKEW = dt.timedelta(minutes=5)


def measured_at_error(when: dt.datetime, now: dt.datetime | None = None) -> str | None:
    """Why ``when`` is no acceptable ``measured_at`` (see the window above), or None."""
    if when < EARLIEST_MEASURED_AT:
        return f"Must not be before {EARLIEST_MEASURED_AT:%Y-%m-%d}: is the device's clock set?"
    latest = (now or timezone.now()) + CLOCK_SKEW
    if when > latest:
        return "Must not be in the future: is the device's clock set?"
    return None


@dataclass(frozen=True)
class IngestResult:
    created: int
    duplicates: int
    # The readings stored by this call (not the duplicates), unsaved-id rows.
    new: list[VitalReading] = field(default_factory=list, compare=False, repr=False)
    # Soft SOS alerts the monitor raised on them (``record_readings`` only).
    alerts: list[Alert] = field(default_factory=list, compare=False, repr=False)


def _existing_keys(keys: set[tuple[int, dt.datetime]]) -> set[tuple[int, dt.datetime]]:
    by_device: dict[int, list[dt.datetime]] = defaultdict(list)
    for device_id, measured_at in keys:
        by_device[device_id].append(measured_at)
    found: set[tuple[int, dt.datetime]] = set()
    for device_id, times in by_device.items():
        first, last = min(times), max(times)
        if last - first <= _RANGE_LOOKUP_SPAN:
            # A watch's batch covers a few minutes: one range scan of the
            # (device, measured_at) index, no list of parameters to bind.
            stored = VitalReading.objects.filter(device_id=device_id, measured_at__range=(first, last))
            found.update((device_id, at) for at in stored.values_list("measured_at", flat=True))
            continue
        for start in range(0, len(times), _LOOKUP_CHUNK):
            rows = VitalReading.objects.filter(
                device_id=device_id, measured_at__in=times[start : start + _LOOKUP_CHUNK]
            ).values_list("device_id", "measured_at")
            found.update(rows)
    return found & keys


def ingest_readings(*, user, readings: list[dict]) -> IngestResult:
    """Store every reading of ``readings`` (validated serializer data, each with
    its ``device``) for ``user`` unless that device already sent that instant.

    Either all new readings are stored or none is. Repeats inside the batch
    count as duplicates, like repeats of earlier batches.
    """
    unique: dict[tuple[int, dt.datetime], dict] = {}
    for reading in readings:
        unique.setdefault((reading["device"].pk, reading["measured_at"]), reading)
    attempt = 1
    while True:
        existing = _existing_keys(set(unique))
        new = [VitalReading(user=user, **data) for key, data in unique.items() if key not in existing]
        try:
            with transaction.atomic():
                VitalReading.objects.bulk_create(new)
        except IntegrityError:
            if attempt >= _MAX_ATTEMPTS:
                raise
            attempt += 1
            continue
        return IngestResult(created=len(new), duplicates=len(readings) - len(new), new=new)


_JUDGED_FIELDS = ("heart_rate", "spo2", "systolic_bp", "diastolic_bp")
_LIVE_FIELDS = ("heart_rate", "spo2", "systolic_bp", "diastolic_bp", "steps", "sleep_stage", "sleep_minutes")


def _spans(readings: list[VitalReading]) -> list[Span]:
    by_device: dict[int, list[VitalReading]] = defaultdict(list)
    for reading in readings:
        by_device[reading.device_id].append(reading)
    spans = []
    for device_id, mine in by_device.items():
        instants = [reading.measured_at for reading in mine]
        values = [{metric: getattr(reading, metric) for metric in _JUDGED_FIELDS} for reading in mine]
        spans.append(Span(device_id, min(instants), max(instants), crossing(values)))
    return spans


def live_payload(readings: list[VitalReading]) -> dict[str, Any]:
    """What the browser's live vitals panel shows: the newest value of each metric in the batch."""
    latest: dict[str, Any] = {}
    newest = max(readings, key=lambda r: r.measured_at)
    for reading in sorted(readings, key=lambda r: r.measured_at):
        for name in _LIVE_FIELDS:
            value = getattr(reading, name)
            if value not in (None, ""):
                latest[name] = value
    return {
        "device": newest.device_id,
        "measured_at": newest.measured_at.isoformat(),
        "count": len(readings),
        "latest": latest,
    }


def record_readings(*, user, readings: list[dict]) -> IngestResult:
    """Store ``readings`` (as ``ingest_readings``), run the monitor on the new
    ones, and push them live to the user's tabs once committed. Resent readings
    are neither judged nor pushed again."""
    result = ingest_readings(user=user, readings=readings)
    if not result.new:
        return result
    alerts = check_readings(user.pk, _spans(result.new))
    payload = live_payload(result.new)
    user_id = user.pk
    transaction.on_commit(lambda: push_to_user(user_id, Event.VITALS, payload), robust=True)
    return IngestResult(created=result.created, duplicates=result.duplicates, new=result.new, alerts=alerts)
