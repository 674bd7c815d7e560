"""The computed facts of one patient's day: every number of the daily report comes from here.

The day is the patient's local day (``PatientProfile.timezone``), from local midnight to the next
midnight, or to ``until`` when the report is written before the day is over. Everything is read
from the recorded rows, with the vitals aggregated in the database (86,400 readings a day at 1 Hz
never travel to Python). A measure without a reading is ``None``, never 0:

- **heart rate**: min, mean and max of the readings of at least 20 bpm (below that a watch has lost
  skin contact: the monitor's glitch threshold, ``health.monitor.rules``). **Resting** heart rate
  is the 10th percentile of the day's at-rest readings (no steps counted in the reading): the rate
  that nine in ten quiet moments are at or above. A low percentile rather than the minimum, so one
  odd reading does not set it; at-rest only, so a day of walking does not raise it.
- **SpO2**: min and mean, and ``minutes_below_92``: how many clock minutes held at least one reading
  below 92 % (the level at which the monitor clears a hypoxia episode).
- **blood pressure**: mean systolic and diastolic (whole mmHg), the highest systolic and the reading it
  was in.
- **steps**: the sum of the steps counted in the readings; **sleep**: minutes per stage as the
  watch reported them (a night crossing midnight is split at midnight), ``sleep_minutes`` being the
  minutes asleep (every stage but awake).
- **alerts** raised in the day with their recorded outcome; **doses** of the day from
  ``health.scheduler.adherence``; **appointments** booked in the day or starting in it or in the
  week after; **symptoms** the patient reported; the **conversations**' key points, which the
  Action Manager provides through ``health.reports.hooks`` (None when no provider is registered).
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from typing import Any

from django.db.models import Avg, Count, Max, Min, Q, QuerySet, Sum
from django.db.models.functions import TruncMinute
from django.utils import timezone

from health.models import Alert, Appointment, SymptomRecord, VitalReading
from health.models.appointments import format_when, patient_zone
from health.monitor.rules import GLITCH_HEART_RATE_BELOW
from health.reports import hooks
from health.scheduler.adherence import adherence

SPO2_LOW = 92
RESTING_PERCENTILE = 0.10
COMING_DAYS = 7


class ReportError(ValueError):
    """A report that cannot be built (a day that has not started yet)."""


def day_bounds(day: dt.date, zone: zoneinfo.ZoneInfo) -> tuple[dt.datetime, dt.datetime]:
    """Local midnight of ``day`` and of the next day, as aware datetimes (23 or 25 hours apart on
    the days the clocks change)."""
    start = dt.datetime.combine(day, dt.time(), tzinfo=zone)
    end = dt.datetime.combine(day + dt.timedelta(days=1), dt.time(), tzinfo=zone)
    return start, end


def _round(value: float | None, places: int = 1) -> float | int | None:
    if value is None:
        return None
    rounded = round(float(value), places)
    return int(rounded) if rounded == int(rounded) else rounded


def _percentile(rows: QuerySet, field: str, fraction: float) -> float | None:
    """The ``fraction`` percentile (nearest rank) of ``field`` over ``rows``, in two indexed queries."""
    count = rows.count()
    if not count:
        return None
    rank = min(count - 1, int(fraction * count))
    return rows.order_by(field).values_list(field, flat=True)[rank]


def vitals(readings: QuerySet) -> dict[str, Any]:
    """The vitals part of the facts from the day's readings (see the module's docstring)."""
    heart = readings.filter(heart_rate__gte=GLITCH_HEART_RATE_BELOW)
    totals = readings.aggregate(
        hr_n=Count("heart_rate", filter=Q(heart_rate__gte=GLITCH_HEART_RATE_BELOW)),
        hr_min=Min("heart_rate", filter=Q(heart_rate__gte=GLITCH_HEART_RATE_BELOW)),
        hr_mean=Avg("heart_rate", filter=Q(heart_rate__gte=GLITCH_HEART_RATE_BELOW)),
        hr_max=Max("heart_rate", filter=Q(heart_rate__gte=GLITCH_HEART_RATE_BELOW)),
        spo2_n=Count("spo2"),
        spo2_min=Min("spo2"),
        spo2_mean=Avg("spo2"),
        bp_n=Count("systolic_bp"),
        sys_mean=Avg("systolic_bp"),
        dia_mean=Avg("diastolic_bp"),
        sys_max=Max("systolic_bp"),
        steps=Sum("steps"),
    )
    at_rest = heart.filter(Q(steps__isnull=True) | Q(steps=0))
    low_minutes = (
        readings.filter(spo2__lt=SPO2_LOW)
        .annotate(minute=TruncMinute("measured_at", tzinfo=dt.UTC))
        .values("minute")
        .distinct()
        .count()
        if totals["spo2_n"]
        else None
    )
    highest = (
        readings.filter(systolic_bp__isnull=False)
        .order_by("-systolic_bp", "-diastolic_bp")
        .values("systolic_bp", "diastolic_bp")
        .first()
    )
    stages = {
        row["sleep_stage"]: _round(row["minutes"])
        for row in readings.filter(sleep_minutes__isnull=False)
        .exclude(sleep_stage="")
        .values("sleep_stage")
        .annotate(minutes=Sum("sleep_minutes"))
    }
    asleep = [minutes for stage, minutes in stages.items() if stage != VitalReading.SleepStage.AWAKE]
    return {
        "heart_rate": {
            "min": totals["hr_min"],
            "mean": _round(totals["hr_mean"]),
            "max": totals["hr_max"],
            "resting": _round(_percentile(at_rest, "heart_rate", RESTING_PERCENTILE)),
            "readings": totals["hr_n"],
        },
        "spo2": {
            "min": _round(totals["spo2_min"]),
            "mean": _round(totals["spo2_mean"]),
            "minutes_below_92": low_minutes,
            "readings": totals["spo2_n"],
        },
        "blood_pressure": {
            # Whole mmHg, as blood pressure is read and written everywhere.
            "systolic_mean": _round(totals["sys_mean"], 0),
            "diastolic_mean": _round(totals["dia_mean"], 0),
            "systolic_max": totals["sys_max"],
            "highest": {"systolic": highest["systolic_bp"], "diastolic": highest["diastolic_bp"]} if highest else None,
            "readings": totals["bp_n"],
        },
        "steps": totals["steps"],
        "sleep_minutes": _round(sum(asleep)) if stages else None,
        "sleep_stages": {stage: stages.get(stage) for stage in VitalReading.SleepStage.values} if stages else None,
    }


def _outcome(alert: Alert) -> str:
    """What became of an alert, from its recorded state (and the patient's reason for ending a hard SOS)."""
    if alert.end_reason:
        return f"{alert.get_state_display()}: {alert.get_end_reason_display()}"
    return alert.get_state_display()


def alerts(user, start: dt.datetime, end: dt.datetime, zone: zoneinfo.ZoneInfo) -> list[dict[str, Any]]:
    rows = Alert.objects.filter(user=user, created_at__gte=start, created_at__lt=end).order_by("created_at")
    return [
        {
            "kind": alert.kind,
            "kind_label": alert.get_kind_display(),
            "condition": alert.condition,
            "started_at": alert.created_at.astimezone(zone).isoformat(timespec="seconds"),
            "time": f"{alert.created_at.astimezone(zone):%H:%M}",
            "state": alert.state,
            "outcome": _outcome(alert),
        }
        for alert in rows
    ]


def doses(user, day: dt.date) -> dict[str, Any]:
    counts = adherence(user, days=1, today=day)
    overall = counts["overall"]
    return {
        "due": overall["due"],
        "taken": overall["taken"],
        "missed": overall["missed"],
        "skipped": overall["skipped"],
        "pending": overall["pending"],
        "adherence": overall["percent"],
        "by_medication": [
            {key: item[key] for key in ("name", "strength", "taken", "missed", "skipped", "pending", "percent")}
            for item in counts["by_medication"]
        ],
    }


def appointments(user, start: dt.datetime, end: dt.datetime, zone: zoneinfo.ZoneInfo) -> list[dict[str, Any]]:
    coming_until = end + dt.timedelta(days=COMING_DAYS)
    rows = (
        Appointment.objects.filter(user=user)
        .filter(
            Q(created_at__gte=start, created_at__lt=end)
            | Q(slot__starts_at__gte=start, slot__starts_at__lt=coming_until, state__in=Appointment.HOLDING_STATES)
        )
        .select_related("slot", "specialist__specialization")
        .order_by("slot__starts_at")
    )
    return [
        {
            "specialist": appointment.specialist.name,
            "specialization": appointment.specialist.specialization.name,
            "hospital": appointment.specialist.hospital,
            "starts_at": appointment.slot.starts_at.astimezone(zone).isoformat(timespec="minutes"),
            "when": format_when(appointment.slot.starts_at, appointment.slot.ends_at, zone),
            "state": appointment.state,
            "state_label": appointment.get_state_display(),
            "booked_this_day": start <= appointment.created_at < end,
        }
        for appointment in rows
    ]


def symptoms(user, start: dt.datetime, end: dt.datetime, zone: zoneinfo.ZoneInfo) -> list[dict[str, Any]]:
    rows = SymptomRecord.objects.filter(user=user, recorded_at__gte=start, recorded_at__lt=end).order_by("recorded_at")
    return [
        {"time": f"{record.recorded_at.astimezone(zone):%H:%M}", "symptoms": record.symptoms, "text": record.text}
        for record in rows
    ]


def compute(user, day: dt.date, *, now: dt.datetime | None = None) -> dict[str, Any]:
    """The facts of ``user``'s local ``day``, up to ``now`` when the day is not over yet.

    Raises ReportError for a day that has not started in the patient's zone."""
    zone = patient_zone(user)
    now = now or timezone.now()
    start, day_end = day_bounds(day, zone)
    if now < start:
        raise ReportError(f"{day.isoformat()} has not started yet in {zone.key}.")
    end = min(now, day_end)
    readings = VitalReading.objects.filter(user=user, measured_at__gte=start, measured_at__lt=end)
    return {
        "date": day.isoformat(),
        "time_zone": zone.key,
        "covers_until": end.astimezone(zone).isoformat(timespec="minutes"),
        "complete": end == day_end,
        **vitals(readings),
        "alerts": alerts(user, start, end, zone),
        "doses": doses(user, day),
        "appointments": appointments(user, start, end, zone),
        "symptoms": symptoms(user, start, end, zone),
        "conversations": hooks.conversation_points(user.pk, start, end),
    }
