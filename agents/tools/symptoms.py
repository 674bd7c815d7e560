"""Symptom tools: store what the user reports, find similar past complaints."""

from __future__ import annotations

import datetime as dt
import re
from typing import TypedDict

from agents import triage
from agents.errors import InvalidArguments, ToolError
from agents.tools import said as user_words
from agents.tools.context import ToolContext
from agents.tools.registry import tool
from agents.tools.transcript import request_parts, said_in_request
from health.models import SymptomRecord


class DateRange(TypedDict, total=False):
    start_date: str
    end_date: str


def split_symptoms(text: str) -> list[str]:
    """``"fatigue, chills and body aches"`` -> ``["fatigue", "chills", "body aches"]``.

    A list of symptoms is a set: a symptom named twice is kept once, and a word
    or phrase repeated back to back is kept once (a small model that loops writes
    "muscle wasting, muscle wasting, …" or "unexplained unexplained …").
    """
    symptoms: list[str] = []
    seen: set[str] = set()
    for part in re.split(r",|;|\band\b|\n", text):
        symptom = " ".join(_collapse_repeats(part.split()))
        if symptom and symptom.lower() not in seen:
            seen.add(symptom.lower())
            symptoms.append(symptom)
    return symptoms


def complaint(text: str) -> list[str]:
    """The complaint in the user's words: the bank symptoms they named and did not deny, then each
    short clause of a complaint that names none of them, as written ("my knee is swollen"). A
    question ("Can you help?", "What should I do?") is no part of it, and a clause ends with its
    sentence: "It's pretty bad. Can you help? I'm free on Monday" is no symptom."""
    named = user_words.symptoms_in(text)
    for sentence in user_words.sentences(text):
        if sentence.endswith("?"):
            continue
        for clause in split_symptoms(sentence):
            clause = clause.strip(" .!?")
            if len(clause) <= 80 and user_words.names_a_complaint(clause) and not user_words.symptoms_in(clause):
                named.append(clause)
    return named


def _collapse_repeats(words: list[str], longest: int = 4) -> list[str]:
    """Words with back-to-back repeats of a phrase of up to ``longest`` words kept once."""
    kept: list[str] = []
    for word in words:
        kept.append(word)
        for size in range(1, min(longest, len(kept) // 2) + 1):
            if kept[-size:] == kept[-2 * size : -size]:
                del kept[-size:]
                break
    return kept


def parse_timestamp(value: str, tz) -> dt.datetime:
    try:
        moment = dt.datetime.fromisoformat(str(value).strip())
    except ValueError as exc:
        raise InvalidArguments(f"timestamp {value!r} is not an ISO date-time like 2024-09-02T10:57:00.") from exc
    return moment if moment.tzinfo else moment.replace(tzinfo=tz)


@tool
def store_symptoms(ctx: ToolContext, user_id: str, symptoms: str, timestamp: str) -> bool:
    """Stores the symptoms reported by the user for future reference.

    Args:
        user_id: Unique identifier for the user.
        symptoms: Symptoms of the user, comma separated.
        timestamp: Date and time of the report, ISO format (YYYY-MM-DDTHH:MM:SS).
    """
    ctx.check_user(user_id)
    recorded_at = parse_timestamp(timestamp, ctx.tz)
    named = split_symptoms(symptoms)
    if ctx.conversation is not None:
        # Only what the user said is stored: a question or request ("How were my vitals today?",
        # "I want to lose weight") is no complaint, and a symptom the model added or the user denied
        # ("no fever") is dropped. One line per message and answer: a negation ends with its line.
        said = "\n".join(request_parts(ctx.conversation))
        if not user_words.names_a_complaint(said):
            raise ToolError(
                "The user did not report any symptom in this request (it is a question or a request): "
                "store nothing and answer the request instead."
            )
        named = [symptom for symptom in named if user_words.symptom_said(symptom, said)] or (
            # None of the model's words is the user's ("muscle fatigue" for "my arms feel heavy"):
            # the complaint in the user's own words is stored instead. Refusing made a small planner
            # restart a finished booking to try again, until its step limit.
            complaint(said)
        )
        if not named:
            raise ToolError(
                f"The user did not say {symptoms!r}. Store only symptoms in the user's own words, "
                "or ask the user what their symptoms are."
            )
        symptoms = ", ".join(named)
    # get_or_create: a replayed step must not store the complaint twice.
    SymptomRecord.objects.get_or_create(
        user=ctx.user,
        conversation=ctx.conversation,
        text=symptoms,
        recorded_at=recorded_at,
        defaults={"symptoms": named},
    )
    return True


@tool
def retrieve_past_complaints(
    ctx: ToolContext, user_id: str, symptoms: str, date_range: DateRange | None = None
) -> list:
    """Fetches the user's past complaints that match the given symptoms.

    Args:
        user_id: Unique identifier for the user.
        symptoms: List of symptoms to search for in past complaints.
        date_range: Optional filter {'start_date': 'YYYY-MM-DD', 'end_date': 'YYYY-MM-DD'}.
    """
    ctx.check_user(user_id)
    records = SymptomRecord.objects.filter(user=ctx.user).order_by("-recorded_at")
    if ctx.conversation is not None:
        records = records.exclude(conversation=ctx.conversation)
    tz = ctx.tz
    bounds = date_range or {}
    for key, lookup in (("start_date", "gte"), ("end_date", "lt")):
        if bounds.get(key):
            try:
                day = dt.date.fromisoformat(bounds[key])
            except ValueError as exc:
                raise InvalidArguments(f"{key} {bounds[key]!r} is not a YYYY-MM-DD date.") from exc
            if key == "end_date":
                day += dt.timedelta(days=1)
            records = records.filter(**{f"recorded_at__{lookup}": dt.datetime.combine(day, dt.time.min, tzinfo=tz)})
    allowed = {record.pk: record for record in records[:200]}
    # Memory retrieval (agents.memory): lemmas, symptom entities with negation, BM25 + dense fused
    # and re-ranked; "tummy ache" finds "abdominal pain", "no fever" does not find "fever". Deferred:
    # it loads spaCy and the encoder, which processes that never run a tool must not load at start-up.
    from agents.memory import recall as memory

    found = []
    for ranked in memory.recall(ctx.user, symptoms, kinds=("complaint",)):
        record = allowed.get(int(ranked.item.key.partition(":")[2]))
        if record is not None and memory.is_related(ranked):
            found.append({"date": f"{record.recorded_at.astimezone(tz):%Y-%m-%d}", "symptoms": record.text})
    return found[:5]


@tool
def match_specialization(ctx: ToolContext, symptoms: str) -> dict:
    """Finds which specializations treat complaints like the user's, most likely first (never a diagnosis).

    Args:
        symptoms: The user's symptoms, comma separated.
    """
    named = split_symptoms(symptoms)
    if not named:
        raise InvalidArguments("symptoms must name at least one symptom.")
    # In a conversation the referral follows what the user said (this request and the answers to the
    # questions asked about it), not the model's list: a 135M model's extraction drops, adds and
    # misreads symptoms ("bloating" copied as "bleeding", "muscle pain" for "my whole body aches"),
    # and each such slip moved the ranking. The list is the query only outside a conversation.
    said = said_in_request(ctx.conversation)
    query = (said or ", ".join(named))[:2000]
    ranked = [name for name, _ in triage.suggest(query)]
    # Who is asking changes the right referral (a child, a pregnancy, a known condition, a recent
    # related complaint): agents.triage_persona, from the user's memory (deferred like the recall above).
    from agents import triage_persona

    return {"specializations": triage_persona.refer(ctx.user, query, ranked).specializations}
