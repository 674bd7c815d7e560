"""The series the report's charts draw: the day's vitals in 15-minute buckets, and trends over days.

Both are read for display only (the report's figures are ``health.reports.facts``'). The day's
series is aggregated in the database, so a day of 1 Hz readings comes back as at most 96 rows; the
trends come from the stored reports' facts, so a day without a report is a gap, never a 0.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.db.models import Avg, Max, Min, Q
from django.db.models.functions import ExtractHour, ExtractMinute, Floor

from health.models import DailyReport, VitalReading
from health.models.appointments import patient_zone
from health.monitor.rules import GLITCH_HEART_RATE_BELOW
from health.reports.facts import day_bounds

BUCKET_MINUTES = 15


@dataclass(frozen=True)
class Point:
    """One bucket: its start in minutes after local midnight and its mean, low and high value."""

    minute: int
    mean: float
    low: float
    high: float


def day_series(report: DailyReport) -> dict[str, list[Point]]:
    """Heart rate, SpO2 and systolic/diastolic blood pressure of the report's day, per 15 minutes,
    up to what the report covers (buckets without a reading are left out)."""
    zone = patient_zone(report.user)
    start, end = day_bounds(report.date, zone)
    if report.covers_until is not None:
        end = min(end, report.covers_until)
    readings = VitalReading.objects.filter(user=report.user, measured_at__gte=start, measured_at__lt=end)
    buckets = readings.annotate(
        hour=ExtractHour("measured_at", tzinfo=zone),
        quarter=Floor(ExtractMinute("measured_at", tzinfo=zone) / BUCKET_MINUTES),
    ).values("hour", "quarter")
    series: dict[str, list[Point]] = {}
    fields = {
        "heart_rate": Q(heart_rate__gte=GLITCH_HEART_RATE_BELOW),
        "spo2": Q(spo2__isnull=False),
        "systolic_bp": Q(systolic_bp__isnull=False),
        "diastolic_bp": Q(diastolic_bp__isnull=False),
    }
    for field, present in fields.items():
        rows = (
            buckets.filter(present)
            .annotate(mean=Avg(field), low=Min(field), high=Max(field))
            .order_by("hour", "quarter")
        )
        series[field] = [
            Point(
                int(row["hour"]) * 60 + int(row["quarter"]) * BUCKET_MINUTES,
                float(row["mean"]),
                float(row["low"]),
                float(row["high"]),
            )
            for row in rows
        ]
    return series


# What each trend reads from a report's facts.
TRENDS: dict[str, tuple[str, ...]] = {
    "resting_heart_rate": ("heart_rate", "resting"),
    "mean_heart_rate": ("heart_rate", "mean"),
    "spo2_mean": ("spo2", "mean"),
    "systolic_mean": ("blood_pressure", "systolic_mean"),
    "steps": ("steps",),
    "sleep_minutes": ("sleep_minutes",),
    "adherence": ("doses", "adherence"),
}


def _dig(facts: dict[str, Any], path: tuple[str, ...]) -> float | None:
    value: Any = facts
    for key in path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def trends(user, end: dt.date, days: int) -> dict[str, Any]:
    """``{"dates": [...], <trend>: [value or None per date]}`` over the ``days`` days ending with ``end``."""
    dates = [end - dt.timedelta(days=n) for n in range(days - 1, -1, -1)]
    stored = dict(
        DailyReport.objects.filter(user=user, date__gte=dates[0], date__lte=end).values_list("date", "metrics")
    )
    result: dict[str, Any] = {"dates": dates}
    for name, path in TRENDS.items():
        result[name] = [_dig(stored[day], path) if day in stored else None for day in dates]
    return result
