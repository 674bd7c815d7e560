"""The booking desk: "book me a dermatologist", "the earliest cardiologist", "a GP on Thursday morning".

A request that names the kind of specialist and no complaint needs no triage: the patient has
chosen. The 135M planner was trained on complaints, and given "book me a skin doctor" it asked for
symptoms again and again. So, like the other desks (agents/runtime.py), this one acts before the
model with the booking tools the model uses: ``get_available_specialists`` for that specialization
(which reads the day and part of the day from the patient's words: "Thursday morning"; nothing said
is the earliest), then the proposal as a question (the chat shows it with Confirm and Decline), and
``book_appointment`` only after a yes; a no books nothing and says so, and another wish ("anything
in the afternoon?") searches again. A request that names a complaint ("a cardiologist for my chest
pain") goes to the model, whose flows store the complaint and triage it.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.template.loader import render_to_string

from agents import desk_steps
from agents.desk_reading import prepared, typos_read
from agents.field_names import clipped_spans
from agents.tools.appointments import ANSWER_NO, ANSWER_YES
from agents.tools.doctors import doctor_named
from agents.tools.transcript import request_parts

if TYPE_CHECKING:
    from agents.runtime import Runtime

log = logging.getLogger(__name__)

DESK = "Booking desk:"  # how the desk's planner steps begin (the chat page shows its words as written)
SEARCH, ASK, BOOK = "get_available_specialists", "get_input_from_user", "book_appointment"
# How many times one request may search again for another wish before the desk stops asking.
SEARCHES = 3

# A wish to be booked is said with a verb or "the earliest", "available": "my GP visit" or "remember my
# GP appointment" names an appointment, it does not ask for one.
_WANTS = re.compile(
    r"\b(?:book|make|get|find|schedule|arrange|set up|needs?|needed|required|wants?|wanted|like|see|seeing|earliest|"
    r"soonest|"
    r"line (?:me|us|him|her) up|"
    r"first available|next available|available|free|put me down|pencil me in|fit me in|squeeze me in|"
    # "dermatologist on friday please", "I'm after a psychiatrist appointment", "sign me up for a dermatologist",
    # "do you have any gynaecologist appointments", "what's the first dermatologist slot"
    r"please|pls|plz|i'?m after|looking for|set me up|reserve|(?:do|have) you (?:have|got)|"
    # "sign my dad up for", "put me in with the cardiologist"
    r"(?:sign|put|book|get)\s+(?:me|us|him|her|mum|mom|dad|my\s+\w+)\s+(?:up|in)|"
    r"first\s+(?:\w+\s+){0,2}?(?:slot|appointment|opening|time))\b"
    # "any dermatology appointments tomorrow": asked as a question about free ones
    r"|^\W*any\s+(?:\w+\s+)?(?:appointments?|appts?|slots?|openings?)\b"
    # "any openings with the allergist this week?", "availability for a neurologist"
    r"|\b(?:openings?|availability|free (?:slots?|times?|appointments?))\s+(?:with|for|at)\b"
    # "got any slots with a urologist", "I'd prefer a female gynaecologist"
    r"|\b(?:got|have you got|are there|is there)\s+any\s+(?:\w+\s+){0,2}?(?:slots?|appointments?|openings?|times?)\b"
    # "does the cardiologist have anything on friday?", "when does the orthopedist have openings"
    r"|\bdoes\s+(?:the|a|an|any|dr\.?)\s+[\w.']+(?:\s+[\w.']+)?\s+have\s+(?:anything|something|any|free|openings?|"
    r"slots?|space|room|time|availability)\b"
    # "any day but monday for the gastroenterologist", "I'd love an appointment with the skin doctor"
    r"|\bany\s+(?:day|time|weekday)\s+(?:but|except|other than|apart from|is (?:fine|good|ok)|works|next|this)\b"
    r"|\bi(?:'d| would) love\s+(?:an?\b|to (?:see|book|get|make|have)\b)"
    r"|\bprefer\b|\bany chance of\b|^\W*(?:anything|something)\b|\bsort\s+(?:\w+\s+)?out\b"
    r"|\b(?:can|could|may)\s+(?:i|we|he|she|my\s+\w+)\s+(?:please\s+)?(?:have|get)\b"
    r"|\bwould be (?:great|good|nice|lovely|perfect|ideal)\b"
    r"|\bput\s+(?:me|us|him|her|mum|mom|dad|[a-z]+)\s+down\s+for\b"
    # the appointment named and nothing else: "cardiologist appointment", "appointment with the dietitian on monday"
    r"|^\W*(?:an?\s+)?[\w-]+\s+(?:appointment|appt|slot)\s*(?:(?:on|for|this|next)\s+\w+|tomorrow|today|asap)?"
    r"\W*(?:please|pls)?\W*$"
    r"|^\W*(?:an?\s+)?(?:appointment|appt)\s+(?:with|for)\s+(?:an?|the)\s+"
    # "ortho appointment first thing tomorrow", "a psych appointment in two weeks", "neuro appt before noon"
    r"|^\W*(?:an?\s+)?[\w-]+\s+(?:appointment|appt|slot)\s+"
    r"(?:first thing|in\s+(?:a|an|one|two|three|\d+)\s+(?:days?|weeks?)|"
    r"before|after|around|by|at|on|for|this|next|tomorrow|today|asap|any)\b"
    r"(?![^.?!]*\b(?:was|were|is|are|has|had|have|said|told|did|gave|saw|went)\b)"
    # a kind of specialist and when, said alone: "urologist next week, any day except friday"
    # "any neurologists around 10am on wednesday?"
    r"|^\W*(?:an?\s+|the\s+|any\s+)?[\w-]+(?:ists?|ians?|ology|ics)\W*\s+"
    r"(?:next|this|on|tomorrow|today|asap|at|in the|any|around|before|after|from|early|late)\b"
    r"(?![^.?!]*\b(?:was|were|is|are|has|had|have|said|told|did|gave|saw)\b)",
    re.I,
)
_NOT = re.compile(
    r"\b(?:don'?t|do not|no longer|never|not|won'?t|will not|wont|didn'?t)\s+(?:\w+\s+){0,2}?(?:book|need|want|see)\b"
    # changing an appointment the patient has: the appointments desk's, or the model's
    r"|\b(?:cancel\w*|re-?schedul\w*|postpon\w*|move|call off)\b|\bno,? thanks?\b|\bno,? thank you\b|\bnope\b",
    re.I,
)
# A short message that names a field and a time and nothing else is a booking however it is put:
# "Thursday afternoon, cardiologist", "Is Friday possible with a dermatologist?", "What about a
# dermatologist on Friday?", "a dermatologist visit on thursday would suit me". Not a statement
# about a visit ("the dermatologist on friday said ..."), not the patient's own appointment ("my
# cardiology appointment tomorrow": the appointments desk's), not a question about the practice.
_A_TIME = re.compile(
    r"\b(?:today|tomorrow|tmrw|tonight|monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend|"
    r"morning|afternoon|evening|lunchtime|noon|midday|(?:this|next|coming) (?:week|month)|"
    r"\d{1,2}(?::\d{2})?\s*(?:am|pm)|(?:the )?\d{1,2}(?:st|nd|rd|th)|asap|earliest|soonest)\b",
    re.I,
)
_NOT_A_WISH = re.compile(
    r"\b(?:was|were|had|did|said|says|told|tells|went|saw|seen|gave|helped|called|cancell?ed|sent|wrote|"
    r"prescribed|found|thinks?|reckons?|open|opens|close|closes|closed|parking|address|phone|cost|price|pay|"
    r"paid|insurance|accept|accepts|far|located|where)\b|\bis (?:it|that|this)\b"
    r"|\b(?:my|[a-z]+'s)\s+(?:[\w']+\s+){0,2}?(?:appointment|appt|visit|booking)s?\b"
    # "my cardiologist on friday": the patient's own specialist, most likely an appointment they have
    r"|\bmy\s+(?:\w+(?:ist|ian)|gp|doctor|specialist)\b",
    re.I,
)
_SHORT = 14  # words


def _named_with_a_time(text: str) -> bool:
    return len(text.split()) <= _SHORT and bool(_A_TIME.search(text)) and not _NOT_A_WISH.search(text)


# Asking whether one should see a specialist is asking for advice: the model's (it triages).
_ADVICE = re.compile(r"\b(?:should|do|would)\s+i\s+(?:need to\s+)?(?:see|go to|visit)\b|\bwho should\b", re.I)
_VOCABULARY = (
    "book", "booking", "appointment", "earliest", "soonest", "available", "doctor", "specialist", "please",
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "morning", "afternoon",
    "evening", "tomorrow", "today", "hello", "sorry", "doctor",
)  # fmt: skip


@dataclass(frozen=True)
class BookingRequest:
    specialization: str  # the directory's name ("" when the kind asked for is not in it)
    generic: bool = False  # "a doctor": the general physician, no field named
    missing: str = ""  # a kind of practitioner the directory does not have ("physio"), or a doctor ("Dr Patel")
    doctor: str = ""  # the directory's doctor the patient named ("Dr. Sarah Chen"); the search offers only theirs


# Practitioners patients ask for that a specialist directory may lack: the desk says so and lists who
# is there, rather than letting the model book something else in their place.
_OTHER_PRACTITIONERS = re.compile(
    r"\b(?P<kind>physio(?:therap(?:ist|y))?s?|dentists?|chiropractors?|opticians?|optometrists?|podiatrists?|"
    r"chiropodists?|psychologists?|therapists?|counsell?ors?|midwi(?:fe|ves)|osteopaths?|acupuncturists?|"
    r"audiologists?|speech therapists?)\b",
    re.I,
)


# "A doctor" with no field named: the general physician, the doctor a patient means by it.
_A_DOCTOR = re.compile(r"\b(?:an?|the|any|some)\s+(?:doctor|doc|dr)\b", re.I)
GENERAL = "general physician"
_BARE_WORDS = 12


def _named(text: str) -> str | None:
    """The one specialization of the directory ``text`` names: its name, a synonym, a plural, or the
    field's adjective ("an orthopaedic doctor", "the dermatology clinic": the name's stem), a typo of
    a one-word name ("pediartician"); "a doctor" alone is the general physician."""
    from agents.appointment_desk import directory_words

    directory = _directory()
    low = typos_read(text, directory_words(directory.values())).lower()
    spans: dict[str, list[tuple[int, int]]] = {}
    for specialization, names in directory.items():
        for name in names:
            stem = _stem(name)
            patterns = [rf"\b{re.escape(name)}s?\b", *([rf"\b{re.escape(stem)}\w*"] if stem else [])]
            for pattern in patterns:
                spans.setdefault(specialization, []).extend(m.span() for m in re.finditer(pattern, low))
        spans.setdefault(specialization, []).extend(clipped_spans(specialization, low))
    # "an orthopaedic surgeon" names the orthopedist, not also the general surgeon ("surgeon"): a name
    # said only inside another specialization's longer name is not said.
    found = {
        specialization
        for specialization, own in spans.items()
        if own and not all(_inside(span, spans, specialization) for span in own)
    }
    # Only a short, bare request: a longer message with "a doctor" in it most likely describes a
    # problem the symptom lexicon missed, and the model's triage should read it.
    if not found and _A_DOCTOR.search(low) and GENERAL in directory and len(low.split()) <= _BARE_WORDS:
        return GENERAL
    if len(found) > 1:
        # "my GP referred me to a gastroenterologist": the one referred to
        referred = _REFERRED_TO.search(low)
        if referred:
            return _named(referred.group(1))
    return found.pop() if len(found) == 1 else None


def _inside(span: tuple[int, int], spans: dict[str, list[tuple[int, int]]], own: str) -> bool:
    """Whether ``span`` lies within a longer match of another specialization."""
    start, end = span
    return any(
        other != own and s <= start and end <= e and (e - s) > (end - start)
        for other, theirs in spans.items()
        for s, e in theirs
    )


_REFERRED_TO = re.compile(r"\b(?:referred|sent|told)\s+(?:me|him|her|us|them)\s+to\s+(?:see\s+)?(.+)", re.I)


def _directory() -> dict[str, tuple[str, ...]]:
    """The directory's specializations by name, with their names (the appointments desk's reading)."""
    from agents.appointment_desk import specializations_of_directory

    return {s.name: names for s, names in specializations_of_directory()}


def _in_directory(word: str) -> bool:
    stem = word.lower().rstrip("s")
    return any(stem in name for names in _directory().values() for name in names)


def _generic(text: str) -> bool:
    return bool(_A_DOCTOR.search(text)) and not re.search(r"\b(?:gp|general|family)\b", text, re.I)


def _stem(name: str) -> str:
    """ "orthopaedist" -> "orthopae", "dermatologist" -> "dermatolog": one word naming a specialist by its
    field, without its ending; none for short or several-word names."""
    if " " in name or not re.search(r"(?:ist|ian|ician)$", name):
        return ""
    stem = re.sub(r"(?:ician|ist|ian)$", "", name)
    return stem if len(stem) >= 6 else ""


def read(message: str) -> BookingRequest | None:
    """The booking in ``message``: a wish to book one named specialization (or a named doctor of the
    directory) and no complaint; else None."""
    from agents import appointment_desk  # an appointment the patient has is that desk's
    from agents.tools.said import symptoms_in  # the symptom lexicon (loads spaCy once)

    text = prepared(message, _VOCABULARY)
    if not text or not (_WANTS.search(text) or _named_with_a_time(text)) or _NOT.search(text) or _ADVICE.search(text):
        return None
    if appointment_desk.read(text) is not None:
        return None
    name = _named(text)
    # "Dr Chen please": the named doctor's specialization, unless another one is named ("Dr Chen
    # referred me to a dermatologist"); a doctor the directory lacks is said to be missing.
    doctor = doctor_named(text)
    found = None
    if doctor is not None and doctor.specialist is None and name in (None, GENERAL):
        found = BookingRequest("", missing=doctor.said)
    elif doctor is not None and doctor.specialist is not None:
        if name in (None, GENERAL, doctor.specialist.specialization.name):
            found = BookingRequest(doctor.specialist.specialization.name, doctor=doctor.specialist.name)
    elif name is None:
        other = _OTHER_PRACTITIONERS.search(text)
        if other is None or _in_directory(other.group("kind")):
            return None
        # "a physiotherapy session" asks for a physiotherapist
        found = BookingRequest("", missing=re.sub(r"therapy$", "therapist", other.group("kind").lower()))
    if symptoms_in(text):
        return None  # a complaint: the model's flows store it and triage it
    if found is not None:
        return found
    generic = name == GENERAL and _generic(text)
    if generic:
        from agents.tools.said import names_a_complaint

        # "my stomach has been upset for days, need a doctor": a complaint the lexicon has no symptom
        # for is still one, and "a doctor" chose no field: the model's triage reads it
        if names_a_complaint(text):
            return None
    return BookingRequest(name, generic=generic)


def request_of(message: str) -> BookingRequest | None:
    """The booking in a request's message: the whole message, or the rest of a mixed one after the
    appointments desk's part ("cancel Tuesday and book me a skin doctor instead")."""
    from agents import appointment_desk

    found = read(message)
    if found is not None:
        return found
    mixed = appointment_desk.read(message)
    return read(mixed.rest) if mixed is not None and mixed.rest else None


def start(runner: Runtime, request: BookingRequest) -> bool:
    """Search and propose (the appointments desk hands over the rest of a mixed request here)."""
    log.info("conversation %s: booking desk: %s", runner.conversation.pk, request.specialization or request.missing)
    if request.missing:
        kinds = sorted(_directory())
        return _answer_and_end(
            runner,
            f"the directory has no {request.missing}.",
            render_to_string(
                "agents/booking_missing.txt",
                {"asked": request.missing, "kinds": kinds, "person": request.missing.startswith("Dr ")},
            ).strip(),
        )
    return _search(runner, request)


def handle(runner: Runtime) -> bool:
    """Do the desk's part of the chat's unread message; True when the run needs nothing more now."""
    states = runner.states
    if not states:
        return False
    last = states[-1]
    if last["from"] == "user":
        request = read(str(last["value"]))
        if request is None:
            return False
        return start(runner, request)
    if last["from"] != "observation" or _desk_tool(states) != ASK:
        return False
    parts = request_parts(runner.conversation)
    request = request_of(parts[0]) if parts else None
    if request is None:
        return False
    return _answered(runner, request, parts[-1])


def _desk_tool(states: list[dict[str, Any]]) -> str | None:
    return desk_steps.desk_tool(states, DESK)


def _plan(runner: Runtime, why: str, action: str) -> None:
    desk_steps.plan(runner, DESK, why, action)


def _answer_and_end(runner: Runtime, why: str, message: str) -> bool:
    desk_steps.tell(runner, DESK, why, message)
    return desk_steps.end(runner, DESK, "the user was told.")


def _search(runner: Runtime, request: BookingRequest) -> bool:
    wanted = request.specialization
    asked = f"an appointment with {request.doctor}" if request.doctor else f"a {wanted}"
    _plan(runner, f"the user asks to book {asked}.", f"Find the free slot of {asked} that fits what the user said.")
    # the search reads a doctor the user named from their words (agents.tools.doctors)
    found = runner.execute_call({"tool": SEARCH, "parameters": {"symptoms": "", "specialization": wanted}})
    result = found.get("result") if isinstance(found, dict) else None
    if not isinstance(result, dict) or not result.get("specialist_id"):
        return _answer_and_end(
            runner,
            f"no {wanted} is free then.",
            render_to_string("agents/booking_none_free.txt", {"wanted": wanted, "doctor": request.doctor}).strip(),
        )
    question = render_to_string(
        "agents/booking_proposal.txt",
        {
            "name": result["name"],
            "slot": result["available_slot"],
            "fits": result.get("fits_preference") is not False,
            "preference": result.get("preference"),
            "generic": request.generic,
        },
    ).strip()
    _plan(runner, f"{result['name']} is free.", "Propose the appointment and wait for the user's answer.")
    runner.execute_call({"tool": ASK, "parameters": {"user_id": runner.user_ref, "questions": question}})
    return True


def _last_offer(runner: Runtime) -> dict[str, Any] | None:
    for previous, state in zip(reversed(runner.states[:-1]), reversed(runner.states[1:]), strict=False):
        if previous["from"] == "caller" and (previous["value"] or {}).get("tool") == SEARCH:
            result = (state["value"] or {}).get("result") if isinstance(state["value"], dict) else None
            return result if isinstance(result, dict) and result.get("specialist_id") else None
    return None


def _answered(runner: Runtime, request: BookingRequest, answer: str) -> bool:
    offer = _last_offer(runner)
    if ANSWER_YES.match(answer) and offer is not None:
        slot = offer["available_slot"]
        day = slot["date"].split("-")
        when = f"{slot['time']}, {day[2]}/{day[1]}/{day[0]}"
        _plan(runner, "the user agreed.", "Book the appointment.")
        booked = runner.execute_call(
            {
                "tool": BOOK,
                "parameters": {
                    "user_id": runner.user_ref,
                    "specialist_id": offer["specialist_id"],
                    "appointment_time_date": when,
                },
            }
        )
        if "error" in booked:
            return _answer_and_end(
                runner, "the booking failed.", f"Nothing was booked: {booked['error']} Tell me another time."
            )
        # What was booked is the record's: the chat's booking card and the notification say it.
        return desk_steps.end(runner, DESK, "the user agreed; the booking is recorded.")
    if ANSWER_NO.match(answer):
        return _answer_and_end(runner, "the user declined.", "Nothing was booked.")
    searches = sum(1 for s in runner.states if s["from"] == "caller" and (s["value"] or {}).get("tool") == SEARCH)
    if searches >= SEARCHES:
        return _answer_and_end(
            runner,
            "the user's wishes found no time.",
            "Nothing was booked. The Appointments page lists every free time, or tell me the day you want.",
        )
    return _search(runner, request)  # another wish ("anything in the afternoon?"): the search reads it
