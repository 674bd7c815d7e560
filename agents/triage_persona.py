"""Persona-aware triage: what memory changes in the specialist ranking, where a clinician would.

``triage.suggest`` ranks specializations from the words alone. A clinician hearing the same words
also weighs who is speaking, and so does this, with four general rules (first that applies wins):

1. A parent describing a child (or a patient under 16): a **pediatrician** first. Children are
   seen by paediatrics whatever the organ, unless it is an emergency (the SOS paths handle those).
2. **Pregnancy** and an abdominal, pelvic, bleeding, swelling, urinary or severe-headache
   complaint: the **gynecologist** (obstetric care) first, since in pregnancy these may be
   obstetric (ectopic pregnancy, pre-eclampsia, miscarriage) and must be seen there.
3. A known **long-term condition** and a symptom of its usual complications: the specialist who
   manages it first (diabetes + numb or tingling feet, thirst, slow-healing wounds ->
   endocrinologist; asthma or COPD + wheeze, cough, breathlessness -> pulmonologist; kidney
   disease + swelling or urine changes -> nephrologist).
4. A **recent related complaint** (same symptoms within 90 days) that led to an appointment: the
   same specialist first, for continuity of care.

The rules are written from clinical practice, never tuned on an evaluation set. Each adjustment
says why (``Referral.reason``).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from agents import triage
from agents.knowledge import symptom_bank
from agents.memory.index import linked_symptoms
from agents.memory.items import MemoryItem
from agents.memory.rank import Ranked, feature
from agents.memory.text import analyse, body_systems

RECENT_DAYS = 90
SAME_PROBLEM_DENSE = 0.5  # cosine of two wordings of the same complaint (unrelated ones: ~0.1-0.3)
CHILD_AGE = 16
_PREGNANT = re.compile(r"\b(?:i'?m|i am|she'?s|currently)\s+(?:\d+\s+weeks\s+)?pregnant\b|\bexpecting a baby\b", re.I)
_BLEEDING = re.compile(r"\bbleed", re.IGNORECASE)


def _keys(*names: str) -> frozenset[str]:
    known = symptom_bank().symptoms
    return frozenset(name for name in names if name in known)


PREGNANCY_SYMPTOMS = (
    "abdominal_pain", "upper_abdominal_pain", "lower_right_pain", "lower_left_pain", "abdominal_cramps", "pelvic_pain",
    "nausea", "vomiting", "bleeding_between_periods", "vaginal_discharge", "lower_back_pain", "ankle_swelling",
    "leg_swelling", "generalized_swelling", "puffy_face", "severe_headache", "painful_urination", "blurred_vision",
)  # fmt: skip
# Condition pattern -> (its specialist, the symptoms of its usual complications).
CONDITION_RULES = (
    (r"diabet", "endocrinologist", ("numbness", "tingling", "burning_nerve_pain", "slow_healing", "non_healing_sore",
                                     "excessive_thirst", "frequent_urination", "high_blood_sugar", "increased_hunger")),
    (r"asthma|copd|emphysema|chronic bronchitis", "pulmonologist",
     ("wheezing", "shortness_of_breath", "chest_tightness", "cough", "dry_cough", "night_cough", "productive_cough",
      "breathless_exertion", "exercise_wheeze")),
    (r"kidney|renal|nephro", "nephrologist",
     ("ankle_swelling", "leg_swelling", "generalized_swelling", "puffy_face", "puffy_eyes", "reduced_urine",
      "foamy_urine", "blood_in_urine", "nocturia", "abnormal_kidney_test")),
)  # fmt: skip


@dataclass(frozen=True)
class Persona:
    """What memory says about who is asking."""

    child: bool = False
    pregnant: bool = False
    conditions: tuple[str, ...] = ()
    recent: tuple[str, ...] = ()  # specializations of recent related complaints, most relevant first


@dataclass(frozen=True)
class Referral:
    specializations: list[str]
    reason: str = ""  # empty: memory changed nothing


def persona(query: str, items: list[MemoryItem], related: list[Ranked], today: dt.date) -> Persona:
    """The persona signals of ``query`` given the user's memory ``items`` and their ranking ``related``."""
    profile = next((item.text for item in items if item.kind == "profile"), "")
    age = re.search(r"(\d+) years old", profile)
    child = triage.speaks_of_child(query) or (age is not None and int(age.group(1)) < CHILD_AGE)
    pregnant = "pregnant" in profile.lower() or bool(_PREGNANT.search(query))
    conditions = tuple(item.text.partition(": ")[2] for item in items if item.kind == "condition")
    # Tiredness or a fever alone does not make two complaints the same problem: a shared symptom
    # must be one outside the bank's "general" group (or the two must read clearly alike).
    systems = body_systems()
    specific = {key for key in analyse(query).concepts | linked_symptoms(query) if systems.get(key) != "general"}
    recent = []
    for ranked in related:
        item = ranked.item
        if (
            item.kind != "complaint"
            or not item.specialization
            or item.outcome not in ("held", "confirmed", "completed")
        ):
            continue
        if item.date is None or (today - item.date).days > RECENT_DAYS:
            continue
        same_problem = specific & analyse(item.text).concepts or feature(ranked, "dense") >= SAME_PROBLEM_DENSE
        if same_problem and item.specialization not in recent:
            recent.append(item.specialization)
    return Persona(child, pregnant, conditions, tuple(recent))


def adjust(specializations: list[str], query: str, who: Persona) -> Referral:
    """``specializations`` (triage's ranking) re-ordered where ``who`` changes the right referral."""
    # The symptoms said in the lexicon's words, or in other words close to a clinical term.
    concepts = analyse(query).concepts | linked_symptoms(query)
    if who.child:
        return _first(specializations, "pediatrician", "a child is seen by a pediatrician first")
    if who.pregnant and (concepts & _keys(*PREGNANCY_SYMPTOMS) or _BLEEDING.search(query)):
        return _first(specializations, "gynecologist", "in pregnancy this is checked by obstetrics first")
    for pattern, specialist, symptoms in CONDITION_RULES:
        named = next((c for c in who.conditions if re.search(pattern, c, re.IGNORECASE)), None)
        if named and concepts & _keys(*symptoms):
            return _first(specializations, specialist, f"this may be related to the known {named}")
    if who.recent:
        return _first(specializations, who.recent[0], "a recent related complaint was seen by this specialist")
    return Referral(list(specializations))


def _first(specializations: list[str], name: str, reason: str) -> Referral:
    if specializations and specializations[0] == name:
        return Referral(list(specializations))
    rest = [s for s in specializations if s != name]
    return Referral([name, *rest][: max(len(specializations), 1)], reason)


def refer(user, query: str, specializations: list[str], *, now=None) -> Referral:
    """Triage's ``specializations`` for ``query`` adjusted by ``user``'s memory."""
    from django.utils import timezone

    from agents.memory.index import index_for
    from agents.memory.rank import rank
    from agents.memory.recall import local_day

    moment = now or timezone.now()
    index = index_for(user, now)
    today = local_day(user, moment)
    related = rank(index, query, now=today, specializations=specializations)
    return adjust(specializations, query, persona(query, index.items, related, today))
