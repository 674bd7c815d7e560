"""The words on top of a daily report: the template's, or the local model's when it passes the fact check.

The numbers of a report are computed (``health.reports.facts``), never generated. The seed paper's
Report Generator has the LLM write the narrative; here the local model may (a narrator registered
through ``health.reports.hooks``, used when ``REPORT_MODEL_NARRATIVE`` is on), but what it writes
is kept only when every number and every named fact in it appears in the computed facts
(``fact_check``). Anything else, a model that failed or said nothing included, gets the template
narrative (``health/templates/health/reports/narrative.txt``), written from the facts alone.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from functools import cache
from typing import Any

from django.conf import settings
from django.template.loader import render_to_string

from health.models import DailyReport, Specialization
from health.monitor.rules import RULES
from health.reports import hooks
from health.reports.facts import SPO2_LOW
from health.scheduler.lexicon import load_lexicon

log = logging.getLogger(__name__)

NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
NUMBER_WORDS = {
    word: str(n)
    for n, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
        "seventeen eighteen nineteen twenty".split()
    )
}
# Capitalised words any summary may use without naming a fact: sentence starters, units, pronouns.
PLAIN_CAPITALISED = {"i", "spo2", "spo", "bpm", "mmhg", "bp", "ok", "today", "tonight", "overall"}
# Words a sentence may start with that name nothing; any other capitalised word is taken for a name.
SENTENCE_STARTERS = set(
    "a an the your you today it its this that there here heart blood oxygen no not one all overall steps sleep "
    "medicines medicine doses alerts alert appointments appointment symptoms we she he they on in at after before "
    "during while but and also so good great well quiet steady busy mostly most some nothing everything".split()
)
# Sentences end at . ! ? ; : and new lines, but not after a title such as "Dr." or "Mrs.".
SENTENCE_END = re.compile(r"(?<!\bDr)(?<!\bMr)(?<!\bMs)(?<!\bMrs)(?<!\bSt)(?<=[.!?;:])\s+|\n+")
# Medicine names shorter than this are left out of the vocabulary: "ors" or "pan" are also words.
MIN_TERM_LENGTH = 5


def hours_and_minutes(minutes: float) -> str:
    whole = round(minutes)
    hours, rest = divmod(whole, 60)
    return f"{hours} h {rest:02d} min" if hours else f"{rest} min"


def template_narrative(facts: dict[str, Any]) -> str:
    """The narrative written from the facts alone by the template: always true, never empty."""
    context = {
        "facts": facts,
        "until": facts["covers_until"][11:16],
        "steps": f"{facts['steps']:,}" if facts["steps"] is not None else None,
        "sleep": hours_and_minutes(facts["sleep_minutes"]) if facts["sleep_minutes"] is not None else None,
    }
    return " ".join(render_to_string("health/reports/narrative.txt", context).split())


def _normal(number: str) -> str:
    """'74.0' -> '74', '8,412' -> '8412', '07' -> '7': one spelling per value."""
    text = number.replace(",", "")
    try:
        value = float(text)
    except ValueError:
        return text
    return str(int(value)) if value == int(value) else f"{value:g}"


def _walk(value: Any, numbers: set[str], texts: list[str]) -> None:
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, int | float):
        for form in (value, round(value), round(value, 1)):
            numbers.add(_normal(str(form)))
    elif isinstance(value, str):
        texts.append(value)
        numbers.update(_normal(n) for n in NUMBER.findall(value))
    elif isinstance(value, dict):
        for item in value.values():
            _walk(item, numbers, texts)
    elif isinstance(value, list | tuple):
        for item in value:
            _walk(item, numbers, texts)


def _date_words(facts: dict[str, Any]) -> list[str]:
    """The report's day and the appointments' days as words ("Tuesday", "March"), which the
    facts hold only as ISO dates."""
    words = []
    for iso in [facts["date"], *(a["starts_at"][:10] for a in facts.get("appointments", []))]:
        day = dt.date.fromisoformat(iso)
        words.append(f"{day:%A %a %B %b}")
    return words


@cache
def _medicine_terms() -> frozenset[str]:
    names = load_lexicon().names
    return frozenset(name for name in names if name.isalpha() and len(name) >= MIN_TERM_LENGTH)


def vocabulary() -> frozenset[str]:
    """Named things a summary could invent: medicines (the lexicon), the monitor's conditions and
    the directory's specialisations, lower case."""
    conditions = {word for rule in RULES for word in rule.condition.split("_") if len(word) >= MIN_TERM_LENGTH}
    specializations = {name.lower() for name in Specialization.objects.values_list("name", flat=True)}
    return _medicine_terms() | conditions | specializations | {"hypoxia", "bradycardia", "tachycardia"}


UNIT_NUMBER = re.compile(r"(\d+(?:[.,]\d+)*)\s*(%|bpm|mmhg|steps?)(?![a-z])", re.IGNORECASE)


def _unit_numbers(facts: dict[str, Any], unit: str) -> set[str]:
    """The numbers that may carry ``unit`` (%, bpm, mmhg, step)."""
    doses = facts.get("doses") or {}

    def measured(part: dict[str, Any]) -> dict[str, Any]:
        return {key: value for key, value in part.items() if key != "readings"}  # a count carries no unit

    parts = {
        "%": [
            measured(facts["spo2"]),
            doses.get("adherence"),
            [m.get("percent") for m in doses.get("by_medication", [])],
            SPO2_LOW,
        ],
        "bpm": [measured(facts["heart_rate"])],
        "mmhg": [measured(facts["blood_pressure"])],
        "step": [facts["steps"]],
    }[unit]
    numbers: set[str] = set()
    _walk(parts, numbers, [])
    return numbers


def fact_check(text: str, facts: dict[str, Any]) -> list[str]:
    """What in ``text`` the facts do not give: each number (digits or a number word up to twenty),
    each capitalised name and each medical term (medicine, condition, specialisation) that does
    not appear in ``facts``. An empty list means the text may be shown."""
    numbers: set[str] = {str(SPO2_LOW)}
    texts: list[str] = []
    _walk(facts, numbers, texts)
    texts.extend(_date_words(facts))
    # Sleep is said in hours and minutes ("7 h 32 min", "7.5 hours") as well as in minutes.
    for minutes in [facts.get("sleep_minutes"), *(facts.get("sleep_stages") or {}).values()]:
        if minutes is not None:
            numbers.update(_normal(n) for n in NUMBER.findall(hours_and_minutes(minutes)))
            numbers.update({_normal(str(round(minutes / 60))), _normal(str(round(minutes / 60, 1)))})
    known = " ".join(texts).lower()
    known_words = set(WORD.findall(known)) | set(re.findall(r"[a-z0-9]+", known))
    problems = [n for n in NUMBER.findall(text) if _normal(n) not in numbers]
    # A number with a unit must be a figure of that measure: "85 %" is not SpO2 because 85 is the
    # mean diastolic pressure.
    for number, unit in UNIT_NUMBER.findall(text):
        if _normal(number) not in _unit_numbers(facts, unit.lower().rstrip("s")):
            problems.append(f"{number} {unit}")
    for sentence in SENTENCE_END.split(text):
        words = WORD.findall(sentence)
        for position, word in enumerate(words):
            lower = word.lower().strip("'-")
            if lower in NUMBER_WORDS and NUMBER_WORDS[lower] not in numbers:
                problems.append(word)
            elif word[0].isupper() and lower not in known_words and lower not in PLAIN_CAPITALISED:
                # A capitalised word is a name unless it only starts a sentence as plain words do.
                if position > 0 or lower not in SENTENCE_STARTERS:
                    problems.append(word)
    terms = vocabulary()
    problems += [w for w in WORD.findall(text) if w.lower() in terms and w.lower() not in known_words]
    return list(dict.fromkeys(problems))


def write(facts: dict[str, Any]) -> tuple[str, str]:
    """(narrative, source) for the facts: the model's summary when one is on, registered, and
    passes the fact check; otherwise the template's."""
    narrator = hooks.narrator() if getattr(settings, "REPORT_MODEL_NARRATIVE", False) else None
    if narrator is not None:
        try:
            text = " ".join((narrator(facts) or "").split())
        except Exception:  # a model failure never costs the patient their report
            log.exception("report narrator failed; the template narrative is used")
            text = ""
        if text:
            problems = fact_check(text, facts)
            if not problems:
                return text, DailyReport.NarrativeSource.MODEL
            # The invented words are not logged: they may repeat health data.
            log.info("model narrative rejected: %d statement(s) not in the facts", len(problems))
    return template_narrative(facts), DailyReport.NarrativeSource.TEMPLATE
