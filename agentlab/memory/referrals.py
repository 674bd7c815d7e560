"""End-to-end referrals with and without memory, on cases built from the test personas.

The same words go to triage twice: once alone (``triage.suggest``'s first specialization), once
with the persona's memory (``agents.triage_persona``). Groups:

- ``recent``: a past complaint of the last 90 days that led to an appointment comes back (lay
  words for two of its disease's characteristic symptoms). Right referral: that disease's
  specialist from the symptom bank, a label independent of the memory rules.
- ``old``: the same for complaints more than 180 days old, which memory must leave alone
  (right referral: the disease's specialist again, whatever triage alone finds).
- ``condition``: a persona with diabetes, asthma or kidney disease describes a usual complication
  of it. Right referral: the specialist who manages the condition.
- ``pregnancy``: a pregnant persona with abdominal pain, nausea or pelvic pain. Right referral:
  gynecologist (obstetrics).
- ``child``: a parent describes a child's symptoms. Right referral: pediatrician.

The last three labels are the clinical convention the rules encode, so those groups show that the
rules fire where they should (and what triage alone does there), not an independent discovery.
"""

from __future__ import annotations

import datetime as dt
import random
from collections import defaultdict
from dataclasses import dataclass

from agentlab.memory.personas import TODAY, Persona
from agents import triage
from agents.knowledge import symptom_bank
from agents.memory import items as mi
from agents.memory.index import MemoryIndex
from agents.memory.rank import rank
from agents.triage_persona import adjust, persona

RULE_CONDITIONS = {
    "type 2 diabetes": ("endocrinologist", ("tingling", "numbness", "excessive_thirst", "slow_healing")),
    "asthma": ("pulmonologist", ("wheezing", "shortness_of_breath", "chest_tightness", "night_cough")),
    "chronic kidney disease": ("nephrologist", ("ankle_swelling", "foamy_urine", "puffy_eyes", "generalized_swelling")),
}
PREGNANCY_COMPLAINTS = ("abdominal_pain", "nausea", "pelvic_pain", "abdominal_cramps", "vomiting")


@dataclass
class Case:
    group: str
    query: str
    items: list[mi.MemoryItem]
    expected: str


def cases(personas: list[Persona], seed: int = 0) -> list[Case]:
    bank = symptom_bank()
    diseases = {d.name: d for d in bank.diseases}
    found: list[Case] = []
    for persona_ in personas:
        rng = random.Random(f"referral-{seed}-{persona_.name}")
        for name, specialization, days in persona_.episodes:
            booked = any(
                item.kind == "complaint" and item.date == TODAY - _days(days) and item.specialization
                for item in persona_.items
            )
            group = "recent" if days <= 90 and booked else "old" if days > 180 else ""
            if not group:
                continue
            keys = list(diseases[name].symptoms[:4])
            said = rng.sample(keys, 2)
            query = f"{_lay(rng, said[0])}, and {_lay(rng, said[1])}."
            found.append(Case(group, query, persona_.items, specialization))
        for condition in persona_.conditions:
            if condition in RULE_CONDITIONS:
                specialist, keys = RULE_CONDITIONS[condition]
                found.append(Case("condition", _lay(rng, rng.choice(keys)) + ".", persona_.items, specialist))
        profile = next(item for item in persona_.items if item.kind == "profile")
        if "female" in profile.text:
            age = int(profile.text.split("Profile: ")[1].split(" ")[0])
            if 20 <= age <= 42:
                pregnant = [mi.profile_item(age, "female", True) if i.kind == "profile" else i for i in persona_.items]
                words = _lay(rng, rng.choice(PREGNANCY_COMPLAINTS))
                found.append(Case("pregnancy", words + ".", pregnant, "gynecologist"))
        key = rng.choice(sorted(bank.child_lay))
        child = rng.choice(("son", "daughter", "little boy", "little girl", "toddler"))
        he, his, him = ("she", "her", "her") if child in ("daughter", "little girl") else ("he", "his", "him")
        sentence = rng.choice(bank.child_lay[key]).format(he=he, his=his, him=him, He=he.title(), His=his.title())
        found.append(Case("child", f"My {child} isn't well: {sentence}.", persona_.items, "pediatrician"))
    return found


def _days(days: int) -> dt.timedelta:
    return dt.timedelta(days=days)


def _lay(rng: random.Random, key: str) -> str:
    return rng.choice(symptom_bank().symptoms[key].lay)


def evaluate(all_cases: list[Case], model=None) -> dict[str, dict[str, float]]:
    """Accuracy of the first referral per group, without and with memory (fractions)."""
    right: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # without, with, count
    for case in all_cases:
        suggested = [name for name, _ in triage.suggest(case.query, k=3)]
        index = MemoryIndex(case.items)
        related = rank(index, case.query, now=TODAY, specializations=suggested, model=model)
        referral = adjust(suggested, case.query, persona(case.query, case.items, related, TODAY))
        tally = right[case.group]
        tally[0] += bool(suggested) and suggested[0] == case.expected
        tally[1] += bool(referral.specializations) and referral.specializations[0] == case.expected
        tally[2] += 1
    table = {
        group: {"cases": n, "without_memory": round(a / n, 4), "with_memory": round(b / n, 4)}
        for group, (a, b, n) in sorted(right.items())
    }
    total = sum(n for _, _, n in right.values())
    table["all"] = {
        "cases": total,
        "without_memory": round(sum(a for a, _, _ in right.values()) / max(1, total), 4),
        "with_memory": round(sum(b for _, b, _ in right.values()) / max(1, total), 4),
    }
    return table
