"""Tools over the Health Manager's data: medication reminders, vitals, daily reports."""

from __future__ import annotations

import datetime as dt

from django.db import transaction

from agents.tools.appointments import _parse_date, _parse_time
from agents.tools.context import ToolContext
from agents.tools.errors import InvalidArguments, NotFound
from agents.tools.registry import tool
from health.models import DailyReport, Medication, Reminder, VitalReading

_FOOD_TIMINGS = {choice.value for choice in Medication.FoodTiming}


@tool
def set_medication_reminder(
    ctx: ToolContext,
    user_id: str,
    medicine_name: str,
    times: list[str],
    dose: str | None = None,
    duration_days: int | None = None,
    food_timing: str | None = None,
    start_date: str | None = None,
) -> dict:
    """Adds a medication to the user's list with a daily reminder at each given time.

    Args:
        user_id: Unique identifier for the user.
        medicine_name: Name (and strength) of the medicine, e.g. 'Amoxicillin 500 mg'.
        times: Local times of day to take it, each 'HH:MM', e.g. ['08:00', '20:00'].
        dose: How much to take each time, e.g. '1 tablet'.
        duration_days: For how many days to take it; omit for ongoing medication.
        food_timing: One of 'before', 'with', 'after' or 'any' (food).
        start_date: First day, 'YYYY-MM-DD'; today if omitted.
    """
    ctx.check_user(user_id)
    clock_times = sorted({_parse_time(value) for value in times})
    if not clock_times or len(clock_times) > 12:
        raise InvalidArguments("times must list between 1 and 12 times of day.")
    if food_timing is not None and food_timing not in _FOOD_TIMINGS:
        raise InvalidArguments(f"food_timing must be one of {sorted(_FOOD_TIMINGS)}.")
    if duration_days is not None and not 1 <= duration_days <= 3650:
        raise InvalidArguments("duration_days must be between 1 and 3650.")
    start = _parse_date(start_date) if start_date else ctx.now().astimezone(ctx.tz).date()
    end = start + dt.timedelta(days=duration_days - 1) if duration_days else None
    with transaction.atomic():
        medication, _ = Medication.objects.get_or_create(
            user=ctx.user,
            name=medicine_name.strip()[:120],
            start_date=start,
            defaults={
                "dose": (dose or "")[:40],
                "times_per_day": len(clock_times),
                "clock_times": [f"{t:%H:%M}" for t in clock_times],
                "food_timing": food_timing or Medication.FoodTiming.ANY,
                "duration_days": duration_days,
                "end_date": end,
            },
        )
        for moment in clock_times:
            Reminder.objects.get_or_create(medication=medication, time_of_day=moment)
    return {"medicine": medication.name, "reminder_times": [f"{t:%H:%M}" for t in clock_times]}


@tool
def get_latest_vitals(ctx: ToolContext, user_id: str) -> dict:
    """Fetches the user's most recent vitals (heart rate, SpO2, blood pressure).

    Args:
        user_id: Unique identifier for the user.
    """
    ctx.check_user(user_id)
    readings = VitalReading.objects.filter(user=ctx.user).order_by("-measured_at")
    result: dict = {}
    for field in ("heart_rate", "spo2", "systolic_bp", "diastolic_bp"):
        reading = readings.filter(**{f"{field}__isnull": False}).first()
        if reading is not None:
            result[field] = getattr(reading, field)
            result[f"{field}_measured_at"] = reading.measured_at.astimezone(ctx.tz).isoformat(timespec="minutes")
    if not result:
        raise NotFound("No vitals have been recorded yet.")
    return result


@tool
def get_daily_report(ctx: ToolContext, user_id: str, date: str | None = None) -> dict:
    """Fetches the user's daily health report for a date (the latest one if no date is given).

    Args:
        user_id: Unique identifier for the user.
        date: The report's date, 'YYYY-MM-DD'.
    """
    ctx.check_user(user_id)
    reports = DailyReport.objects.filter(user=ctx.user).order_by("-date")
    report = reports.filter(date=_parse_date(date)).first() if date else reports.first()
    if report is None:
        raise NotFound(f"No daily report {'for ' + date if date else 'yet'}.")
    return {
        "date": report.date.isoformat(),
        "metrics": report.metrics,
        "anomalies": report.anomalies,
        "summary": report.narrative,
    }
