"""When the patient wants to be seen, read from their own words in this request.

Hand-written rules rather than a date parser (dateparser, parsedatetime): the assistant needs only a
few English phrases ("Thursday afternoon", "next Monday morning", "tomorrow", "something in the
afternoon"), and what matters most is what must *not* count: symptom talk such as "I throw up in the
morning", "since Monday" or a greeting like "Good afternoon". A general parser reads those as dates;
these rules only read a weekday or a part of the day in a sentence about scheduling, or in an answer
to the assistant's question (which is about scheduling by construction).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, replace

from agents.tools.said import sentences

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# Part of the day by the slot's local start time: [from, to).
PARTS = {"morning": (dt.time(0), dt.time(12)), "afternoon": (dt.time(12), dt.time(17)), "evening": (dt.time(17), None)}

_SCHEDULING = re.compile(
    r"\b(appointments?|book|booking|slots?|schedule|available|free|prefer|preferably|something|"
    r"anything|works?|suits?|possible|instead|rather|how about|what about|can i come|see (?:a|the|him|her)|"
    r"doctor|specialist|\w+(?:ologist|ician))\b",
    re.I,
)
_GREETING = re.compile(r"\bgood (morning|afternoon|evening)\b", re.I)
_DAY = re.compile(
    r"(?P<before>\b(?:since|last|from|over|until|till|ago|every)\s+)?"
    r"\b(?P<next>next\s+|this\s+|on\s+)?(?P<day>today|tomorrow|" + "|".join(WEEKDAYS) + r")s?\b",
    re.I,
)
_PART = re.compile(r"\b(morning|afternoon|evening)s?\b", re.I)


@dataclass(frozen=True)
class Preference:
    """A day (None: any), a part of the day (None: any) and a clock time (None: any), as the patient
    said them."""

    day: dt.date | None = None
    part: str | None = None
    said: str = ""
    at: dt.time | None = None
    weekday: bool = False  # the day was named by its weekday ("Friday"), not "today" or "tomorrow"

    def __bool__(self) -> bool:
        return self.day is not None or self.part is not None or self.at is not None

    def weekday_is_today(self, today: dt.date) -> bool:
        """Whether the day was named by today's weekday: "move it to Friday", said on a Friday, may
        mean this Friday or the next one (each caller says which it is)."""
        return self.weekday and self.day == today

    def a_week_on(self) -> Preference:
        """The same wish a week later: the coming weekday rather than today's."""
        return replace(self, day=self.day + dt.timedelta(days=7)) if self.day is not None else self

    def fits(self, start: dt.datetime) -> bool:
        """Whether a slot starting at ``start`` (aware, in the patient's zone) fits."""
        if self.day is not None and start.date() != self.day:
            return False
        if self.at is not None and start.time() != self.at:
            return False
        if self.part is not None:
            low, high = PARTS[self.part]
            if start.time() < low or (high is not None and start.time() >= high):
                return False
        return True


def _sentences(text: str) -> list[str]:
    """The user's sentences (not cut at the dot of a time, "9.30"), without the marks that end them."""
    return [sentence.rstrip("!?;.") for sentence in sentences(text)]


def _day(match: re.Match, today: dt.date) -> dt.date | None:
    if match.group("before"):
        return None  # "since Monday", "last Friday": when it started, not when to come
    word = match.group("day").lower()
    if word == "today":
        return today
    if word == "tomorrow":
        return today + dt.timedelta(days=1)
    ahead = (WEEKDAYS.index(word) - today.weekday()) % 7
    if ahead == 0 and (match.group("next") or "").strip().lower() == "next":
        ahead = 7
    return today + dt.timedelta(days=ahead)


def _part_is_over(part: str, at: dt.time) -> bool:
    end = PARTS[part][1]
    return end is not None and at >= end


def preference_from(parts: list[str], today: dt.date, now: dt.time | None = None) -> Preference:
    """The preference in ``parts`` (the request's message, then the answers to questions): the latest
    answer that states one wins; in the opening message only sentences about scheduling count.

    ``now``, the local time of day: a weekday named on that very day, with a part of it that is over
    ("Friday morning", said on a Friday afternoon), is next week's; "today" stays today."""
    found = Preference()
    for position, text in enumerate(parts):
        sentences = _sentences(_GREETING.sub(" ", text))
        if position == 0:
            sentences = [s for s in sentences if _SCHEDULING.search(s)]
        for sentence in sentences:
            named = next(((m, d) for m in _DAY.finditer(sentence) if (d := _day(m, today)) is not None), None)
            day = named[1] if named else None
            part_match = _PART.search(sentence)
            part = part_match.group(1).lower() if part_match else None
            at = clock_time(sentence)
            wish = Preference(
                day=day,
                part=part,
                said=sentence.strip(),
                at=at,
                weekday=bool(named and named[0].group("day").lower() in WEEKDAYS),
            )
            if now is not None and wish.weekday_is_today(today) and part is not None and _part_is_over(part, now):
                wish = wish.a_week_on()
            if wish:
                found = wish
    return found


# "At 2pm", "14:30", "at 9.30", "3 o'clock"; not "since 2pm" or "until 3:00" (when a symptom began or
# ended).
_CLOCK = (
    re.compile(r"\b(?P<h>\d{1,2})(?:[:.](?P<m>\d{2}))?\s*(?P<x>a\.?m\.?|p\.?m\.?|o'?clock)(?=\W|$)", re.I),
    re.compile(r"\b(?P<h>\d{1,2}):(?P<m>\d{2})\b"),
    re.compile(r"\bat\s+(?P<h>\d{1,2})(?:[.](?P<m>\d{2}))?\b", re.I),
)
_NOT_A_WISH = re.compile(r"\b(?:since|from|until|till|ago|last|every)\s+(?:about\s+|around\s+)?$", re.I)
# Either end of a window ("08:00-18:00", "10am to 2pm", "between 9 and 12") is not a time to be seen
# at: the window is the model's ``time_range``, and reading its start as "at 08:00" turned a day free
# from 8 to 6 into "nobody is free at 08:00".
_DASH = r"[-\u2013\u2014]"  # hyphen, en and em dash
_WINDOW_STARTS = re.compile(rf"^\s*(?:{_DASH}|to\b|until\b|till\b)\s*\d", re.I)
_WINDOW_ENDS = re.compile(rf"\d\s*(?:[ap]\.?m\.?|o'?clock)?\s*(?:{_DASH}|\bto|\buntil|\btill)\s*$", re.I)
_BETWEEN = re.compile(r"\bbetween\s+(?:\S+\s+and\s*)?$", re.I)


def _in_window(text: str, match: re.Match) -> bool:
    before, after = text[: match.start()], text[match.end() :]
    return bool(_WINDOW_STARTS.match(after) or _WINDOW_ENDS.search(before) or _BETWEEN.search(before))


def clock_time(text: str) -> dt.time | None:
    """The clock time in "at 2pm", "14:30", "at 9.30", "3 o'clock" (None when there is none). A bare hour
    from 1 to 7 is the afternoon: clinics are closed at 3 in the morning."""
    text = text or ""
    match = next(
        (
            m
            for pattern in _CLOCK
            for m in pattern.finditer(text)
            if not _NOT_A_WISH.search(text[: m.start()]) and not _in_window(text, m)
        ),
        None,
    )
    if match is None:
        return None
    hour, minute = int(match.group("h")), int(match.group("m") or 0)
    meridiem = (match.groupdict().get("x") or "").lower().replace(".", "")
    if meridiem == "pm" and hour < 12:
        hour += 12
    elif meridiem == "am" and hour == 12:
        hour = 0
    elif not meridiem.endswith("m") and 1 <= hour <= 7:
        hour += 12
    if hour > 23 or minute > 59:
        return None
    return dt.time(hour, minute)


def describe(preference: Preference) -> str:
    """``Thursday 26 Nov, afternoon``: the preference in the words of the reply."""
    words = []
    if preference.day is not None:
        words.append(f"{preference.day:%A} {preference.day.day} {preference.day:%b}")
    if preference.part is not None:
        words.append(f"in the {preference.part}")
    if preference.at is not None:
        words.append(f"at {preference.at:%H:%M}")
    return " ".join(words)
