"""Adherence: of the doses that were due, how many the patient took, per medication and per day.

Read from the recorded ``DoseEvent`` rows only, so every figure is something that happened:

- a dose belongs to the patient's local day it was due on (``DoseEvent.due_on``; for older rows
  without it, the local date of ``due_at`` in the patient's current zone);
- **due** counts the doses whose outcome is settled: taken, skipped or missed. A dose still open
  (its reminder went out or is snoozed, and the patient can still take it) is counted as
  ``pending`` and is left out of the percentage until it is settled; a dose not yet due has no row
  at all (the dispatcher creates it when it falls due);
- **taken** counts the doses taken (also those taken late, after they were marked missed);
  skipped and missed doses count as not taken;
- ``percent`` is taken / due x 100, rounded to a whole number, or None when nothing was due.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.utils import timezone

from health.models import DoseEvent
from health.models.appointments import patient_zone

S = DoseEvent.State
SETTLED = (S.TAKEN, S.SKIPPED, S.MISSED)


def _counts() -> dict[str, int]:
    return {"due": 0, "taken": 0, "skipped": 0, "missed": 0, "pending": 0}


def _finish(counts: dict[str, int]) -> dict[str, Any]:
    due = counts["due"]
    return {**counts, "percent": round(100 * counts["taken"] / due) if due else None}


def adherence(user, *, days: int, today: dt.date | None = None) -> dict[str, Any]:
    """Adherence over the ``days`` local days ending with ``today`` (the patient's today when None).

    Returns ``{"start", "end", "days", "overall", "by_medication", "by_day"}``: ``start`` and
    ``end`` are dates; ``overall`` is one count; ``by_medication`` a list of counts with ``id``,
    ``name`` and ``strength`` of each medication that had a dose in the period, by name;
    ``by_day`` one count with its ``date`` for every day of the period, oldest first, also for
    days with nothing due. A count is ``{"due", "taken", "skipped", "missed", "pending",
    "percent"}`` (see the module's docstring for what each means).
    """
    if days < 1:
        raise ValueError("days must be at least 1.")
    zone = patient_zone(user)
    if today is None:
        today = timezone.now().astimezone(zone).date()
    start = today - dt.timedelta(days=days - 1)
    # A day's doses are due between its local midnight and the next; one day of slack each side
    # finds rows without a recorded day whose zone offset moves them across the edge.
    lower = dt.datetime.combine(start - dt.timedelta(days=1), dt.time(), tzinfo=zone)
    upper = dt.datetime.combine(today + dt.timedelta(days=2), dt.time(), tzinfo=zone)
    rows = (
        DoseEvent.objects.filter(user=user, due_at__gte=lower, due_at__lt=upper)
        .select_related("reminder__medication")
        .only("due_on", "due_at", "state", "reminder__medication__name", "reminder__medication__strength")
    )
    overall = _counts()
    per_day: dict[dt.date, dict[str, int]] = {start + dt.timedelta(days=n): _counts() for n in range(days)}
    per_medication: dict[int, dict[str, Any]] = {}
    medications: dict[int, Any] = {}
    for dose in rows:
        day = dose.due_on or dose.due_at.astimezone(zone).date()
        if not start <= day <= today:
            continue
        medication = dose.reminder.medication
        medications[medication.pk] = medication
        buckets = (overall, per_day[day], per_medication.setdefault(medication.pk, _counts()))
        for counts in buckets:
            if dose.state in SETTLED:
                counts["due"] += 1
                counts[dose.state] += 1
            else:
                counts["pending"] += 1
    by_medication = [
        {"id": pk, "name": medications[pk].name, "strength": medications[pk].strength, **_finish(counts)}
        for pk, counts in sorted(per_medication.items(), key=lambda item: (medications[item[0]].name.lower(), item[0]))
    ]
    return {
        "start": start,
        "end": today,
        "days": days,
        "overall": _finish(overall),
        "by_medication": by_medication,
        "by_day": [{"date": day, **_finish(counts)} for day, counts in per_day.items()],
    }
