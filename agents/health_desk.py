"""The health desk: "how was my day?", "how did I sleep?", "what was my heart rate this week?".

A question about the patient's own recorded health is answered from the readings before the model
runs, like the other chat guards (agents/runtime.py): a small model asked "how were my vitals
today?" stored a symptom record, and "how was my day?" looped. The desk reads the question
(:func:`read`: what it is about and which period), calls ``get_health_summary``
(agents.tools.my_health: every number computed from the readings, put into words by templates) and
ends the request; the tool's message is the answer.

Hand-written rules on purpose, like agents.scope and agents.appointment_desk: the desk must not take
a complaint ("my heart rate is racing and I feel dizzy", "I can't sleep") away from the model and the
help-now guard, so it reads only questions about the record ("how", "what", "show me") that name no
symptom, and a statement goes on as before.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agents import desk_steps
from agents.desk_reading import prepared

if TYPE_CHECKING:
    from agents.runtime import Runtime

log = logging.getLogger(__name__)

DESK = "Health desk:"  # how the desk's planner steps begin (the chat page shows its words as written)

_TOPICS = (
    # "what time did I wake up", "when did dad go to bed": asked of the night the watch recorded
    (
        "sleep",
        re.compile(
            r"\b(?:sleep|slept|sleeping|did\s+(?:i|\w+)\s+(?:wake|get)\s+up|did\s+(?:i|\w+)\s+(?:go|get)\s+to\s+bed)\b",
            re.I,
        ),
    ),
    ("heart_rate", re.compile(r"\b(?:heart ?rate|pulse|heart ?beats?|bpm|hr|heart\s+(?:been|doing|looking))\b", re.I)),
    ("blood_pressure", re.compile(r"\b(?:blood pressure|bp)\b", re.I)),
    ("spo2", re.compile(r"\b(?:oxygen|spo2|o2|saturation|sats)\b", re.I)),
    ("steps", re.compile(r"\b(?:steps|walked|walking|how far did (?:i|\w+) walk)\b", re.I)),
    ("vitals", re.compile(r"\b(?:vitals?|vital signs|readings|numbers|stats|measurements)\b", re.I)),
    # asked of the record ("what was my temperature", "my weight this week"): the watch does not measure them
    ("temperature", re.compile(r"\b(?:my|his|her|\w+'s)\s+(?:body\s+)?(?:temperature|temp)\b", re.I)),
    ("weight", re.compile(r"\b(?:my|his|her|\w+'s)\s+weight\b", re.I)),
    (
        "blood_sugar",
        re.compile(r"\b(?:my|his|her|\w+'s)\s+(?:blood sugars?|blood glucose|glucose|sugar levels?)\b", re.I),
    ),
    (
        "day",
        re.compile(
            r"\b(?:(?:my|\w+'s|his|her)\s+(?:whole\s+)?(?:day|week|health|report|daily report|health report|"
            r"weekly report|summary)|how\s+(?:am|is|are|was|were)\s+(?:i|my|\w+)\s+(?:doing|today|this week)|"
            r"how\s+was\s+(?:\w+\s+)?day|how'?s\s+my\s+(?:day|health)|"
            # "did my watch pick up anything unusual", "has the watch recorded anything"
            r"(?:watch|smartwatch|tracker|fitbit)\s+(?:\w+\s+){0,2}?(?:pick(?:ed)?\s+up|record(?:ed)?|show(?:ed|s)?|"
            r"detect(?:ed)?|notice(?:d)?|flag(?:ged)?|see|saw|say|said)|anything\s+(?:unusual|abnormal|worrying))\b",
            re.I,
        ),
    ),
)
_ASKS = re.compile(
    r"\?|^\W*(?:how|hows|how's|what|whats|what's|when|was|were|did|do|is|are|has|have|show|tell|give|send|summari[sz]e|"
    r"any|anything|can you|could you|can i|could i|please)\b|\b(?:show|tell|give)\s+me\b|\bsummary\b",
    re.I,
)
# The patient's (or the patient's family member's) own record: "my", "I", "mum's", "did dad sleep".
_OWN = re.compile(r"\b(?:my|i|me|mine|\w+'s|his|her|(?:did|has|have|is)\s+(?:mum|mom|dad|he|she|\w+)\b)", re.I)
_PERIODS = (
    ("last_night", re.compile(r"\b(?:last night|overnight|tonight)\b", re.I)),
    ("yesterday", re.compile(r"\byesterday\b", re.I)),
    (
        "week",
        re.compile(
            r"\b(?:this week|past week|last week|the week|weekly|last (?:7|seven|few) days|past (?:7|seven|few) days|"
            r"over the (?:last|past) (?:few|7|seven) days|this month|lately|recently|since monday|my week)\b",
            re.I,
        ),
    ),
)
# A measure said as a problem, not asked of the record: "my temperature is high", "my sugar is 20".
_SAYS_A_PROBLEM = re.compile(
    r"\b(?:is|are|was|keeps?|has been|went|goes|gone)\s+(?:very\s+|really\s+|so\s+)?(?:high|low|up|down|\d+)"
    r"|\b(?:feel|feeling|felt|fever|hot|shivering|sick|dizzy|pain|hurts?)\b",
    re.I,
)
# Asking to book or to do something is not a question about the record.
_ACTION = re.compile(
    r"\b(?:book|appointment|remind|reminder|cancel|prescri\w*|doctor|specialist|sos|ambulance|help me|"
    # a dose ("what time do I take my blood pressure tablets") is the medicines desk's
    r"take|taking|tablets?|pills?|meds|medicines?|medications?|doses?)\b"
    # a complaint's own questions: "...it's affecting my sleep. Can you help?", "who should I see if I only sleep
    # two hours"
    r"|\bwho\s+(?:should|shall|do|can|could|would)\s+(?:i|we|he|she)\s+(?:see|go\s+to|talk\s+to)\b"
    r"|\b(?:can|could)\s+(?:you|someone|anyone)\s+help\W*$|\bwhat\s+should\s+(?:i|we)\s+do\b"
    r"|\bis\s+(?:it|this|that)\s+normal\b",
    re.I,
)


# The words of the patterns above, for the typo reader ("hw was my dya", "hart rate", "slep").
_VOCABULARY = (
    "how", "what", "was", "were", "did", "day", "week", "sleep", "slept", "heart", "rate", "pulse", "blood",
    "pressure", "oxygen", "steps", "walked", "vitals", "readings", "report", "health", "summary", "yesterday",
    "today", "last", "night", "show", "tell", "lately", "doing", "hello", "sorry", "watch", "unusual", "whats",
    "vitals", "were", "looking",
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
)  # fmt: skip


@dataclass(frozen=True)
class HealthRequest:
    topic: str  # agents.tools.my_health.TOPICS
    period: str  # agents.tools.my_health.PERIODS


def read(message: str) -> HealthRequest | None:
    """The health question in ``message``, or None: everything else goes on to the model."""
    text = prepared(message, _VOCABULARY)
    if not text or not _ASKS.search(text) or not _OWN.search(text) or _ACTION.search(text):
        return None
    topic = next((name for name, pattern in _TOPICS if pattern.search(text)), None)
    if topic is None:
        return None
    from agents.tools.said import symptoms_in  # the symptom lexicon (loads spaCy once)

    if topic not in ("temperature", "weight", "blood_sugar") and symptoms_in(text):
        return None  # "why is my heart racing and my chest tight?" is a complaint
    if topic in ("temperature", "weight", "blood_sugar") and _SAYS_A_PROBLEM.search(text):
        return None  # "my temperature is 39 and I feel awful": a complaint, the model's
    period = next((name for name, pattern in _PERIODS if pattern.search(text)), "today")
    if topic != "sleep" and period == "last_night":
        period = "yesterday" if re.search(r"\byesterday\b", text, re.I) else "today"
    if topic == "day" and re.search(r"\bweek\b", text, re.I):
        period = "week"
    return HealthRequest(topic, period)


def request_for(message: str, use_case: str | None = None) -> HealthRequest | None:
    """What the rules read; else, when the first step's classifier routed it here (``"my_health"``),
    the topic and period the message names (the whole day, today, when it names none)."""
    found = read(message)
    if found is not None or use_case != "my_health":
        return found
    text = prepared(message, _VOCABULARY)
    topic = next((name for name, pattern in _TOPICS if pattern.search(text)), "day")
    period = next((name for name, pattern in _PERIODS if pattern.search(text)), "today")
    if topic != "sleep" and period == "last_night":
        period = "today"
    return HealthRequest(topic, period)


def handle(runner: Runtime, use_case: str | None = None) -> bool:
    """Answer the chat's new request when it is a question about the patient's recorded health;
    True when it did (the request is over), False otherwise. ``use_case``: the first step's
    classifier routed it here."""
    if not runner.states or runner.states[-1]["from"] != "user":
        return False
    request = request_for(str(runner.states[-1]["value"]), use_case)
    if request is None:
        return False
    log.info("conversation %s: health desk: %s, %s", runner.conversation.pk, request.topic, request.period)
    topic, period = request.topic.replace("_", " "), request.period.replace("_", " ")
    desk_steps.plan(
        runner,
        DESK,
        f"the user asks about their recorded health ({topic}, {period}).",
        "Summarise the recorded readings for the user.",
    )
    runner.execute_call(
        {
            "tool": "get_health_summary",
            "parameters": {"user_id": runner.user_ref, "topic": request.topic, "period": request.period},
        }
    )
    return desk_steps.end(runner, DESK, "the user was told.")
