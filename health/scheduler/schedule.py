"""A medication the patient confirmed becomes reminders: the one path for a prescription's review page
and for the chat's reminder tool.

- Clock times are the patient's local times ("HH:MM", in ``PatientProfile.timezone``); when none
  are given they are the app's defaults for the number of doses a day (``times.default_times``),
  marked as defaults so the patient knows they can change them. An empty list means "as needed":
  the medication is listed, nothing is reminded.
- The course runs from ``start_date`` (the patient's today when not given) for ``duration_days``
  local days: the last day is ``start_date + duration_days - 1``; no duration means ongoing.
- Each clock time becomes one ``Reminder``; ``health.scheduler.dispatch`` fires them. A reminder
  owes no dose from before it was created, so a medication confirmed at 10:00 with a time of 08:00
  starts tomorrow morning, not with a late reminder.
- Anything invalid raises ``ScheduleError`` (a ``ValueError``) with a sentence the patient can
  read, and nothing is stored.
"""

from __future__ import annotations

import datetime as dt
import re

from django.db import transaction
from django.utils import timezone

from health.models import Medication, Prescription
from health.models.appointments import patient_zone
from health.scheduler import times as clock
from health.scheduler.times import MAX_TIMES_PER_DAY

# Re-exported: scheduling is where callers look for the default times (the parameter of the same
# name below is the flag that says the times are the defaults).
default_times = clock.default_times

__all__ = ["ScheduleError", "default_times", "parse_times", "schedule_medication", "update_times"]

CLOCK = re.compile(r"^([01]?\d|2[0-3])[:.]([0-5]\d)$")
MAX_DURATION_DAYS = 3650
_FOOD_TIMINGS = {choice.value for choice in Medication.FoodTiming}


class ScheduleError(ValueError):
    """The medication cannot be scheduled as given; the message says why, in the patient's terms."""


def _field_length(field: str) -> int:
    return Medication._meta.get_field(field).max_length


def _clean_times(values: list[str]) -> list[str]:
    times = []
    for value in values:
        match = CLOCK.match(str(value).strip())
        if not match:
            raise ScheduleError(f'"{value}" is not a time; write times like 08:00 or 20:30.')
        times.append(f"{int(match.group(1)):02d}:{match.group(2)}")
    if len(set(times)) != len(times):
        raise ScheduleError("Each time may appear once.")
    if len(times) > MAX_TIMES_PER_DAY:
        raise ScheduleError(f"At most {MAX_TIMES_PER_DAY} times a day.")
    return sorted(times)


def parse_times(text: str) -> list[str]:
    """ "8:00, 20:30" -> ["08:00", "20:30"]; an empty text is no times (as needed)."""
    return _clean_times([part for part in re.split(r"[,\s;]+", text.strip()) if part])


def _text(value: str | None, field: str, label: str) -> str:
    cleaned = (value or "").strip()
    if len(cleaned) > _field_length(field):
        raise ScheduleError(f"The {label} is too long (at most {_field_length(field)} characters).")
    return cleaned


def schedule_medication(
    user,
    *,
    name: str,
    strength: str = "",
    dose: str = "",
    times_per_day: int | None = None,
    clock_times: list[str] | None = None,
    default_times: bool = False,
    food_timing: str | None = None,
    duration_days: int | None = None,
    start_date: dt.date | None = None,
    instructions: str = "",
    prescription: Prescription | None = None,
) -> Medication:
    """Store one medication for ``user`` with a reminder at each clock time; return it.

    ``clock_times=None`` takes the default times for ``times_per_day`` (marked as defaults);
    ``[]`` schedules no reminders (as needed). Given times must number ``times_per_day`` when
    that is given. ``default_times`` says the given times are the app's defaults, not the
    patient's. Raises ``ScheduleError`` and stores nothing when a value is not acceptable.
    """
    name = _text(name, "name", "medicine's name")
    if not name:
        raise ScheduleError("Give the medicine's name.")
    strength = _text(strength, "strength", "strength")
    dose = _text(dose, "dose", "dose")
    instructions = _text(instructions, "instructions", "instructions")
    if times_per_day is not None and not 1 <= times_per_day <= MAX_TIMES_PER_DAY:
        raise ScheduleError(f"Times a day must be between 1 and {MAX_TIMES_PER_DAY}.")
    if clock_times is None:
        if times_per_day is None:
            raise ScheduleError("Say how many times a day, or at what times, to take it.")
        times, default_times = clock.default_times(times_per_day), True
    else:
        times = _clean_times(list(clock_times))
        if times and times_per_day is not None and len(times) != times_per_day:
            raise ScheduleError(f"Give {times_per_day} time(s), one for each dose a day.")
        default_times = bool(times) and default_times
    food = food_timing or Medication.FoodTiming.ANY
    if food not in _FOOD_TIMINGS:
        raise ScheduleError(f"Food timing must be one of {', '.join(sorted(_FOOD_TIMINGS))}.")
    if duration_days is not None and not 1 <= duration_days <= MAX_DURATION_DAYS:
        raise ScheduleError(f"The number of days must be between 1 and {MAX_DURATION_DAYS}.")
    if prescription is not None and prescription.user_id != user.pk:
        raise ScheduleError("That prescription is not this patient's.")
    if start_date is None:
        start_date = timezone.now().astimezone(patient_zone(user)).date()
    end_date = start_date + dt.timedelta(days=duration_days - 1) if duration_days else None
    with transaction.atomic():
        medication = Medication.objects.create(
            user=user,
            prescription=prescription,
            name=name,
            strength=strength,
            dose=dose,
            times_per_day=len(times) or times_per_day or 1,
            clock_times=times,
            default_times=default_times,
            food_timing=food,
            duration_days=duration_days,
            start_date=start_date,
            end_date=end_date,
            instructions=instructions,
        )
        medication.sync_reminders()
    return medication


def update_times(medication: Medication, text: str) -> Medication:
    """The patient set the medication's times ("08:00, 20:00"; empty: as needed, no reminders):
    they are the patient's own from now on. ``ScheduleError`` leaves the medication as it was."""
    medication.set_times(parse_times(text))
    return medication
