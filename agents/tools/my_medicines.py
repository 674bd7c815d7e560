"""The patient's own medicines today: list today's doses, mark one as taken.

What these tools tell the user is rendered from the stored rows (agents/templates/agents/medicines/),
never from a model's words: each dose is listed with its medicine and strength, the dose as stored
(nothing when none is stored) and its recorded state. A dose is marked taken with the same model
method as the Medications page's "Taken" button (``DoseEvent.take``), only for a dose that page
offers the button for (the patient's own, due today, not yet taken or skipped), and only after the
user answers a clear yes to the question, as the appointment tools ask before a change
(agents.tools.my_appointments). Doses later today have no dose record yet (the dispatcher creates
each when it falls due, health.scheduler.dispatch): they are listed as upcoming from the reminders,
and one can be marked taken early from the window before its time on, as with the page's "Taken
early" button (health.scheduler.ahead); its reminder then stays quiet.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.conf import settings
from django.template.loader import render_to_string
from django.urls import reverse

from agents.errors import InvalidArguments, NotFound
from agents.tools.context import ToolContext
from agents.tools.interaction import AskUser, clear_yes, resuming
from agents.tools.registry import tool
from health.models import DoseEvent, InvalidTransition, Medication, Reminder
from health.scheduler import ahead
from health.scheduler.ahead import current_medications

S = DoseEvent.State
# The states the Medications page shows a "Taken" button for (frontend/templates/frontend/medications.html).
MARKABLE_STATES = (S.DUE, S.SENT, S.SNOOZED, S.MISSED)
UPCOMING = "upcoming"
NOT_RECORDED = "not recorded yet"


def medications_page() -> str:
    """Where the patient sees today's doses and uploads a prescription (the frontend's Medications page)."""
    return reverse("medications")


@dataclass(frozen=True)
class TodaysDose:
    """One of today's doses: its dose record when there is one (None: its time has not come yet, or
    the dispatcher has not run since), the medication, its local due time and its state in words;
    without a record, its reminder and whether it can be marked taken already (``early``)."""

    medication: Medication
    at: dt.datetime
    event: DoseEvent | None
    status: str
    reminder: Reminder | None = None
    early: bool = False

    @property
    def time(self) -> str:
        return f"{self.at:%H:%M}"

    @property
    def markable(self) -> bool:
        if self.event is None:
            return self.early and self.reminder is not None
        return self.event.state in MARKABLE_STATES

    @property
    def line(self) -> str:
        """ "08:00 Metformin 500 mg, 1 tablet": the dose as the patient reads it, without its state."""
        dose = f", {self.medication.dose}" if self.medication.dose else ""
        return f"{self.time} {self.medication}{dose}"

    def describe(self) -> dict[str, str]:
        food = self.medication.food_timing
        return {
            "dose_id": str(self.event.pk) if self.event is not None else "",
            "reminder_id": str(self.reminder.pk) if self.event is None and self.reminder is not None else "",
            "medicine": str(self.medication),
            "dose": self.medication.dose,
            "time": self.time,
            "food": "" if food == Medication.FoodTiming.ANY else self.medication.get_food_timing_display().lower(),
            "status": self.status,
        }


def status_of(event: DoseEvent, tz) -> str:
    """The dose record's state in the words of the Medications page ("reminder sent", "snoozed until 08:30")."""
    words = event.get_state_display().lower()
    if event.state == S.SNOOZED and event.snoozed_until is not None:
        words += f" until {event.snoozed_until.astimezone(tz):%H:%M}"
    return words


def todays_doses(user, now: dt.datetime, tz) -> list[TodaysDose]:
    """Today's doses in the patient's time zone, earliest first: every dose record of today (as the
    Medications page lists them), then each dose owed today that has no record yet
    (health.scheduler.ahead): upcoming when its time is still to come, "not recorded yet" when it
    has passed and the dispatcher has not run since."""
    today = now.astimezone(tz).date()
    events = list(
        DoseEvent.objects.filter(user=user, due_on=today).select_related("reminder__medication").order_by("due_at")
    )
    found = [TodaysDose(e.reminder.medication, e.due_at.astimezone(tz), e, status_of(e, tz)) for e in events]
    for owed in ahead.owed_today(user, now, tz):
        status = UPCOMING if owed.due_at > now else NOT_RECORDED
        found.append(TodaysDose(owed.medication, owed.due_at.astimezone(tz), None, status, owed.reminder, owed.early))
    return sorted(found, key=lambda d: (d.at, str(d.medication)))


def as_needed(user, today: dt.date) -> list[str]:
    """Current medications without set times (taken as needed): no dose is due, so none is listed."""
    return [str(m) for m in current_medications(user, today) if not m.clock_times]


def listing(user, now: dt.datetime, tz, doses: list[TodaysDose] | None = None) -> str:
    """The words of today's doses (agents/medicines/today.txt), on one line."""
    today = now.astimezone(tz).date()
    doses = todays_doses(user, now, tz) if doses is None else doses
    upcoming_now = [d for d in doses if d.status == UPCOMING]
    next_up = None if upcoming_now else ahead.next_dose(user, now, tz)
    context = {
        "doses": [d.describe() for d in doses],
        # none left to come today: the first of tomorrow, as the home page says it
        "tomorrow": next_up.reminder if next_up is not None and next_up.tomorrow else None,
        "as_needed": as_needed(user, today),
        "has_medications": bool(current_medications(user, today)),
        "date": f"{today:%A} {today.day} {today:%B}",
        "zone": getattr(tz, "key", str(tz)),
        "page": medications_page(),
    }
    return " ".join(render_to_string("agents/medicines/today.txt", context).split())


def photo_help() -> str:
    """Where to upload a prescription photo and what happens then (agents/medicines/photo.txt)."""
    context = {"page": medications_page(), "max_mb": settings.PRESCRIPTION_MAX_MB}
    return " ".join(render_to_string("agents/medicines/photo.txt", context).split())


def _dose_message(name: str, dose: TodaysDose, **extra) -> str:
    context = {"dose": dose.describe(), "event": dose.event, **extra}
    return " ".join(render_to_string(f"agents/medicines/{name}", context).split())


@tool(offered=False)
def get_todays_doses(ctx: ToolContext, user_id: str) -> dict:
    """Lists the user's medicine doses for today, with each dose's time and recorded state.

    Args:
        user_id: Unique identifier for the user.
    """
    ctx.check_user(user_id)
    now, tz = ctx.now(), ctx.tz
    doses = todays_doses(ctx.user, now, tz)
    return {
        "doses": [d.describe() for d in doses],
        "count": len(doses),
        "message": listing(ctx.user, now, tz, doses),
    }


def _own(ctx: ToolContext, dose_id: str) -> TodaysDose:
    """The user's own dose record ``dose_id``; NotFound for anyone else's, or none."""
    try:
        event = DoseEvent.objects.select_related("reminder__medication").get(
            pk=int(str(dose_id).strip()), user=ctx.user
        )
    except (ValueError, DoseEvent.DoesNotExist) as exc:
        raise NotFound(f"The user has no dose {dose_id!r}.") from exc
    tz = ctx.tz
    return TodaysDose(event.reminder.medication, event.due_at.astimezone(tz), event, status_of(event, tz))


def _current(ctx: ToolContext, dose_id: str, reminder_id: str) -> TodaysDose:
    """The dose as the records hold it now (it may have been reminded, or marked on the page, meanwhile)."""
    if dose_id:
        return _own(ctx, dose_id)
    for dose in todays_doses(ctx.user, ctx.now(), ctx.tz):
        reminder = dose.reminder if dose.event is None else dose.event.reminder
        if reminder is not None and str(reminder.pk) == str(reminder_id).strip():
            return dose
    raise NotFound(f"The user has no dose of reminder {reminder_id!r} today.")


def _problem(ctx: ToolContext, dose: TodaysDose) -> str:
    """Why ``dose`` cannot be marked now, or "" when it can."""
    if dose.event is None:
        if dose.markable:
            return ""
        minutes = ahead.early_minutes()
        return f"it is due at {dose.time}; a dose can be marked taken up to {minutes} minutes before its time."
    if not dose.markable:
        return f"this dose is {dose.status} already."
    if dose.event.due_on != ctx.now().astimezone(ctx.tz).date() or dose.event.due_at > ctx.now():
        return "only a dose due today can be marked, as on the Medications page."
    return ""


def _take(ctx: ToolContext, dose_id: str, reminder_id: str) -> DoseEvent:
    """Mark the dose taken: its record, or, for a dose with none yet, a record made taken (its reminder stays quiet)."""
    if dose_id:
        return _own(ctx, dose_id).event.take()
    return ahead.take_early(ctx.user, int(str(reminder_id).strip()), ctx.now())


@tool(offered=False)
def mark_dose_taken(ctx: ToolContext, user_id: str, dose_id: str = "", reminder_id: str = "") -> AskUser:
    """Asks the user to confirm, then records one of today's doses as taken.

    Args:
        user_id: Unique identifier for the user.
        dose_id: The dose's id, as get_todays_doses lists it.
        reminder_id: For a dose with no dose id yet (later today), its reminder's id, as get_todays_doses lists it.
    """
    ctx.check_user(user_id)
    if not str(dose_id).strip() and not str(reminder_id).strip():
        raise InvalidArguments("Give the dose's dose_id, or for a dose later today its reminder_id.")
    # A dose named by its reminder may have its record by now (the dispatcher made it): found either way.
    dose = _current(ctx, str(dose_id).strip(), reminder_id)
    early = " now, before its reminder" if dose.event is None and dose.status == UPCOMING else ""
    question = f"Mark your {dose.time} {dose.medication} dose as taken{early}? Reply yes to mark it, or no."
    problem = _problem(ctx, dose)
    if problem:
        if resuming(ctx):
            # It changed while the question waited (the Medications page, the dispatcher, midnight):
            # the answer marks nothing, and says why.
            return AskUser(
                question=question,
                answer=lambda reply: {
                    "status": "not marked",
                    "user": reply,
                    "question": question,
                    "message": f"Not marked: {problem}",
                },
            )
        raise InvalidArguments(f"Nothing to mark: {problem}")

    def answer(reply: str) -> dict:
        if not clear_yes(reply):
            return {
                "status": "not marked",
                "user": reply,
                "question": question,
                "message": _dose_message("not_marked.txt", _current(ctx, str(dose_id).strip(), reminder_id)),
            }
        try:
            event = _take(ctx, str(dose_id).strip(), reminder_id)
        except InvalidTransition as exc:
            return {"status": "not marked", "user": reply, "question": question, "message": f"Not marked: {exc}"}
        current = _own(ctx, str(event.pk))  # read back: the message says what the record holds
        return {
            "status": current.event.state,
            "user": reply,
            "question": question,
            "message": _dose_message("marked.txt", current, acted=f"{current.event.acted_at.astimezone(ctx.tz):%H:%M}"),
        }

    return AskUser(question=question, answer=answer)
