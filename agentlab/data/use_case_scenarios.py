"""End-to-end scenario cases per use case, generated from the first step's patient requests.

The requests are those of agentlab.data.requests (the same template families, slots and typing; dev
and test splits from disjoint families). Each becomes a case for ``agent_scenarios``
(agentlab.evaluation.scenarios) whose ``setup`` gives the patient the records the request is about,
read from the slot values the request was filled with (the specialist, the day and time, the
medicine), and whose ``expect`` says what must happen:

- help_now: the hard SOS starts (``sos``);
- out_of_scope: nothing is done (``refused``);
- appointments_list: two appointments, one of the specialization the request names; nothing is
  booked, cancelled, moved or stored, and the reply names that specialization as the directory
  words it ("Dermatologist");
- appointments_cancel: the appointment the request is about (on the day and at the time it names;
  a second one of another specialization when it names a specialist); one is cancelled after the
  simulated user's "Yes.", nothing booked, and the reply names its specialization;
- appointments_reschedule: the appointment, on a clinic day; it is moved (``rescheduled``) and the
  reply names its specialization. A request for a time the demo clinics cannot offer (a weekend,
  the evening, 8.30) is drawn again: the right answer to it is "no free time";
- my_health: two days of the watch simulator's readings; nothing stored or booked, and the reply
  speaks of the watch (the health desk's answer always does: "Your watch's readings …" or "No
  readings from your watch …");
- medicines_today: the medicine the request names (else one of a few) at 08:00 and 22:00; the
  reply names it, nothing is created;
- medicines_taken: the medicine the request names (else one of a few) with one dose today, at the
  clock time or part of the day the request names (else 08:00), its reminder gone out (``sent``);
  after the simulated user's "Yes." that dose is marked taken (``taken`` 1), nothing is booked or
  stored, and the reply says "taken". Run shortly before that time of day (within the early window,
  ``DOSE_EARLY_MINUTES``), the dose is still to come and is marked taken early; earlier still, the
  runner gives the patient the nearest time zone where that time has passed
  (``agentlab.evaluation.scenarios.setup_zone``);
- medicines_photo: nothing is created and the reply points to the Medications page;
- medicines_reminder: a reminder with the medicine, times a day and dose the request says (``null``:
  none said; a strength such as "500mg" is not a dose and is not checked). Only requests that set a
  reminder for the patient with a name and a schedule; changing, stopping, a relative's: left out;
- book_constraint: the named specialization is searched, and an appointment is booked when the
  simulated user accepts it (``accept_appointment``, half of the cases);
- book_symptoms: the first-contact specialization of the disease the complaint was made from
  (``Disease.examined_first_by``); the phrasing engine's complaints only (the hand-written families
  name no disease).

Mixed requests ("cancel Tuesday and book me a skin doctor instead", "what's my next appointment,
and remind me …") are left out: what the second half should do depends on the model, and the
first half's checks (booked false) would be wrong for a model that does it.

A weekday the request names is set up as ``"weekday"`` (the day the app reads it as, whatever day
the case runs); a day that cannot be set up the same way on every run ("today", "this week", "on the
14th") is drawn again. A case run on the named weekday after its hour gets its appointment later
that day (agentlab.evaluation.scenarios); after 22:30 it cannot be set up
(``setup_failed``); a medicines_today case run after 22:00 in the patient's zone
(America/Los_Angeles) finds no dose left today.

Deterministic: the cases of a use case and split depend only on the seed and ``per_case``.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from agentlab.data import requests
from agentlab.data.bank import DISEASES
from agentlab.data.requests import ComplaintFamily, Drawn, Family

SEED = requests.SEED
SPLITS = requests.SPLITS
USE_CASES = requests.USE_CASES
# The use cases a deterministic step answers before the model (the guards and the desks).
DESK_USE_CASES = (
    "help_now",
    "out_of_scope",
    "appointments_list",
    "appointments_cancel",
    "appointments_reschedule",
    "my_health",
    "medicines_today",
    "medicines_taken",
    "medicines_photo",
)
_DRAWS = 60  # draws of a family for a request that can be set up, before the next family is tried
S2D_ANSWERS = ("I don't know.", "No other symptoms.")

# --------------------------------------------------------------------------- slot values

# The specialist words of requests._SPECIALISTS -> the demo directory's specialization
# (health.demo_data.SPECIALIZATIONS); None: the directory has no such specialist.
SPECIALIZATION: dict[str, str | None] = {
    "dermatologist": "dermatologist",
    "skin doctor": "dermatologist",
    "urologist": "urologist",
    "cardiologist": "cardiologist",
    "heart doctor": "cardiologist",
    "GP": "general physician",
    "doctor": "general physician",
    "eye doctor": "ophthalmologist",
    "ophthalmologist": "ophthalmologist",
    "ENT": "ent",
    "ear nose and throat doctor": "ent",
    "gynaecologist": "gynecologist",
    "gynecologist": "gynecologist",
    "neurologist": "neurologist",
    "physio": None,
    "dietitian": "dietician",
    "dietician": "dietician",
    "orthopaedic doctor": "orthopedist",
    "orthopedist": "orthopedist",
    "psychiatrist": "psychiatrist",
    "paediatrician": "pediatrician",
    "pediatrician": "pediatrician",
    "endocrinologist": "endocrinologist",
    "rheumatologist": "rheumatologist",
    "gastroenterologist": "gastroenterologist",
    "general physician": "general physician",
}
# "The doctor" names no specialist: any appointment is meant.
GENERIC = frozenset({"doctor"})
# Specializations for an appointment the request does not name.
_POOL = (
    "general physician",
    "dermatologist",
    "cardiologist",
    "ophthalmologist",
    "urologist",
    "neurologist",
    "ent",
    "gastroenterologist",
)
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
CLINIC_DAYS = WEEKDAYS[:5]  # the demo directory's slots (health.demo_data.CLINIC_HOURS): weekdays, 9-13 and 14-17
# requests._TIMES -> the hour a setup appointment is booked at (its slot nearest to it).
HOURS = {
    "9": 9,
    "9am": 9,
    "9:30": 9,
    "10 o'clock": 10,
    "half past two": 14,
    "2pm": 14,
    "3:15": 15,
    "4 pm": 16,
    "8.30": 8,
    "11am": 11,
}
# requests._TIMES that start a demo clinic slot (a move "to 3:15" has no slot to go to).
SLOT_STARTS = frozenset({"9", "9am", "9:30", "10 o'clock", "half past two", "2pm", "4 pm", "11am"})
PART_HOURS = {"morning": 10, "afternoon": 15, "evening": 18}
# requests._WHEN as the day of an appointment the patient has: the same day on every run, or None.
WHEN_HAS = {
    "tomorrow": {"in_days": 1},
    "on friday": {"weekday": "friday"},
    "next week": {"in_days": 7},
    "on monday morning": {"weekday": "monday"},
    "thursday afternoon": {"weekday": "thursday"},
    "today": None,
    "this afternoon": None,
    "this week": None,
    "next tuesday": None,  # the app reads it as the coming Tuesday, never today: no setup day says that
    "on the 14th": None,
}
# requests._WHEN as a time to move to, or to book in: the demo clinics have slots then on every run.
WHEN_FREE = frozenset({"next week", "on friday", "on monday morning", "thursday afternoon", "next tuesday"})
# requests._MEDS -> the medication the patient takes ("my inhaler" is some inhaler).
MEDICINES = {
    "metformin": "Metformin",
    "lisinopril": "Lisinopril",
    "atorvastatin": "Atorvastatin",
    "amlodipine": "Amlodipine",
    "levothyroxine": "Levothyroxine",
    "omeprazole": "Omeprazole",
    "paracetamol": "Paracetamol",
    "acetaminophen": "Acetaminophen",
    "ibuprofen": "Ibuprofen",
    "my inhaler": "Salbutamol inhaler",
    "vitamin d": "Vitamin D",
    "warfarin": "Warfarin",
    "aspirin": "Aspirin",
    "sertraline": "Sertraline",
    "ramipril": "Ramipril",
    "my blood pressure tablets": "Amlodipine",
}
_MEDICINE_POOL = ("Metformin", "Atorvastatin", "Lisinopril", "Levothyroxine", "Omeprazole")
# A morning dose, and one late enough to be still to come when a case runs in the day.
DOSE_TIMES = ("08:00", "22:00")
# A typical time of each part of the day a patient names a dose by (a medicines_taken setup).
DOSE_PART_TIMES = {
    "morning": "08:00",
    "breakfast": "08:00",
    "lunchtime": "13:00",
    "lunch": "13:00",
    "midday": "12:00",
    "noon": "12:00",
    "afternoon": "14:00",
    "evening": "19:00",
    "dinner": "19:00",
    "supper": "19:00",
    "tonight": "21:00",
    "nighttime": "21:00",
    "night": "21:00",
    "bedtime": "21:00",
}
_DOSE_PART = re.compile(rf"\b({'|'.join(DOSE_PART_TIMES)})\b", re.I)
# requests._FREQS -> doses a day (None: not a daily schedule, no reminder to check).
TIMES_PER_DAY = {
    "twice a day": 2,
    "once a day": 1,
    "every morning": 1,
    "every 8 hours": 3,
    "three times a day": 3,
    "at night": 1,
    "before bed": 1,
    "with breakfast": 1,
    "morning and evening": 2,
    "every other day": None,
}
_STRENGTH = re.compile(r"^\d+\s*mg$", re.I)
# A reminder request that changes, stops or reports rather than sets one.
_NOT_SETTING = re.compile(r"\b(?:change|move|turn off|snooze|don't need|stop|forgot|missed|remove)\b", re.I)

# A day the patient has an appointment on, in the request as filled (before typos): "tomorrow",
# "friday", "tuesday's"; not "since monday" (when something started).
_DAY_SAID = re.compile(
    r"(?<!since )(?<!last )(?<!from )\b(?P<words>this afternoon|this week|next week|today|tonight|tomorrow|"
    r"(?:next\s+)?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|the \d+(?:st|nd|rd|th))(?:'s)?\b",
    re.I,
)


def title(specialization: str) -> str:
    """A specialization as the assistant's replies print it (``specialization.name|title``)."""
    return specialization.title()


def _named(drawn: Drawn, slot: str = "spec") -> tuple[bool, str | None]:
    """(usable, the directory's specialization the request names): (False, None) when it names one
    the directory does not have, (True, None) when it names none (or just "the doctor")."""
    said = drawn.slot(slot)
    if said is None or said in GENERIC:
        return True, None
    found = SPECIALIZATION.get(said)
    return (found is not None), found


def _day_had(text: str) -> tuple[bool, dict[str, Any] | None]:
    """(usable, the setup day) of the first day ``text`` names: (True, None) when it names none,
    (False, None) when it names one that is not the same day on every run."""
    match = _DAY_SAID.search(text)
    if match is None:
        return True, None
    words = " ".join(match.group("words").lower().split())
    if words in WEEKDAYS:
        return True, {"weekday": words}
    if words == "tomorrow":
        return True, {"in_days": 1}
    if words == "next week":
        return True, {"in_days": 7}
    return False, None


def _hour(drawn: Drawn, rng: random.Random) -> int:
    time = drawn.slot("time")
    if time is not None:
        return HOURS[time]
    part = re.search(r"\b(morning|afternoon|evening)\b", drawn.filled, re.I)
    return PART_HOURS[part.group(1).lower()] if part else rng.choice((9, 10, 11, 14, 15, 16))


def _appointment(specialization: str, day: dict[str, Any], hour: int) -> dict[str, Any]:
    return {"specialization": specialization, **day, "hour": hour}


def _other(specialization: str, rng: random.Random) -> dict[str, Any]:
    """A second appointment, of another specialization, more than a week on (never on a weekday the
    request names: those are within the coming week)."""
    other = rng.choice([name for name in _POOL if name != specialization])
    return _appointment(other, {"in_days": rng.randint(9, 12)}, rng.choice((10, 11, 14, 15)))


def _kept_records() -> dict[str, Any]:
    return {"booked": False, "cancelled": 0, "rescheduled": False, "stored_symptoms": False}


# --------------------------------------------------------------------------- per use case


@dataclass(frozen=True)
class Built:
    setup: dict[str, Any]
    expect: dict[str, Any]
    accept_appointment: bool = False
    answers: tuple[str, ...] = ()


Builder = Callable[[Drawn, random.Random], Built | None]


def _help_now(drawn: Drawn, rng: random.Random) -> Built:
    return Built({}, {"sos": True})


def _out_of_scope(drawn: Drawn, rng: random.Random) -> Built:
    return Built({}, {"refused": True})


def _appointments_list(drawn: Drawn, rng: random.Random) -> Built | None:
    usable, named = _named(drawn)
    has_day, day = _day_had(drawn.filled)
    if not usable or not has_day:
        return None
    specialization = named or rng.choice(_POOL)
    first = _appointment(specialization, day or {"in_days": rng.randint(1, 6)}, _hour(drawn, rng))
    setup = {"appointments": [first, _other(specialization, rng)]}
    return Built(setup, {**_kept_records(), "reply_mentions": [title(specialization)]})


def _appointments_cancel(drawn: Drawn, rng: random.Random) -> Built | None:
    usable, named = _named(drawn)
    has_day, day = _day_had(drawn.filled)
    if not usable or not has_day or drawn.slot("name") is not None:
        return None  # a "Dr Patel" the setup cannot choose (it books a specialist by specialization)
    specialization = named or rng.choice(_POOL)
    appointments = [_appointment(specialization, day or {"in_days": rng.randint(1, 6)}, _hour(drawn, rng))]
    if named is not None:
        # Named: another appointment beside it, which must stay (the reply names the one cancelled).
        appointments.append(_other(specialization, rng))
    expect = {**_kept_records(), "cancelled": 1, "reply_mentions": [title(specialization)]}
    return Built({"appointments": appointments}, expect)


@dataclass(frozen=True)
class Move:
    """What a reschedule template says: the slots that name the appointment's day (``on``, a weekday;
    ``on_when``, a requests._WHEN) and time (``at``), those that name the new time (``to_day``,
    ``to_part``, ``to_time``, ``to_when``), and whether it asks for later or earlier the same day,
    to bring it forward, to push it back a week (from a clinic day: a week on is one too), or to leave a
    morning appointment for the afternoon."""

    on: str | None = None
    on_when: str | None = None
    at: str | None = None
    to_day: str | None = None
    to_part: str | None = None
    to_time: str | None = None
    to_when: str | None = None
    same_day: bool = False
    earlier: bool = False
    forward: bool = False
    week: bool = False
    morning: bool = False


# Every reschedule template but the mixed ones (tests check that none is missing).
MOVES: dict[str, Move] = {
    "Move my {spec} appointment to {day} {part}": Move(to_day="day", to_part="part"),
    "can I move my appointment to {day} {part}": Move(to_day="day", to_part="part"),
    "Please reschedule my appointment to {when}": Move(to_when="when"),
    "move my appointment with the {spec} to next week": Move(),
    "{time} is too early, can I come later the same day?": Move(at="time", same_day=True),
    "can I come in a bit later on {day}": Move(on="day", same_day=True),
    "is there anything earlier than {time} on {day} instead of my slot": Move(
        at="time", on="day", same_day=True, earlier=True
    ),
    "can I come at {time} instead": Move(to_time="time", same_day=True),
    "push my appointment back a week": Move(week=True),
    "Can we push my {day} appointment back an hour?": Move(on="day", same_day=True),
    "Bring my appointment forward to {day}": Move(to_day="day", forward=True),
    "can you push back my {spec} appointment": Move(),
    "I need to change my appointment time": Move(),
    "Can I change my {spec} appointment to {day} {part}?": Move(to_day="day", to_part="part"),
    "change the time of my appointment on {day} to {time}": Move(on="day", to_time="time", same_day=True),
    "I'd like to change the date of my appointment": Move(),
    "can I do {day} instead of {day2}": Move(on="day2", to_day="day"),
    "I'd rather come on {day} {part} if possible, not my current slot": Move(to_day="day", to_part="part"),
    "Could I swap my appointment to a different day?": Move(),
    "is there a slot on {day} instead of my current one": Move(to_day="day"),
    "can you move {poss} appointment to {when}": Move(to_when="when"),
    "{rel} can't do the morning, can we make the appointment in the afternoon": Move(morning=True),
    "reschedule {poss} {spec} appointment please": Move(),
    "can you rebook my appointment for next week": Move(),
    "postpone my {spec} appointment": Move(),
    "delay my appointment by two days": Move(),
    "Please postpone my appointment {when} to a later date": Move(on_when="when"),
    "can I change my appointment to {day}": Move(to_day="day"),
    "I need to rearrange my {spec} appointment": Move(),
    "could we make my appointment a bit later": Move(same_day=True),
    "is it possible to switch my appointment to the {part}": Move(to_part="part"),
    "can I see the {spec} on {day} instead": Move(to_day="day"),
    "please put my appointment back to next week": Move(week=True),
    "could you rebook my {spec} for {day}": Move(to_day="day"),
    "change the time of my {spec} appointment": Move(),
    "I can't do {day}, can we move it to {day2}": Move(on="day", to_day="day2"),
    "is there a later slot for my appointment": Move(same_day=True),
    "could you find me a different time for my {spec} appointment": Move(),
    "I'd like to reschedule my appointment": Move(),
    "push it to the {part}": Move(to_part="part"),
    "bring my {spec} appointment forward": Move(forward=True),
    "can my appointment be moved to {when}": Move(to_when="when"),
    "I need a later time for my appointment": Move(same_day=True),
    "swap my appointment to {day}": Move(to_day="day"),
    # the third round of dev families (2026-11-27)
    "I can't make my appointment on {day}, can we do {day2} instead?": Move(on="day", to_day="day2"),
    "something came up on {day}, can I come another day?": Move(on="day"),
    "is there any chance of a later appointment with the {spec}": Move(same_day=True),
    "I have to work on {day}, could I get my appointment changed": Move(on="day"),
    "my {spec} appointment clashes with work, what other times are there": Move(),
    "I'll be away on {day}, please move my appointment": Move(on="day"),
    "can you postpone my appointment": Move(),
    "delay my appointment by a day": Move(),
    "I'd rather come in the {part}, can you change it": Move(to_part="part"),
    "could I have a different day for my {spec} visit": Move(),
    "make my {spec} appointment {day} {part} instead": Move(to_day="day", to_part="part"),
    "I need to reschedule, the {time} slot doesn't work for me": Move(at="time"),
    "any other times for my {spec} appointment?": Move(),
    "postpone the {spec} until next week": Move(week=True),
    "{poss} appointment with the {spec} needs to move to {day}": Move(to_day="day"),
    "can we do my check up a day later": Move(),
    "i want to change the date of my appointment": Move(),
    "reschedule pls": Move(),
    "can my appointment tomorrow be later in the day": Move(same_day=True),
    "I won't be able to come at {time}, is 2pm free instead": Move(at="time"),
    "could you shift my appointment to the following week": Move(week=True),
    "the time for my {spec} doesn't suit me, can I get another one": Move(),
    "need to move {day}'s appointment": Move(on="day"),
}


def _appointments_reschedule(drawn: Drawn, rng: random.Random) -> Built | None:
    move = MOVES.get(drawn.template)
    usable, named = _named(drawn)
    if move is None or not usable:
        return None
    slot = drawn.slot
    # The new time must be one the demo clinics have slots at, on every run.
    if move.to_day and slot(move.to_day) not in CLINIC_DAYS:
        return None
    if move.to_part and slot(move.to_part) == "evening":
        return None
    if move.to_time and slot(move.to_time) not in SLOT_STARTS:
        return None
    if move.to_when and slot(move.to_when) not in WHEN_FREE:
        return None
    # The appointment's own day: a clinic day when the move stays on it (its other slots are the offer).
    if move.on:
        if slot(move.on) not in CLINIC_DAYS or (move.to_day and slot(move.on) == slot(move.to_day)):
            return None
        day: dict[str, Any] = {"weekday": slot(move.on)}
    elif move.on_when:
        day = WHEN_HAS.get(slot(move.on_when))
        if day is None:
            return None
    elif move.same_day or move.week:
        day = {"weekday": rng.choice(CLINIC_DAYS)}
    elif move.forward:
        day = {"in_days": 13}  # after the coming weekday it is brought forward to
    elif move.to_day:
        day = {"weekday": rng.choice([d for d in CLINIC_DAYS if d != slot(move.to_day)])}
    else:
        day = {"in_days": rng.randint(2, 6)}
    hour = HOURS[slot(move.at)] if move.at else (10 if move.morning else rng.choice((10, 11, 14, 15)))
    if move.earlier and hour <= 9:
        return None  # nothing earlier that day
    if move.to_time and HOURS[slot(move.to_time)] == hour:
        hour = 11 if hour != 11 else 15
    specialization = named or rng.choice(_POOL)
    expect = {**_kept_records(), "rescheduled": True, "reply_mentions": [title(specialization)]}
    return Built({"appointments": [_appointment(specialization, day, hour)]}, expect)


def _my_health(drawn: Drawn, rng: random.Random) -> Built:
    return Built({"vitals_days": 2}, {"booked": False, "stored_symptoms": False, "reply_mentions": ["watch"]})


def _medication(drawn: Drawn, rng: random.Random) -> str:
    said = drawn.slot("med")
    return MEDICINES[said] if said is not None else rng.choice(_MEDICINE_POOL)


def _nothing_made() -> dict[str, Any]:
    return {"booked": False, "stored_symptoms": False, "refused": True}


def _medicines_today(drawn: Drawn, rng: random.Random) -> Built:
    name = _medication(drawn, rng)
    setup = {"medications": [{"name": name, "times": list(DOSE_TIMES)}]}
    return Built(setup, {**_nothing_made(), "reply_mentions": [name]})


def _taken_time(drawn: Drawn) -> str:
    """The time of the dose a "taken" request is about: the clock it names, else a typical time of the
    part of the day it names, else the morning's."""
    time = drawn.slot("time")
    if time is not None:
        return f"{HOURS[time]:02d}:00"
    part = _DOSE_PART.search(drawn.filled)
    return DOSE_PART_TIMES[part.group(1).lower()] if part else DOSE_TIMES[0]


def _medicines_taken(drawn: Drawn, rng: random.Random) -> Built:
    # One dose, today's, its reminder gone out: what the request says was taken. After the simulated
    # "Yes." to "Mark your … dose as taken?" it is recorded taken, and the reply says so.
    time = _taken_time(drawn)
    setup = {"medications": [{"name": _medication(drawn, rng), "times": [time], "sent": [time]}]}
    return Built(setup, {"booked": False, "stored_symptoms": False, "taken": 1, "reply_mentions": ["taken"]})


def _medicines_photo(drawn: Drawn, rng: random.Random) -> Built:
    said = drawn.slot("med")
    setup = {"medications": [{"name": MEDICINES[said], "times": list(DOSE_TIMES)}]} if said else {}
    return Built(setup, {**_nothing_made(), "reply_mentions": ["Medications"]})


def _medicines_reminder(drawn: Drawn, rng: random.Random) -> Built | None:
    med, freq, time, dose = drawn.slot("med"), drawn.slot("freq"), drawn.slot("time"), drawn.slot("dose")
    if med is None or med.startswith("my ") or "{rel}" in drawn.template or "{poss}" in drawn.template:
        return None  # no medicine's name, or someone else's reminder
    if _NOT_SETTING.search(drawn.template):
        return None
    if freq is not None:
        times_per_day = TIMES_PER_DAY[freq]
    elif time is not None:
        times_per_day = 1
    else:
        return None  # no schedule said: the assistant must ask
    if times_per_day is None:
        return None
    reminder: dict[str, Any] = {"name": MEDICINES[med], "times_per_day": times_per_day}
    if dose is None:
        reminder["dose"] = None
    elif not _STRENGTH.match(dose):
        reminder["dose"] = dose
    return Built({}, {"reminder": reminder, "booked": False, "stored_symptoms": False})


def _book_constraint(drawn: Drawn, rng: random.Random) -> Built | None:
    said = drawn.slot("spec")
    if said is None:
        said = next((word for word in ("GP",) if re.search(rf"\b{word}\b", drawn.filled)), None)
    specialization = SPECIALIZATION.get(said) if said is not None else None
    if specialization is None:
        return None
    # A constraint the demo clinics can meet on every run: a weekday, not the evening, a named time ahead.
    if drawn.slot("day") is not None and drawn.slot("day") not in CLINIC_DAYS:
        return None
    if drawn.slot("part") == "evening" or (drawn.slot("when") is not None and drawn.slot("when") not in WHEN_FREE):
        return None
    accept = rng.random() < 0.5
    return Built({}, {"specializations": [specialization], "booked": accept}, accept_appointment=accept)


_DISEASES = {disease.name: disease for disease in DISEASES}


def _book_symptoms(drawn: Drawn, rng: random.Random) -> Built | None:
    disease = _DISEASES.get(drawn.slot("disease") or "")
    if disease is None:
        return None  # a hand-written complaint: which disease it is, nobody said
    accept = rng.random() < 0.5
    expect = {"specializations": [disease.examined_first_by], "booked": accept}
    return Built({}, expect, accept_appointment=accept, answers=S2D_ANSWERS)


BUILDERS: dict[str, Builder] = {
    "help_now": _help_now,
    "out_of_scope": _out_of_scope,
    "appointments_list": _appointments_list,
    "appointments_cancel": _appointments_cancel,
    "appointments_reschedule": _appointments_reschedule,
    "book_symptoms": _book_symptoms,
    "book_constraint": _book_constraint,
    "medicines_reminder": _medicines_reminder,
    "medicines_today": _medicines_today,
    "medicines_taken": _medicines_taken,
    "medicines_photo": _medicines_photo,
    "my_health": _my_health,
}


def usable_families(use_case: str, split: str) -> list[Family | ComplaintFamily]:
    """The families of ``use_case`` in ``split`` that cases are made from: not the mixed requests."""
    return [family for family in requests.families(use_case, split) if not family.name.startswith("mixed")]


# --------------------------------------------------------------------------- public API


def generate(per_case: int, split: str, seed: int = SEED, use_cases: Iterable[str] = USE_CASES) -> list[dict[str, Any]]:
    """``per_case`` scenario cases (JSON-ready, the agent_scenarios format) of each of ``use_cases``
    from ``split``'s template families, families taken in turn."""
    if per_case < 1:
        raise ValueError("per_case must be at least 1")
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}")
    cases: list[dict[str, Any]] = []
    for use_case in use_cases:
        if use_case not in BUILDERS:
            raise ValueError(f"unknown use case {use_case!r}")
        # Its own generator: a use case's cases do not change when another's templates do.
        rng = random.Random(f"{seed}/scenarios/{use_case}/{split}")
        chosen = usable_families(use_case, split)
        offset = rng.randrange(len(chosen))
        seen: set[str] = set()
        for i in range(per_case):
            made = _one(use_case, chosen, offset + i, rng, seen)
            if made is None:
                raise ValueError(f"no request of {use_case} ({split}) can be set up")
            family, drawn, built = made
            seen.add(drawn.text.lower())
            case: dict[str, Any] = {
                "id": f"{use_case}-{split}-{i + 1:03d}",
                "category": use_case,
                "unseen": split == "test",
                "family": family.name,
                "message": drawn.text,
                "answers": list(built.answers),
                "accept_appointment": built.accept_appointment,
                "consent": True,
            }
            if built.setup:
                case["setup"] = built.setup
            case["expect"] = built.expect
            cases.append(case)
    return cases


def _one(
    use_case: str, chosen: list, start: int, rng: random.Random, seen: set[str]
) -> tuple[Family | ComplaintFamily, Drawn, Built] | None:
    """A request of the family at ``start`` (in turn) that can be set up, not written yet if a few
    more draws find one; a family none of whose requests can be set up gives way to the next."""
    builder = BUILDERS[use_case]
    for step in range(len(chosen)):
        family = chosen[(start + step) % len(chosen)]
        found = None
        for _ in range(_DRAWS):
            drawn = family.draw(rng)
            built = builder(drawn, rng)
            if built is None:
                continue
            found = (family, drawn, built)
            if drawn.text.lower() not in seen:
                break
        if found is not None:
            return found
    return None
