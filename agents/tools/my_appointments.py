"""The patient's own appointments: list the upcoming ones, cancel one, move one to another time.

What these tools tell the user is rendered from the appointment records after the change (the
same templates as the appointment notifications), never from a model's words: "cancelled" is said
only of an appointment whose stored state is cancelled, and a moved appointment keeps its state
("still held", "still confirmed"). Cancelling and moving ask first, like a text to a contact
(agents.tools.emergency): the run suspends on the question and the change is made only on a clear
yes; any other answer changes nothing.
"""

from __future__ import annotations

from typing import Any

from django.template.loader import render_to_string
from django.utils import timezone

from agents.errors import InvalidArguments, NotFound, ToolError
from agents.tools.appointments import parse_time_date, specialist_label
from agents.tools.context import ToolContext
from agents.tools.interaction import AskUser, clear_yes, resuming
from agents.tools.registry import tool
from health.models import Appointment, InvalidTransition, Slot, SlotUnavailable

# How many upcoming appointments a list shows (the Appointments page shows them all).
LISTED = 5


def upcoming(user, now=None) -> list[Appointment]:
    """The patient's held or confirmed appointments that have not started, soonest first."""
    return list(
        Appointment.objects.filter(
            user=user, state__in=Appointment.ACTIVE_STATES, slot__starts_at__gt=now or timezone.now()
        )
        .select_related("slot", "specialist__specialization")
        .order_by("slot__starts_at", "pk")
    )


def describe(appointment: Appointment) -> dict[str, str]:
    """One appointment as the tools report it: from the record, with its state in words."""
    specialist = appointment.specialist
    return {
        "appointment_id": str(appointment.pk),
        "specialist": specialist_label(specialist),
        "specialization": specialist.specialization.name,
        "where": ", ".join(part for part in (specialist.hospital, specialist.address) if part),
        "when": appointment.when_text(),
        "status": appointment.get_state_display(),
    }


def listing(appointments: list[Appointment]) -> str:
    """The words of a list of appointments (agents/appointments/upcoming.txt), on one line."""
    shown = [describe(a) for a in appointments[:LISTED]]
    text = render_to_string(
        "agents/appointments/upcoming.txt", {"shown": shown, "more": max(0, len(appointments) - LISTED)}
    )
    return " ".join(text.split())


def _own(ctx: ToolContext, appointment_id: str) -> Appointment:
    try:
        return Appointment.objects.select_related("slot", "specialist__specialization").get(
            pk=int(str(appointment_id).strip()), user=ctx.user
        )
    except (ValueError, Appointment.DoesNotExist) as exc:
        raise NotFound(f"The user has no appointment {appointment_id!r}.") from exc


def _notice(appointment: Appointment, event: str, **extra: Any) -> str:
    context = {"appointment": appointment, "event": event, **extra}
    return " ".join(render_to_string("health/appointments/notification_body.txt", context).split())


def _changed_meanwhile(question: str, status: str, message: str) -> AskUser:
    """The question's answer when the appointment changed while it waited: nothing is done."""
    return AskUser(
        question=question,
        answer=lambda reply: {"status": status, "user": reply, "question": question, "message": message},
    )


@tool(offered=False)
def get_upcoming_appointments(ctx: ToolContext, user_id: str) -> dict:
    """Lists the user's upcoming appointments (held or confirmed), soonest first.

    Args:
        user_id: Unique identifier for the user.
    """
    ctx.check_user(user_id)
    found = upcoming(ctx.user, ctx.now())
    return {"appointments": [describe(a) for a in found[:LISTED]], "count": len(found), "message": listing(found)}


@tool(offered=False)
def cancel_appointment(ctx: ToolContext, user_id: str, appointment_id: str) -> AskUser:
    """Asks the user to confirm, then cancels one of their upcoming appointments.

    Args:
        user_id: Unique identifier for the user.
        appointment_id: The appointment's id, as get_upcoming_appointments lists it.
    """
    ctx.check_user(user_id)
    appointment = _own(ctx, appointment_id)
    if not appointment.is_active:
        problem = f"this appointment is {appointment.get_state_display().lower()} already."
        if resuming(ctx):  # it changed while the question waited (the Appointments page)
            return _changed_meanwhile("Cancel this appointment?", "not cancelled", f"Not cancelled: {problem}")
        raise InvalidArguments(f"Nothing to cancel: {problem}")
    about = f"{specialist_label(appointment.specialist)} on {appointment.when_text()}"
    question = f"Cancel your appointment with {about}? Reply yes to cancel it, or no."

    def answer(reply: str) -> dict:
        current = _own(ctx, appointment_id)
        if not clear_yes(reply):
            return {
                "status": "not cancelled",
                "user": reply,
                "question": question,
                "message": f"Not cancelled: your appointment with {about} stays {current.get_state_display().lower()}.",
            }
        try:
            current.cancel()
        except InvalidTransition as exc:
            return {"status": "not cancelled", "user": reply, "question": question, "message": f"Not cancelled: {exc}"}
        current.refresh_from_db()
        return {
            "status": current.state,
            "user": reply,
            "question": question,
            "message": _notice(current, current.state),
        }

    return AskUser(question=question, answer=answer)


@tool(offered=False)
def reschedule_appointment(ctx: ToolContext, user_id: str, appointment_id: str, appointment_time_date: str) -> AskUser:
    """Asks the user to confirm, then moves one of their appointments to another free time of the same specialist.

    Args:
        user_id: Unique identifier for the user.
        appointment_id: The appointment's id, as get_upcoming_appointments lists it.
        appointment_time_date: The new time, e.g. '14:00-14:30, 04/12/2026'.
    """
    ctx.check_user(user_id)
    appointment = _own(ctx, appointment_id)
    try:
        if not appointment.is_active:
            raise InvalidArguments(f"A {appointment.get_state_display().lower()} appointment cannot be moved.")
        starts_at = parse_time_date(appointment_time_date, ctx.tz)
        slot = Slot.objects.filter(specialist=appointment.specialist, starts_at=starts_at).first()
        if slot is None:
            raise NotFound(f"{specialist_label(appointment.specialist)} has no slot at {appointment_time_date}.")
    except ToolError as exc:
        if resuming(ctx):
            return _changed_meanwhile("Move this appointment?", "not moved", f"Not moved: {exc}")
        raise
    previous = appointment.when_text()
    new_time = Appointment(user=ctx.user, slot=slot).when_text()
    question = (
        f"Move your appointment with {specialist_label(appointment.specialist)} from {previous} to {new_time}? "
        "Reply yes to move it, or no."
    )

    def answer(reply: str) -> dict:
        current = _own(ctx, appointment_id)
        if not clear_yes(reply):
            return {
                "status": "not moved",
                "user": reply,
                "question": question,
                "message": f"Not moved: your appointment stays on {current.when_text()}.",
            }
        try:
            current.reschedule(slot.pk, now=ctx.now())
        except (InvalidTransition, SlotUnavailable, ToolError) as exc:
            return {"status": "not moved", "user": reply, "question": question, "message": f"Not moved: {exc}"}
        current.refresh_from_db()
        return {
            "status": "moved",
            "user": reply,
            "question": question,
            "message": _notice(current, "rescheduled", previous=previous),
        }

    return AskUser(question=question, answer=answer)
