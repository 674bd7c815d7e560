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
from dataclasses import dataclass

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
    """A day (None: any) and a part of the day (None: any), as the patient said them."""

    day: dt.date | None = None
    part: str | None = None
    said: str = ""

    def __bool__(self) -> bool:
        return self.day is not None or self.part is not None

    def fits(self, start: dt.datetime) -> bool:
        """Whether a slot starting at ``start`` (aware, in the patient's zone) fits."""
        if self.day is not None and start.date() != self.day:
            return False
        if self.part is not None:
            low, high = PARTS[self.part]
            if start.time() < low or (high is not None and start.time() >= high):
                return False
        return True


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"[.!?;\n]+", text) if s.strip()]


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


def preference_from(parts: list[str], today: dt.date) -> Preference:
    """The preference in ``parts`` (the request's message, then the answers to questions): the latest
    answer that states one wins; in the opening message only sentences about scheduling count."""
    found = Preference()
    for position, text in enumerate(parts):
        sentences = _sentences(_GREETING.sub(" ", text))
        if position == 0:
            sentences = [s for s in sentences if _SCHEDULING.search(s)]
        for sentence in sentences:
            day = next((d for m in _DAY.finditer(sentence) if (d := _day(m, today)) is not None), None)
            part_match = _PART.search(sentence)
            part = part_match.group(1).lower() if part_match else None
            if day is not None or part is not None:
                found = Preference(day=day, part=part, said=sentence.strip())
    return found


def describe(preference: Preference) -> str:
    """``Thursday 26 Nov, afternoon``: the preference in the words of the reply."""
    words = []
    if preference.day is not None:
        words.append(f"{preference.day:%A} {preference.day.day} {preference.day:%b}")
    if preference.part is not None:
        words.append(f"in the {preference.part}")
    return " ".join(words)
