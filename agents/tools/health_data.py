"""Tools over the Health Manager's data: medication reminders, vitals, daily reports."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from django.db import transaction
from django.template.loader import render_to_string

from agents.errors import InvalidArguments, NotFound, ToolError
from agents.models import Conversation
from agents.tools import said
from agents.tools.appointments import _parse_date, _parse_time
from agents.tools.context import ToolContext
from agents.tools.interaction import AskUser, clear_yes, resuming
from agents.tools.registry import tool
from agents.tools.transcript import said_in_request
from health.models import DailyReport, Medication, VitalReading
from health.reports.generate import as_facts
from health.reports.generate import build as build_report
from health.scheduler.lexicon import NOT_NAME_WORDS, known_medicine
from health.scheduler.schedule import ScheduleError, schedule_medication

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
) -> dict | AskUser:
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
    try:
        return _set_medication_reminder(
            ctx, user_id, medicine_name, times, dose, duration_days, food_timing, start_date
        )
    except ToolError as exc:
        if not resuming(ctx):
            raise
        # Called again to read the user's answer to the lexicon question, and something changed
        # meanwhile (the day, say): the answer sets nothing, and says so.
        problem = str(exc)
        return AskUser(
            question="Set this medication reminder?",
            answer=lambda reply: {"status": "not set", "user": reply, "message": f"No reminder was set: {problem}"},
        )


def _set_medication_reminder(
    ctx: ToolContext,
    user_id: str,
    medicine_name: str,
    times: list[str],
    dose: str | None,
    duration_days: int | None,
    food_timing: str | None,
    start_date: str | None,
) -> dict | AskUser:
    ctx.check_user(user_id)
    clock_times: list[dt.time] = []
    if ctx.conversation is None:
        clock_times = sorted({_parse_time(value) for value in times})
        if not clock_times or len(clock_times) > 12:
            raise InvalidArguments("times must list between 1 and 12 times of day.")
        if food_timing is not None and food_timing not in _FOOD_TIMINGS:
            raise InvalidArguments(f"food_timing must be one of {sorted(_FOOD_TIMINGS)}.")
        if duration_days is not None and not 1 <= duration_days <= 3650:
            raise InvalidArguments("duration_days must be between 1 and 3650.")
    # In a conversation the times, the days and the food come from the user's words below, whatever
    # the model wrote: a model's "9am" or "set_medication_reminder_time" for "at 9am" is not refused
    # (it was, 24 times over, until the step limit), it is not used.
    today = ctx.now().astimezone(ctx.tz).date()
    try:
        start = _parse_date(start_date) if start_date else today
    except InvalidArguments:
        if ctx.conversation is None:
            raise
        start = today  # the first day comes from the user's words below ("tomorrow"), not the model's
    defaults = False
    typed = medicine_name
    if ctx.conversation is not None:
        # In a conversation nothing the user did not say is stored: every argument is checked
        # against the user's words in this request (and their answers to questions about it).
        plan = _as_said(said_in_request(ctx.conversation), medicine_name, dose)
        medicine_name, dose = plan["name"], plan["dose"]
        typed = split_strength(plan["spoken"])[0]
        duration_days, food_timing = plan["days"], plan["food"]
        clock_times, defaults = list(plan["schedule"].times), plan["schedule"].defaults
        # Another first day only when the user said "tomorrow" (a model copies dates it sees).
        tomorrow = today + dt.timedelta(days=1)
        start = tomorrow if start == tomorrow and plan["tomorrow"] else today
    name, strength = split_strength(medicine_name)
    fields = {
        "strength": strength,
        "dose": dose or "",
        "clock_times": [f"{t:%H:%M}" for t in clock_times],
        "default_times": defaults,
        "food_timing": food_timing,
        "duration_days": duration_days,
        "start_date": start,
    }
    known = known_medicine(name)
    if known is not None:
        typed = split_strength(typed)[0]
        read_as = typed if known.corrected or known.name.lower() not in typed.lower() else ""
        if ctx.conversation is None:
            # Called by code, not by a chat's model (no conversation): nobody to ask, and nobody
            # who could have been talked into it.
            return _known_stored(ctx, known.name, fields, read_as)
        if getattr(ctx.conversation, "kind", "") != Conversation.Kind.CHAT:
            raise ToolError(f"There is no user to ask in a {ctx.conversation.kind} run: no reminder was set.")
        if _stored(ctx, known.name, fields) is not None:
            return _known_stored(ctx, known.name, fields, read_as)  # nothing changes: nothing to ask
        return _propose(ctx, known.name, fields, read_as)
    # Not a medicine the lexicon knows: stored only when the user says so in answer to the question.
    if ctx.conversation is None or getattr(ctx.conversation, "kind", "") != Conversation.Kind.CHAT:
        raise ToolError(f"{name!r} is not in the medicines lexicon and there is no user to ask: no reminder was set.")
    question = f"I don't know '{name}' as a medicine. Set a reminder for it anyway? Reply yes to set it, or no."

    def answer(reply: str) -> dict:
        if not clear_yes(reply):
            return {
                "status": "not set",
                "user": reply,
                "message": f"No reminder was set: '{name}' is not a medicine I know, and you did not confirm it.",
            }
        try:
            with transaction.atomic():
                return {"user": reply, "not_in_lexicon": True, **_store_medication(ctx, name, fields)}
        except ToolError as exc:
            return {"status": "not set", "user": reply, "message": f"No reminder was set: {exc}"}

    return AskUser(question=question, answer=answer)


def _known_stored(ctx: ToolContext, name: str, fields: dict[str, Any], read_as: str) -> dict:
    result = _store_medication(ctx, name, fields)
    if read_as:
        result["read_as"] = f"'{read_as}' was read as {name}."
    return result


def _stored(ctx: ToolContext, name: str, fields: dict[str, Any]) -> Medication | None:
    """The same medicine, strength and first day already on the user's list, if any."""
    return Medication.objects.filter(
        user=ctx.user, name=name, strength=fields["strength"], start_date=fields["start_date"]
    ).first()


def _propose(ctx: ToolContext, name: str, fields: dict[str, Any], read_as: str) -> AskUser:
    """A new medication changes the user's day (reminders go off): a chat proposes it, with every
    field as it will be stored, and stores it only on a clear yes (issue 23: actions need consent).
    The model's call is not the user's word; an instruction in a photo's text or a stored record
    could otherwise put a medicine the user never confirmed on their schedule."""
    context = {"name": name, "read_as": read_as, "times": fields["clock_times"], "defaults": fields["default_times"]}
    context.update({key: fields[key] for key in ("strength", "dose", "food_timing", "duration_days")})
    today = ctx.now().astimezone(ctx.tz).date()
    start = fields["start_date"]
    context["start"] = {today: "today", today + dt.timedelta(days=1): "tomorrow"}.get(start, f"{start:%Y-%m-%d}")
    question = " ".join(render_to_string("agents/reminder_question.txt", context).split())

    def answer(reply: str) -> dict:
        # The question goes with the answer: the chat shows what was asked above what was said to it.
        if not clear_yes(reply):
            message = f"No reminder was set for {name}: you did not confirm it."
            return {"status": "not set", "user": reply, "question": question, "message": message}
        try:
            with transaction.atomic():
                return {"user": reply, "question": question, **_known_stored(ctx, name, fields, read_as)}
        except ToolError as exc:
            return {"status": "not set", "user": reply, "question": question, "message": f"No reminder was set: {exc}"}

    return AskUser(question=question, answer=answer)


def _store_medication(ctx: ToolContext, name: str, fields: dict[str, Any]) -> dict:
    strength, start, clock_times = fields["strength"], fields["start_date"], fields["clock_times"]
    with transaction.atomic():
        # A replayed step (or the same medicine again the same day) finds the stored one and leaves
        # it as it is; the summary below is read back from the rows, so it says what is stored.
        medication = _stored(ctx, name, fields)
        created = medication is None
        if created:
            try:
                # The same path as a confirmed prescription: one schedule, one set of rules.
                medication = schedule_medication(
                    ctx.user,
                    name=name,
                    strength=strength,
                    dose=fields["dose"],
                    times_per_day=len(clock_times),
                    clock_times=clock_times,
                    default_times=fields["default_times"],
                    food_timing=fields["food_timing"],
                    duration_days=fields["duration_days"],
                    start_date=start,
                )
            except ScheduleError as exc:
                raise InvalidArguments(str(exc)) from exc
    return {**reminder_summary(Medication.objects.get(pk=medication.pk)), "already_set": not created}


_STRENGTH = re.compile(
    r"^(?P<name>.*?[^\s,])[\s,]+(?P<number>\d+(?:\.\d+)?)\s*"
    r"(?P<unit>mg|mcg|µg|g|ml|iu|units?|%)(?P<per>\s*/\s*\d*(?:\.\d+)?\s*ml)?$",
    re.IGNORECASE,
)


def split_strength(medicine_name: str) -> tuple[str, str]:
    """ "Metformin 500 mg" -> ("Metformin", "500 mg"): the strength written after the name goes to
    its own field; a name without one is kept whole."""
    text = " ".join(str(medicine_name).split())
    match = _STRENGTH.match(text)
    if match is None:
        return text, ""
    per = re.sub(r"\s+", "", match["per"] or "")
    unit = match["unit"] if match["unit"] == "%" else " " + match["unit"]
    return match["name"], f"{match['number']}{unit}{per}"


def _as_said(text: str, name: str, dose: str | None) -> dict[str, Any]:
    """The reminder's fields as far as the user said them; ToolError when the user named no
    medicine or gave no schedule (the planner then asks them)."""
    kept_name = said.name_said(name, text)
    spoken = kept_name
    if not kept_name:
        # One of them misspelt: "metformn" typed and "Metformin" called (or the other way round) is
        # the same medicine when the lexicon reads both as one.
        kept_name, spoken = _same_medicine_said(name, text)
    if not kept_name:
        raise ToolError(
            f"The user did not name the medicine {name!r}. Use the medicine's name as the user wrote it, "
            "or ask the user which medicine."
        )
    clause = said.segment_about(spoken, text)
    try:
        when = said.schedule(clause) or said.schedule(text)
    except said.ScheduleConflict as exc:
        raise ToolError(f"The schedule is unclear: {exc}. Ask the user when to take {kept_name}.") from exc
    if when is None:
        raise ToolError(
            f"The user did not say how often or when to take {kept_name}. "
            "Ask the user (for example: how many times a day, and at what times?)."
        )
    said_days = said.duration_days(clause) or said.duration_days(text)
    said_food = said.food_timing(clause) or said.food_timing(text)
    return {
        "name": kept_name,
        "spoken": spoken,
        "dose": dose if dose and (said.dose_said(dose, clause) or said.dose_said(dose, text)) else None,
        "schedule": when,
        "days": said_days,
        "food": said_food if said_food in _FOOD_TIMINGS else None,
        "tomorrow": bool(re.search(r"\btomorrow\b", text, re.IGNORECASE)),
    }


def _same_medicine_said(name: str, text: str) -> tuple[str, str]:
    """(the lexicon's spelling of ``name``, the user's word for it) when a word the user wrote is the
    same medicine in the lexicon, one of the two spellings a typo; ("", "") otherwise."""
    known = known_medicine(split_strength(name)[0])
    if known is None:
        return "", ""
    for word in dict.fromkeys(said.words(text)):
        if len(word) < 5 or word in NOT_NAME_WORDS:
            continue
        found = known_medicine(word)
        if found is not None and found.generic == known.generic:
            if not found.corrected:
                return word[:1].upper() + word[1:], word  # the user's own spelling is right: keep it
            return (known.name if known.corrected else split_strength(name)[0]), word
    return "", ""


def reminder_summary(medication: Medication) -> dict[str, Any]:
    """What was stored, read back from the rows, with the sentence the user reads."""
    reminders = [r for r in medication.reminders.order_by("time_of_day") if r.enabled]
    times = [f"{r.time_of_day:%H:%M}" for r in reminders]
    # No row id in the result: it is an observation in the trajectory, and replays and training
    # data must not depend on which id a database handed out. The Medications page, where the patient
    # changes the times or stops it (frontend/urls.py names it "medications"; agents may not import the
    # UI, so the path is written here).
    change_at = "/medications/"
    message = render_to_string(
        "agents/reminder_set.txt", {"medication": medication, "times": times, "change_at": change_at}
    )
    return {
        "medicine": str(medication),
        "dose": medication.dose or None,
        "times_per_day": len(times),
        "reminder_times": times,
        "default_times": medication.default_times,
        "duration_days": medication.duration_days,
        "food_timing": medication.food_timing,
        "change_at": change_at,
        "message": " ".join(message.split()),
    }


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
    """Fetches the user's daily health report for a date (today's so far if no date is given).

    Args:
        user_id: Unique identifier for the user.
        date: The report's date, 'YYYY-MM-DD'; today if omitted.
    """
    ctx.check_user(user_id)
    today = ctx.now().astimezone(ctx.tz).date()
    day = _parse_date(date) if date else today
    if day > today:
        raise InvalidArguments(f"{day.isoformat()} is in the future: there is no report for it yet.")
    report = DailyReport.objects.filter(user=ctx.user, date=day).first()
    if report is None and day < ctx.user.date_joined.astimezone(ctx.tz).date():
        raise NotFound(f"No daily report for {day.isoformat()}: the user's records start later.")
    if report is None or day == today:
        # Today's report is rebuilt so that "how was my day?" answers with everything recorded so far;
        # a past day without a report (the app was off that evening) is built from its records.
        report = build_report(ctx.user, day, now=ctx.now())
    facts = as_facts(report)
    summary = facts.pop("narrative")
    return {**facts, "summary": summary}
