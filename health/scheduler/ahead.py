"""Doses later today, and recording one taken before its reminder goes off.

The dispatcher makes each dose's row when it falls due (``health.scheduler.dispatch``), so a dose
still to come has no row. A patient who takes the evening tablet with an early dinner should not be
reminded of it half an hour later, nor told it was missed: up to ``DOSE_EARLY_MINUTES`` before its
time a dose can be recorded as taken (``DoseEvent.take_ahead``), and its reminder then stays quiet.
Further ahead the dose is listed as later today and cannot be marked: a tap on the wrong line
should not silence a reminder hours away.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.conf import settings
from django.db.models import Q

from health.models import DoseEvent, InvalidTransition, Medication, Reminder
from health.models.appointments import patient_zone
from health.scheduler.dispatch import local_due_time


def early_minutes() -> int:
    """How many minutes before its time a dose can be recorded as taken (``DOSE_EARLY_MINUTES``)."""
    return int(getattr(settings, "DOSE_EARLY_MINUTES", 120))


def early_window() -> dt.timedelta:
    return dt.timedelta(minutes=early_minutes())


def current_medications(user, today: dt.date) -> list[Medication]:
    """The medications the patient takes on ``today`` (active, within their dates), with their reminders."""
    return list(
        Medication.objects.filter(user=user, active=True, start_date__lte=today)
        .filter(Q(end_date__isnull=True) | Q(end_date__gte=today))
        .prefetch_related("reminders")
    )


@dataclass(frozen=True)
class OwedDose:
    """A dose of today that has no row yet: its reminder, when it is due (UTC) and whether it can be
    recorded as taken now (from the early window on; a dose whose time has passed and that the
    dispatcher has not made yet can be, too)."""

    reminder: Reminder
    due_at: dt.datetime
    early: bool

    @property
    def medication(self) -> Medication:
        return self.reminder.medication


def owed_today(user, now: dt.datetime, zone=None) -> list[OwedDose]:
    """Today's doses (the patient's local day) that have no row yet, earliest first: those still to
    come, and those whose time has passed since the dispatcher last ran. A reminder switched on after
    today's time owes no dose today."""
    zone = zone or patient_zone(user)
    today = now.astimezone(zone).date()
    made = set(DoseEvent.objects.filter(user=user, due_on=today).values_list("reminder_id", flat=True))
    found = []
    for medication in current_medications(user, today):
        for reminder in medication.reminders.all():
            if not reminder.enabled or reminder.pk in made:
                continue
            due = local_due_time(today, reminder.time_of_day, zone)
            if due > now or due > reminder.checked_until:
                found.append(OwedDose(reminder, due, due - now <= early_window()))
    return sorted(found, key=lambda u: (u.due_at, str(u.medication)))


def upcoming(user, now: dt.datetime, zone=None) -> list[OwedDose]:
    """Today's doses still to come, earliest first."""
    return [dose for dose in owed_today(user, now, zone) if dose.due_at > now]


@dataclass(frozen=True)
class NextDose:
    """The next dose to be reminded: its reminder, and whether it is tomorrow's first."""

    reminder: Reminder
    tomorrow: bool


def next_dose(user, now: dt.datetime, zone=None) -> NextDose | None:
    """The first dose still owed today (not one taken early), else the first of tomorrow; None when
    no medicine has a reminder tomorrow either. What the home page and the chat say comes next."""
    zone = zone or patient_zone(user)
    later = upcoming(user, now, zone)
    if later:
        return NextDose(later[0].reminder, tomorrow=False)
    tomorrow = now.astimezone(zone).date() + dt.timedelta(days=1)
    reminders = [r for m in current_medications(user, tomorrow) for r in m.reminders.all() if r.enabled]
    if not reminders:
        return None
    return NextDose(min(reminders, key=lambda r: (r.time_of_day, str(r.medication))), tomorrow=True)


def take_early(user, reminder_id: int, now: dt.datetime) -> DoseEvent:
    """Record today's dose of the patient's reminder ``reminder_id`` as taken before it has a row.
    ``InvalidTransition`` says why not: not the patient's, no dose of it left today, or too far ahead."""
    zone = patient_zone(user)
    today = now.astimezone(zone).date()
    for dose in owed_today(user, now, zone):
        if dose.reminder.pk != reminder_id:
            continue
        if not dose.early:
            minutes = early_minutes()
            raise InvalidTransition(
                f"{dose.medication} is due at {dose.due_at.astimezone(zone):%H:%M}: a dose can be recorded as "
                f"taken up to {minutes} minutes before its time."
            )
        return DoseEvent.take_ahead(dose.reminder, today, dose.due_at)
    made = DoseEvent.objects.filter(user=user, reminder_id=reminder_id, due_on=today).first()
    if made is not None:
        return made.take()  # it was made meanwhile: taken as usual, or refused with its state
    raise InvalidTransition("There is no dose of that medicine left to take today.")
