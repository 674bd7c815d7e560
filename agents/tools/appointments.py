"""Appointment tools: find a free specialist slot, hold it, book it, keep history.

Dates and times are spoken in the user's time zone, in the seed paper's
formats: slots as ``{"date": "YYYY-MM-DD", "time": "HH:MM-HH:MM"}`` and
choices as ``"HH:MM-HH:MM, DD/MM/YYYY"``.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import TypedDict

from django.db import transaction
from django.template.loader import render_to_string

from agents.errors import InvalidArguments, NotFound, ToolError
from agents.tools.context import ToolContext
from agents.tools.doctors import doctor_named
from agents.tools.preferences import describe, preference_from
from agents.tools.registry import tool
from agents.tools.transcript import answered_questions, last_result, request_parts, said_in_request
from health.models import (
    Appointment,
    AppointmentHistory,
    InvalidTransition,
    Slot,
    SlotUnavailable,
    Specialist,
    Specialization,
)

# The default referral when the planner names no specialization and triage has not run in the
# conversation: the assistant refers, it does not diagnose (seed paper §3; docs/architecture.md).
DEFAULT_SPECIALIZATION = "general physician"
# How far ahead a preferred time of day is searched for.
SEARCH_HORIZON = dt.timedelta(days=60)
# A search offers only slots that start at least this far ahead: nobody reaches a clinic in minutes.
SEARCH_LEAD = dt.timedelta(hours=1)
# How many other free times a search offers when none fits the day or part of day the user asked for.
ALTERNATIVES = 3


class UserSchedule(TypedDict, total=False):
    date: str
    time_range: str


def resolve_specialization(name: str | None) -> Specialization:
    """The Specialization meant by ``name`` (its name, a synonym, or a plural of either)."""
    wanted = " ".join((name or DEFAULT_SPECIALIZATION).lower().replace("_", " ").split())
    candidates = {wanted, wanted.removesuffix("s"), wanted.removeprefix("a ").removeprefix("an ")}
    every = list(Specialization.objects.all())
    for specialization in every:
        names = {specialization.name, *(str(s).strip().lower() for s in specialization.synonyms or [])}
        if candidates & names:
            return specialization
    known = ", ".join(s.name for s in every) or "none"
    raise NotFound(f"No specialization called {name!r}. Known specializations: {known}.")


def matched_specialization(ctx: ToolContext) -> str | None:
    """The specialization ``match_specialization`` ranked first in this conversation, if it ran.

    A search that names none (a small model that dropped the argument, or lost it in a loop) goes
    to the specialist triage chose for this complaint, not to the general default."""
    matched = last_result(ctx.conversation, "match_specialization")
    names = matched.get("specializations") if isinstance(matched, dict) else None
    return str(names[0]) if isinstance(names, list) and names else None


def _parse_time(text: str) -> dt.time:
    try:
        return dt.datetime.strptime(text.strip(), "%H:%M").time()
    except ValueError as exc:
        raise InvalidArguments(f"Time {text!r} is not in HH:MM format.") from exc


def _parse_time_range(text: str) -> tuple[dt.time, dt.time]:
    start, sep, end = text.partition("-")
    if not sep:
        raise InvalidArguments(f"Time range {text!r} is not in HH:MM-HH:MM format.")
    return _parse_time(start), _parse_time(end)


def _parse_date(text: str) -> dt.date:
    for fmt in ("%Y-%m-%d", "%d/%m/%Y", "%d/%m/%y"):
        try:
            return dt.datetime.strptime(text.strip(), fmt).date()
        except ValueError:
            continue
    raise InvalidArguments(f"Date {text!r} is not in YYYY-MM-DD or DD/MM/YYYY format.")


_NAMED_DATE = re.compile(r"\b(\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}/\d{4})\b")


# A date with a clock time after it ("2026-11-26T20:18:10"): the system line's timestamp, copied.
_TIMESTAMP = re.compile(r"\s*\d{4}-\d{2}-\d{2}[T ]\d{1,2}:\d{2}(?::\d{2})?\S*\s*")


def _schedule_as_said(ctx: ToolContext, schedule: UserSchedule) -> UserSchedule:
    """``schedule`` with the date the user wrote in this request, when they wrote exactly one and the
    model passed another (a small model copies today's date from the system line instead). In a
    chat where the user wrote no date, a timestamp the model passed as the date is dropped: it is
    the system line's, not a wish (refused as malformed, it made a small planner take the error
    for the user's "no")."""
    if not schedule.get("date"):
        return schedule
    named = set()
    for text in _NAMED_DATE.findall(said_in_request(ctx.conversation)):
        try:
            named.add(_parse_date(text))
        except InvalidArguments:
            continue
    if not named and ctx.conversation is not None and _TIMESTAMP.fullmatch(str(schedule["date"])):
        return {key: value for key, value in schedule.items() if key != "date"}
    if len(named) != 1:
        return schedule
    (day,) = named
    try:
        same = _parse_date(schedule["date"]) == day
    except InvalidArguments:
        same = False
    return schedule if same else {**schedule, "date": f"{day:%Y-%m-%d}"}


def parse_time_date(text: str, tz) -> dt.datetime:
    """The aware start of ``"HH:MM-HH:MM, DD/MM/YYYY"`` (or ``"YYYY-MM-DD HH:MM"``) in ``tz``."""
    match = re.fullmatch(r"\s*(\d{1,2}:\d{2})\s*(?:-\s*\d{1,2}:\d{2})?\s*,?\s*(\S+)\s*", text)
    if match:
        start, date = _parse_time(match.group(1)), _parse_date(match.group(2))
    else:
        match = re.fullmatch(r"\s*(\d{4}-\d{2}-\d{2})[ T](\d{1,2}:\d{2})\s*", text)
        if not match:
            raise InvalidArguments(
                f"appointment_time_date {text!r} must look like 'HH:MM-HH:MM, DD/MM/YYYY', "
                "e.g. '11:00-11:30, 30/11/2024'."
            )
        date, start = _parse_date(match.group(1)), _parse_time(match.group(2))
    return dt.datetime.combine(date, start, tzinfo=tz)


def _specialist(specialist_id: str) -> Specialist:
    try:
        return Specialist.objects.select_related("specialization").get(pk=int(specialist_id), active=True)
    except (ValueError, Specialist.DoesNotExist) as exc:
        raise NotFound(f"No specialist with id {specialist_id!r}.") from exc


def _slot(specialist: Specialist, starts_at: dt.datetime) -> Slot:
    slot = Slot.objects.filter(specialist=specialist, starts_at=starts_at).first()
    if slot is None:
        raise NotFound(f"{specialist.name} has no slot starting at {starts_at:%H:%M on %d/%m/%Y}.")
    return slot


_ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_CLOCK = re.compile(r"\b([01]?\d|2[0-3]):([0-5]\d)\b")
_OFFER = re.compile(r"\b(?:book|booking|appointment|slot|opening|free|available|see you|dr\.?)\b", re.I)


def _offered(conversation) -> list[dict]:
    """The slots the latest search of this conversation found free: its slot, then its alternatives."""
    found = last_result(conversation, "get_available_specialists", request_only=True)
    if not isinstance(found, dict) or not isinstance(found.get("available_slot"), dict):
        return []
    first = {"specialist_id": found.get("specialist_id"), "name": found.get("name"), **found["available_slot"]}
    return [first, *(slot for slot in found.get("alternatives", []) if isinstance(slot, dict))]


def slot_question(conversation, question: str) -> str:
    """``question`` as the user reads it. A question that names a date or a clock time that no slot
    of the latest search has is asked about a slot that search found instead: the small model
    sometimes copies today's date for the slot's ("free on 2026-11-26" for a slot on the 30th), and
    the patient must never be offered, or say yes to, a time that is not free."""
    return _asked_about(_offered(conversation), question)


def _asked_about(offered: list[dict], question: str) -> str:
    dates = set(_ISO_DATE.findall(question))
    times = {f"{int(hour):02d}:{minute}" for hour, minute in _CLOCK.findall(question)}
    if not offered or not (dates or times) or not _OFFER.search(question):
        return question
    if dates <= {slot.get("date") for slot in offered} and times <= {
        time for slot in offered for time in str(slot.get("time", "")).split("-")
    }:
        return question
    slot = next((slot for slot in offered if str(slot.get("time", ""))[:5] in times), offered[0])
    return render_to_string("agents/slot_question.txt", {"slot": slot}).strip()


def _agreed_slot(ctx: ToolContext, specialist: Specialist) -> Slot | None:
    """The slot of ``specialist`` that the question the user said yes to named, when it is one slot."""
    asked = answered_questions(ctx.conversation)
    if not asked or not ANSWER_YES.match(_answer(ctx)):
        return None
    offered = _offered(ctx.conversation)
    shown = _asked_about(offered, asked[-1][0])
    named = [
        slot
        for slot in offered
        if str(slot.get("specialist_id")) == str(specialist.pk)
        and slot.get("date") in shown
        and str(slot.get("time", ""))[:5] in shown
    ]
    if len(named) != 1:
        return None
    try:
        starts_at = parse_time_date(f"{named[0]['time']}, {named[0]['date']}", ctx.tz)
    except InvalidArguments:
        return None
    return Slot.objects.filter(specialist=specialist, starts_at=starts_at).first()


def specialist_label(specialist: Specialist) -> str:
    return f"{specialist.name} ({specialist.specialization.name.title()})"


def slot_summary(slot: Slot, tz) -> dict[str, str]:
    start, end = slot.starts_at.astimezone(tz), slot.ends_at.astimezone(tz)
    return {"date": f"{start:%Y-%m-%d}", "time": f"{start:%H:%M}-{end:%H:%M}"}


@tool
def get_available_specialists(
    ctx: ToolContext, symptoms: str, specialization: str | None = None, user_schedule: UserSchedule | None = None
) -> dict:
    """Finds the best free appointment slot with a specialist of the given specialization.

    Args:
        symptoms: List of symptoms derived from user input.
        specialization: Specialization name for the appointment, e.g. 'general physician'.
        user_schedule: User's preferred schedule, e.g. {'date': 'YYYY-MM-DD', 'time_range': 'HH:MM-HH:MM'}.
    """
    wanted = resolve_specialization(specialization or matched_specialization(ctx))
    tz = ctx.tz
    slots = (
        Slot.objects.free()
        .filter(specialist__specialization=wanted, specialist__active=True, starts_at__gte=ctx.now() + SEARCH_LEAD)
        .select_related("specialist__specialization")
        .order_by("starts_at", "specialist_id")
    )
    # A doctor of that specialization the user named in this request ("Dr Chen please"): their times only.
    doctor = doctor_named(" ".join(request_parts(ctx.conversation)))
    doctor = doctor.specialist if doctor is not None and doctor.specialist is not None else None
    if doctor is not None and doctor.specialization_id == wanted.pk:
        slots = slots.filter(specialist=doctor)
        not_free, no_slot = f"{specialist_label(doctor)} is not free", f"{specialist_label(doctor)} has no free slot"
    else:
        not_free, no_slot = f"No {wanted.name} is free", f"No {wanted.name} has a free slot"
    schedule = _schedule_as_said(ctx, user_schedule or {})
    # The day or part of the day the user said in this request wins over what the model passed.
    local = ctx.now().astimezone(tz)
    preference = preference_from(request_parts(ctx.conversation), local.date(), local.time())
    if preference.day is not None:
        schedule = {k: v for k, v in schedule.items() if k != "date"}
    if preference.part is not None or preference.at is not None:
        schedule = {k: v for k, v in schedule.items() if k != "time_range"}
    if schedule.get("date"):
        day = _parse_date(schedule["date"])
        start = dt.datetime.combine(day, dt.time.min, tzinfo=tz)
        slots = slots.filter(starts_at__gte=start, starts_at__lt=start + dt.timedelta(days=1))
    chosen, alternatives = None, []
    if schedule.get("time_range") or preference:
        earliest, latest = _parse_time_range(schedule["time_range"]) if schedule.get("time_range") else (None, None)
        # Time of day in the user's zone is not portable SQL: scan in start
        # order (within the search horizon) and stop at the first fit.
        horizon = slots.filter(starts_at__lt=ctx.now() + SEARCH_HORIZON)
        for slot in horizon.iterator(chunk_size=500):
            start, end = slot.starts_at.astimezone(tz), slot.ends_at.astimezone(tz)
            if earliest is not None and not (start.time() >= earliest and end.time() <= latest):
                continue
            if preference.fits(start):
                chosen = slot
                break
        if chosen is None and preference:
            alternatives = _nearest(slots.filter(starts_at__lt=ctx.now() + SEARCH_HORIZON), preference, tz)
    else:
        chosen = slots.first()
    if chosen is None and alternatives:
        wish = describe(preference)
        offered = alternatives[0]
        return {
            "specialist_id": str(offered.specialist_id),
            "name": specialist_label(offered.specialist),
            "available_slot": slot_summary(offered, tz),
            "preference": wish,
            "fits_preference": False,
            "note": f"{not_free} {wish}. Tell the user so and offer the nearest free times.",
            "alternatives": [
                {
                    "specialist_id": str(slot.specialist_id),
                    "name": specialist_label(slot.specialist),
                    **slot_summary(slot, tz),
                }
                for slot in alternatives
            ],
        }
    if chosen is None:
        when = " ".join(v for v in (schedule.get("date", ""), schedule.get("time_range", "")) if v)
        on = f" on {when}" if when else ""
        raise NotFound(f"{no_slot}{on}. Ask the user for another time.")
    found = {
        "specialist_id": str(chosen.specialist_id),
        "name": specialist_label(chosen.specialist),
        "available_slot": slot_summary(chosen, tz),
    }
    if preference:
        found.update(preference=describe(preference), fits_preference=True)
    return found


def _nearest(slots, preference, tz) -> list[Slot]:
    """The free slots nearest in time to what the user asked for (at most ALTERNATIVES, soonest first)."""
    day = preference.day
    if day is None and preference.at is None:
        return list(slots[:ALTERNATIVES])
    if day is None:  # "at 2pm", no day: the nearest to 2pm on the first day that has free times
        first = slots.first()
        if first is None:
            return []
        day = first.starts_at.astimezone(tz).date()
    target = dt.datetime.combine(day, preference.at or dt.time(12), tzinfo=tz)
    near = sorted(
        slots.filter(starts_at__gte=target - dt.timedelta(days=7), starts_at__lt=target + dt.timedelta(days=7)),
        key=lambda slot: abs(slot.starts_at - target),
    )[:ALTERNATIVES]
    return sorted(near, key=lambda slot: slot.starts_at) or list(slots[:ALTERNATIVES])


# The user's answer to the proposal: the chat's Confirm button sends "yes", Decline sends "no"; a few
# typed equivalents are read the same way. Anything else is neither: the slot is only held.
# The booking desk (agents/booking_desk.py) reads its proposal's answer with the same two patterns.
ANSWER_YES = re.compile(
    r"^\W*(?:yes|yeah|yep|yup|sure|ok|okay|confirm|please do|please book|book it|go ahead|sounds good|perfect)\b",
    re.I,
)
ANSWER_NO = re.compile(r"^\W*(?:no|nope|decline|not|don'?t|do not|cancel|never\s*mind)\b", re.I)


def _answer(ctx: ToolContext) -> str:
    """The user's latest answer to a question in this request ("" if none)."""
    parts = request_parts(ctx.conversation)
    return parts[-1] if len(parts) > 1 else ""


@tool
def confirm_appointment(ctx: ToolContext, user_id: str, specialist_id: str, appointment_time_date: str) -> bool:
    """Confirms the slot the user agreed to and holds it for them in the hospital's database.

    Args:
        user_id: Unique identifier for the user.
        specialist_id: Unique identifier for the chosen specialist.
        appointment_time_date: The chosen slot as 'HH:MM-HH:MM, DD/MM/YYYY'.
    """
    return _take_slot(ctx, user_id, specialist_id, appointment_time_date)


@tool
def book_appointment(ctx: ToolContext, user_id: str, specialist_id: str, appointment_time_date: str) -> bool:
    """Books an appointment with a chosen specialist at a specified time and date.

    Args:
        user_id: Unique identifier for the user.
        specialist_id: Unique identifier for the chosen specialist.
        appointment_time_date: The chosen slot as 'HH:MM-HH:MM, DD/MM/YYYY'.
    """
    return _take_slot(ctx, user_id, specialist_id, appointment_time_date)


def _take_slot(ctx: ToolContext, user_id: str, specialist_id: str, appointment_time_date: str) -> bool:
    """Both booking tools: the appointment is booked (confirmed) only when the user's answer in this
    request was yes; a no books nothing; without an answer the slot is only held (the patient
    confirms it on the Appointments page). A model's word is never the patient's consent."""
    ctx.check_user(user_id)
    specialist = _specialist(specialist_id)
    try:
        slot = _slot(specialist, parse_time_date(appointment_time_date, ctx.tz))
    except NotFound:
        # The model copied the slot wrong; the user said yes to the one the question named.
        slot = _agreed_slot(ctx, specialist)
        if slot is None:
            raise
    answer = _answer(ctx)
    if ANSWER_NO.match(answer):
        raise ToolError("The user declined this appointment: nothing was booked. Do not book it.")
    agreed = bool(ANSWER_YES.match(answer))
    with transaction.atomic():
        held = _live_appointment(ctx, slot)
        if held is not None:
            if agreed and held.state == Appointment.State.HELD:
                try:
                    held.confirm()
                except InvalidTransition as exc:
                    raise ToolError(str(exc)) from exc
            return True  # already held for this user: confirming twice is harmless
        make = Appointment.book if agreed else Appointment.hold
        try:
            make(user=ctx.user, slot_id=slot.pk, symptoms=_symptoms(ctx), conversation=ctx.conversation, now=ctx.now())
        except SlotUnavailable as exc:
            raise ToolError(f"That slot is no longer available: {exc}") from exc
    return True


def _live_appointment(ctx: ToolContext, slot: Slot) -> Appointment | None:
    return Appointment.objects.filter(user=ctx.user, slot=slot, state__in=Appointment.HOLDING_STATES).first()


def _symptoms(ctx: ToolContext) -> str:
    # The user's own words that opened this conversation: the appointment
    # keeps them for the specialist.
    if ctx.conversation is None:
        return ""
    first = ctx.conversation.steps.filter(role="user").order_by("index").first()
    return first.payload if first and isinstance(first.payload, str) else ""


@tool
def save_appointment_history(
    ctx: ToolContext, user_id: str, symptoms: str, specialist_id: str, appointment_time_date: str
) -> bool:
    """Saves appointment information in the user's history for later reference and recurring use cases.

    Args:
        user_id: Unique identifier for the user.
        symptoms: The symptoms described by the user.
        specialist_id: Unique identifier for the chosen specialist.
        appointment_time_date: The appointment slot as 'HH:MM-HH:MM, DD/MM/YYYY'.
    """
    ctx.check_user(user_id)
    specialist = _specialist(specialist_id)
    starts_at = parse_time_date(appointment_time_date, ctx.tz)
    appointment = (
        Appointment.objects.filter(
            user=ctx.user, specialist=specialist, slot__starts_at=starts_at, state__in=Appointment.HOLDING_STATES
        )
        .order_by("-created_at")
        .first()
    )
    # get_or_create: a replayed step must not write the line twice.
    AppointmentHistory.objects.get_or_create(
        user=ctx.user,
        specialist_name=specialist.name,
        scheduled_for=starts_at,
        defaults={
            "appointment": appointment,
            "specialization": specialist.specialization.name,
            "summary": symptoms,
        },
    )
    return True


@tool
def get_appointment_history(ctx: ToolContext, user_id: str) -> list:
    """Retrieves the user's appointment history for analysis and reminders.

    Args:
        user_id: Unique identifier for the user.
    """
    ctx.check_user(user_id)
    tz = ctx.tz
    return [
        {
            "date": f"{entry.scheduled_for.astimezone(tz):%Y-%m-%d}",
            "time": f"{entry.scheduled_for.astimezone(tz):%H:%M}",
            "specialist": entry.specialist_name,
            "specialization": entry.specialization,
            "symptoms": entry.summary,
        }
        for entry in AppointmentHistory.objects.filter(user=ctx.user).order_by("-scheduled_for")[:10]
    ]


# What the model writes to the user is free text; a sentence about an appointment is replaced by
# one rendered from the recorded appointments of this conversation, so "Booked" is said only of a
# confirmed appointment, and a claim of a booking that does not exist is not repeated.
_ABOUT_APPOINTMENT = re.compile(r"\b(appointments?|book\w*|slot|dr\.?|doctor|specialist)\b", re.I)
_CLAIMS = re.compile(r"\b(booked|confirmed|scheduled|reserved|held|all set|is set)\b", re.I)


def appointment_notice(ctx: ToolContext, text: str) -> str:
    """``text``, or the truth about this conversation's appointments when ``text`` speaks of them."""
    if ctx.conversation is None or ctx.alert is not None:
        return text
    about, claims = bool(_ABOUT_APPOINTMENT.search(text)), bool(_CLAIMS.search(text))
    if not (about or claims):
        return text
    appointments = list(
        Appointment.objects.filter(conversation=ctx.conversation, state__in=Appointment.ACTIVE_STATES)
        .select_related("slot", "specialist__specialization", "user__profile")
        .order_by("slot__starts_at")
    )
    if not appointments and not (about and claims):
        return text  # e.g. a question about booking, or another thing "confirmed": nothing is claimed
    return render_to_string("agents/appointments/notice.txt", {"appointments": appointments}).strip()
