"""Storing a batch of validated vital readings exactly once.

A watch resends a batch when it missed the answer, so the same
(device, measured_at) may arrive any number of times, in any order. The
unique constraint on those two columns is the guarantee; this module keeps the
answer honest by counting what was new and what was already there.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass

from django.db import IntegrityError, transaction

from health.models import VitalReading

# Keeps each "which of these already exist?" query far below every backend's
# limit on bound parameters.
_LOOKUP_CHUNK = 500
# A concurrent sender can insert between our lookup and our insert; after that
# many lost races something else is wrong, and the error should surface.
_MAX_ATTEMPTS = 3


@dataclass(frozen=True)
class IngestResult:
    created: int
    duplicates: int


def _existing_keys(keys: set[tuple[int, dt.datetime]]) -> set[tuple[int, dt.datetime]]:
    by_device: dict[int, list[dt.datetime]] = defaultdict(list)
    for device_id, measured_at in keys:
        by_device[device_id].append(measured_at)
    found: set[tuple[int, dt.datetime]] = set()
    for device_id, times in by_device.items():
        for start in range(0, len(times), _LOOKUP_CHUNK):
            rows = VitalReading.objects.filter(
                device_id=device_id, measured_at__in=times[start : start + _LOOKUP_CHUNK]
            ).values_list("device_id", "measured_at")
            found.update(rows)
    return found


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
        return IngestResult(created=len(new), duplicates=len(readings) - len(new))
