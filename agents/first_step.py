"""The learned second opinion of the first step: which desk a request is for, when no desk's rules read it.

The desks' hand-written rules (agents.appointment_desk, health_desk, medicine_desk) are precise but
read only the phrasings they were written from: on template families they were not written from,
"can we push Thursday's visit back" or "what's on my pill list" went to the model, which was never
trained on those use cases. This classifier reads the request by meaning: the sentence encoder
triage already loads (all-MiniLM-L6-v2) and a multinomial logistic regression over its embedding
(12 use cases), trained by ``manage.py train_first_step`` on generated requests of the dev template
families only (agentlab/data/requests.py; the test families stay unseen) and shipped as
``agents/knowledge/first_step.npz`` with its card ``first_step.json``.

It is asked only after every rule declined, and it routes to a desk or, above a stricter threshold of
its own, answers with the scope reply (a request out of the assistant's scope that the scope rules did
not read: "does this look like shingles?", "how many calories in a banana"). Help now stays with
its rules (a false SOS is not a guess to make), and the model's own use cases (booking, setting a
reminder) are never taken from it on a guess: a route needs the classifier's probability at or above
the threshold chosen on the dev families by cross-validation so that none of the model's requests
that the rules leave to it was taken, and it must pass the desks' own checks: a request that names a
symptom is a complaint (every desk leaves those to the model), a request about a reminder or a
medicine is no appointment's, and one about an appointment is no medicine's. A wrong route still
changes nothing without the patient's yes (the desks ask first). A scope answer blocks the request, so
its threshold is chosen so that no held-out request of any other use case the rules leave to the model
was refused, and it is never given to a request that names a symptom, an appointment or a regimen:
those stay with the model. Turned off with ``AGENT_FIRST_STEP_MODEL=0``.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
from django.conf import settings

from agents import appointment_desk

log = logging.getLogger(__name__)

MODEL_PATH = Path(__file__).parent / "knowledge" / "first_step.npz"
# The use cases a route may go to (the classifier's other classes keep the request with the model).
DESK_USE_CASES = frozenset(
    {
        "appointments_list",
        "appointments_cancel",
        "appointments_reschedule",
        "my_health",
        "medicines_today",
        "medicines_taken",
        "medicines_photo",
    }
)
OUT_OF_SCOPE = "out_of_scope"


# What each desk leaves alone, in the appointments desk's own words: what is not an appointment
# ("move my warfarin reminder to the evening" is no appointment to move), and what is one (no
# medicine's dose to list or mark: "what time should I be at the clinic").
_NOT_AN_APPOINTMENT = appointment_desk._OTHER_THING
_APPOINTMENT_WORDS = re.compile(rf"\b(?:{appointment_desk._APPOINTMENT}|clinic)\b", re.I)


# What a new reminder is made of and a dose taken or today's list never needs: how often, for how long,
# a medicine just started, a reminder or an alarm ("I've started lisinopril once a day, set that up").
# Setting a reminder is the model's (or the medicines desk's own rules'), never a guess's.
_A_REGIMEN = re.compile(
    r"\b(?:once|twice|thrice|\d+\s*(?:x|times)|(?:one|two|three|four)\s+times)\s+(?:a|per|each|every)\s+"
    r"(?:day|week|night|morning)|\b(?:daily|nightly|weekly|bd|bid|tds|tid|qds|qid|od|q\d+h)\b"
    r"|\b(?:every|each)\s+(?:day|morning|night|evening|\d+\s*(?:hours?|hrs?|h))\b|\b(?:a|per)\s+day\b"
    r"|\bfor\s+(?:\d+|a|one|two|three|four|five|six|seven|ten|fourteen)\s+(?:days?|weeks?|months?)\b"
    r"|\b(?:start(?:ed|ing)?|put me on|prescribed|from now on|from (?:today|tomorrow)|remind\w*|reminders?|alarms?|"
    r"alerts?|set (?:that|it|this|them) up|set up|schedule)\b",
    re.I,
)


# A dose taken is said in the past or marked ("took them jut now", "tick off the evening ones"); "I take
# amlodipine at 9pm" is a schedule, the model's to set up.
_TAKEN = re.compile(
    r"\b(?:took|taken|had|done|swallowed|used|finished|ticked?|mark(?:ed)?|check(?:ed)? off|cross(?:ed)? off)\b",
    re.I,
)


# Words of urgency, distress or feeling unwell: a message with one is never refused on the classifier's
# word, however sure it is (an emergency the help-now rules missed must reach the model, which can still
# start the SOS, not a "that's not something I do"; a complaint is triage's).
_URGENT = re.compile(
    r"\b(?:help|urgent\w*|emergenc\w*|asap|now|quick\w*|hurry|fast|immediately|right away|ambulance|paramedics?|"
    r"hospital|a&e|er|911|999|112|dying|die|dead|death|kill\w*|suicid\w*|overdos\w*|unconscious|unresponsive|"
    r"collaps\w*|faint\w*|fell|fall(?:en)?|blood|bleed\w*|breath\w*|chok\w*|seiz\w*|fit|stroke|attack|pain\w*|"
    r"hurt\w*|scared|frightened|terrified|panic\w*|danger\w*|unsafe|can'?t|cannot|won'?t wake)\b"
    # feeling unwell in words no symptom lexicon has: a complaint, triage's
    r"|\bunder the weather\b|\b(?:unwell|poorly)\b"
    r"|\bfeel(?:s|ing)?\s+(?:\w+\s+)?(?:off|rough|awful|terrible|rubbish|ill|sick|strange|weird|funny|bad|wrong|"
    r"not right)\b|\bsomething(?:'s| is)\s+(?:\w+\s+)?(?:wrong|off|not right)\b",
    re.I,
)


def fits(use_case: str, message: str) -> bool:
    """Whether a route of ``message`` to ``use_case``'s desk (or to the scope answer) passes the desks' own checks."""
    if use_case == OUT_OF_SCOPE:
        # An appointment or a regimen is the patient's care, whatever else the message says; urgency
        # is the model's (and the SOS's) to weigh.
        return not (_APPOINTMENT_WORDS.search(message) or _A_REGIMEN.search(message) or _URGENT.search(message))
    if use_case.startswith("appointments_"):
        return not _NOT_AN_APPOINTMENT.search(message)
    if use_case.startswith("medicines_"):
        if _APPOINTMENT_WORDS.search(message) or _A_REGIMEN.search(message):
            return False
        return use_case != "medicines_taken" or bool(_TAKEN.search(message))
    return True


@dataclass(frozen=True)
class Classifier:
    classes: list[str]
    coef: np.ndarray
    intercept: np.ndarray
    threshold: float  # a desk route's
    scope_threshold: float | None  # a scope answer's (None: the classifier never refuses)


@cache
def _model() -> Classifier:
    data = np.load(MODEL_PATH, allow_pickle=False)
    scope = float(data["scope_threshold"]) if "scope_threshold" in data.files else None
    return Classifier(
        [str(c) for c in data["classes"]], data["coef"], data["intercept"], float(data["threshold"]), scope
    )


def probabilities(message: str) -> dict[str, float]:
    """The classifier's probability of each use case for ``message``."""
    from agents.triage import encoder  # the sentence encoder triage uses (loaded once per process)

    model = _model()
    vector = encoder().encode([str(message)], normalize_embeddings=True, show_progress_bar=False)[0]
    logits = model.coef @ vector + model.intercept
    exp = np.exp(logits - logits.max())
    return dict(zip(model.classes, (exp / exp.sum()).tolist(), strict=True))


def needs(use_case: str) -> float | None:
    """The probability a route to ``use_case`` needs (None: never routed there)."""
    if use_case in DESK_USE_CASES:
        return _model().threshold
    return _model().scope_threshold if use_case == OUT_OF_SCOPE else None


def route(message: str) -> str | None:
    """The desk use case ``message`` is for, or OUT_OF_SCOPE, when the classifier is sure enough; else None."""
    if not getattr(settings, "AGENT_FIRST_STEP_MODEL", True) or not MODEL_PATH.exists():
        return None
    found = probabilities(message)
    best = max(found, key=found.__getitem__)
    threshold = needs(best)
    if threshold is None or found[best] < threshold or not fits(best, message):
        return None
    from agents.tools.said import names_a_complaint, symptoms_in  # the symptom lexicon (loads spaCy once)

    if symptoms_in(message) or (best == OUT_OF_SCOPE and names_a_complaint(message)):
        return None  # a complaint: triage's, never a desk's nor a refusal
    return best
