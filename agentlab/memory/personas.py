"""Generated personas: a history of memory items and implicit queries with labelled relevant items.

Each persona gets a profile, 0-2 long-term conditions (with their usual medicines), 0-2
allergies, 4-9 past complaints drawn from the symptom bank's diseases (each written with the
bank's *clinical* terms, most leading to an appointment with that disease's specialist), soft SOS
alerts, a vitals summary and daily reports. Its queries are implicit, the way Context Tuning's are
("I'm running late"): written with the bank's *lay* sentences and everyday cues, never the items'
own words, and they do not say which record they mean:

- ``recurrence``: symptoms of a past complaint's disease, said again ("It's back: I keep getting
  the shivers"). Relevant: that complaint and its appointment (2), a condition or medicine of the
  same specialist (1).
- ``condition``: a symptom of a known condition's body system. Relevant: the condition and its
  medicines (2), related alerts and complaints of that specialist (1).
- ``medication``: "can I take something for ...". Relevant: allergies and current medicines (2).
- ``vitals``: "my watch went off again". Relevant: alerts and the vitals summary (2), the
  condition behind them (1).

The relevance labels come from how the persona was built, never from a retriever. Everything is
deterministic by seed; personas are split into train and test *by persona*.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field

from agents.knowledge import symptom_bank
from agents.memory import items as mi
from agents.memory.clinical import condition_link

TODAY = dt.date(2026, 11, 1)

CONDITIONS = {
    "type 2 diabetes": ("metformin", "500 mg"),
    "asthma": ("salbutamol inhaler", "100 mcg"),
    "chronic kidney disease": ("furosemide", "40 mg"),
    "hypertension": ("amlodipine", "5 mg"),
    "hypothyroidism": ("levothyroxine", "50 mcg"),
    "migraine": ("sumatriptan", "50 mg"),
    "reflux": ("omeprazole", "20 mg"),
    "depression": ("sertraline", "50 mg"),
    "rheumatoid arthritis": ("methotrexate", "10 mg"),
    "atrial fibrillation": ("bisoprolol", "2.5 mg"),
}
# What each condition feels like when it acts up (symptom bank keys).
CONDITION_SYMPTOMS = {
    "type 2 diabetes": ("excessive_thirst", "frequent_urination", "tingling", "numbness", "slow_healing", "fatigue"),
    "asthma": ("wheezing", "shortness_of_breath", "chest_tightness", "night_cough", "exercise_wheeze"),
    "chronic kidney disease": ("ankle_swelling", "foamy_urine", "puffy_eyes", "generalized_swelling", "nocturia"),
    "hypertension": ("high_bp_reading", "morning_headache", "dizziness"),
    "hypothyroidism": ("fatigue", "weight_gain", "cold_intolerance", "constipation"),
    "migraine": ("one_sided_headache", "light_sensitivity", "aura", "nausea"),
    "reflux": ("heartburn", "acid_reflux", "indigestion"),
    "depression": ("low_mood", "loss_of_interest", "trouble_sleeping", "hopelessness"),
    "rheumatoid arthritis": ("joint_pain", "joint_swelling", "morning_stiffness"),
    "atrial fibrillation": ("palpitations", "irregular_heartbeat", "dizziness", "shortness_of_breath"),
}
ALERTS = {  # soft SOS condition -> (summary, the conditions that make it likely)
    "hypoxia": ("SpO2 stayed below 90 % for 6 minutes", ("asthma",)),
    "tachycardia": ("heart rate above 130 bpm at rest for 10 minutes", ("atrial fibrillation",)),
    "hypertension": ("blood pressure above 170/100 on three readings", ("hypertension", "chronic kidney disease")),
}
ALLERGIES = ("penicillin", "ibuprofen", "aspirin", "peanuts", "latex", "sulfa drugs", "codeine", "shellfish")
DOCTORS = ("Dr. Amara Osei", "Dr. Jonas Berg", "Dr. Lucia Ferri", "Dr. Ravi Menon", "Dr. Hana Sato", "Dr. Omar Aziz",
           "Dr. Nora Kelly", "Dr. Felix Wagner", "Dr. Ines Duarte", "Dr. Samuel Park")  # fmt: skip
RECURRENCE = (
    "It's back again: {a}.",
    "{A}, same as last time I think.",
    "Here we go again, {a}. Should I go back?",
    "{A} and {b}. Is this the same thing as before?",
    "I thought this had cleared up but {a}.",
    "Ugh, {a}, and {b} too.",
)
CONDITION_QUERIES = (
    "{A}. Is this my usual problem?",
    "{A} again, worse than normal.",
    "Not great today: {a}.",
    "{A}, and I'm a bit worried.",
)
MEDICATION_QUERIES = (
    "Can I take something for {a}?",
    "Is it safe for me to take a painkiller, {a}?",
    "What can I take, {a}?",
    "Should I take anything for this? {A}.",
)
VITALS_QUERIES = (
    "My watch went off again last night.",
    "The watch beeped at me again, should I worry?",
    "I got another alarm from my watch this morning.",
    "That warning on my watch came back.",
)


@dataclass
class Query:
    text: str
    kind: str
    relevance: dict[str, int]  # item key -> 2 (what it is about) or 1 (helps)


@dataclass
class Persona:
    name: str
    items: list[mi.MemoryItem]
    queries: list[Query] = field(default_factory=list)
    # (disease, specialization, days ago) of each past complaint: the referral cases use them
    episodes: list[tuple[str, str, int]] = field(default_factory=list)
    conditions: list[str] = field(default_factory=list)


def _lay(rng: random.Random, key: str) -> str:
    bank = symptom_bank()
    return rng.choice(bank.symptoms[key].lay)


def _fill(rng: random.Random, templates: tuple[str, ...], keys: list[str]) -> str:
    a = _lay(rng, keys[0])
    b = _lay(rng, keys[1]) if len(keys) > 1 else _lay(rng, keys[0])
    text = rng.choice(templates).format(a=a, A=a[:1].upper() + a[1:], b=b)
    return text


def generate(count: int, seed: int = 0) -> list[Persona]:
    """``count`` personas, the same for the same seed."""
    return [persona(f"p{seed}-{i}", random.Random(f"memory-{seed}-{i}")) for i in range(count)]


def persona(name: str, rng: random.Random) -> Persona:
    bank = symptom_bank()
    adult_diseases = [d for d in bank.diseases if d.specialization != "pediatrician" and len(d.symptoms) >= 3]
    sex = rng.choice(("female", "male"))
    age = rng.randint(19, 84)
    conditions = rng.sample(sorted(CONDITIONS), rng.choice((0, 1, 1, 2)))
    pregnant = sex == "female" and 20 <= age <= 42 and rng.random() < 0.15
    items: list[mi.MemoryItem] = [mi.profile_item(age, sex, pregnant)]
    items += [mi.condition_item(i, c) for i, c in enumerate(conditions)]
    allergies = rng.sample(ALLERGIES, rng.choice((0, 1, 1, 2)))
    items += [mi.allergy_item(i, a) for i, a in enumerate(allergies)]
    medications = []
    for i, condition in enumerate(conditions):
        drug, strength = CONDITIONS[condition]
        start = TODAY - dt.timedelta(days=rng.randint(60, 1500))
        medications.append(mi.medication_item(i, drug, strength, "1 tablet, once a day", start, True))
    items += medications
    found = Persona(name, items, conditions=conditions)
    pk = 0
    episodes_shown: dict[int, list[str]] = {}
    for disease in rng.sample(adult_diseases, rng.randint(4, 9)):
        pk += 1
        days = rng.randint(2, 420)
        day = TODAY - dt.timedelta(days=days)
        shown = list(disease.symptoms[: rng.randint(2, 3)])
        clinical = [bank.symptoms[k].clinical for k in shown]
        state = rng.choice(("completed", "completed", "confirmed", "cancelled", ""))
        spec = disease.specialization if state else ""
        complaint = mi.complaint_item(pk, ", ".join(clinical), [], day, spec, state)
        items.append(complaint)
        appointment = None
        if state:
            when = day + dt.timedelta(days=rng.randint(1, 12))
            appointment = mi.appointment_item(
                f"appointment:{pk}", rng.choice(DOCTORS), spec, when, state, ", ".join(clinical)
            )
            items.append(appointment)
        found.episodes.append((disease.name, disease.specialization, days))
        # The query says, in lay words, one symptom the complaint named and one more of the disease's
        # characteristic ones it did not (or a second named one).
        unnamed = [k for k in disease.symptoms[:5] if k not in shown]
        said = [rng.choice(shown), rng.choice(unnamed) if unnamed else rng.choice(shown)]
        relevance = {complaint.key: 2}
        if appointment is not None:
            relevance[appointment.key] = 2
        for item in items:
            if item.kind in ("condition", "medication") and spec and item.specialization == spec:
                relevance[item.key] = 1
        # Another past complaint naming one of the same symptoms is related too (and its appointment).
        for other_pk, other_shown in episodes_shown.items():
            if set(other_shown) & set(said):
                for key in (f"complaint:{other_pk}", f"appointment:{other_pk}"):
                    if any(item.key == key for item in items):
                        relevance.setdefault(key, 1)
        episodes_shown[pk] = shown
        if rng.random() < 0.6:
            text = _fill(rng, RECURRENCE, said)
            # Some queries deny a symptom of another past complaint ("No fever though."): that
            # complaint shares words with the query and must not be found for them.
            others = [(k, v) for k, v in episodes_shown.items() if k != pk and f"complaint:{k}" not in relevance]
            if others and rng.random() < 0.35:
                _, other_shown = rng.choice(others)
                denied = bank.symptoms[rng.choice([k for k in other_shown if k not in said] or other_shown)].clinical
                text += rng.choice((" No {d} though.", " I don't have any {d}.", " There's no {d} this time."))
                text = text.format(d=denied)
            found.queries.append(Query(text, "recurrence", relevance))
    alerts = []
    for condition, (summary, likely) in ALERTS.items():
        if (any(c in likely for c in conditions) and rng.random() < 0.7) or rng.random() < 0.08:
            pk += 1
            day = TODAY - dt.timedelta(days=rng.randint(1, 60))
            alerts.append(
                (mi.alert_item(pk, "soft", condition, summary, day, rng.choice(("resolved", "open"))), likely)
            )
    items += [a for a, _ in alerts]
    if alerts:
        items.append(mi.vitals_item([a.text.split(": ", 2)[-1] for a, _ in alerts], TODAY - dt.timedelta(days=1)))
    for i in range(rng.randint(0, 3)):
        day = TODAY - dt.timedelta(days=rng.randint(1, 30))
        items.append(
            mi.report_item(100 + i, day, [rng.choice(("slept 5 h", "7,400 steps", "resting heart rate 64"))], "")
        )
    for condition in conditions:
        link = condition_link(condition)
        keys = list(CONDITION_SYMPTOMS[condition])
        relevance = {}
        for item in items:
            if item.kind == "condition" and item.text.endswith(condition):
                relevance[item.key] = 2
            elif item.kind == "medication" and link and item.specialization == link.specialization:
                relevance[item.key] = 2
        for alert, likely in alerts:
            if condition in likely:
                relevance[alert.key] = 1
        found.queries.append(Query(_fill(rng, CONDITION_QUERIES, rng.sample(keys, 2)), "condition", relevance))
    if allergies or medications:
        pain = rng.choice(("headache", "back_pain", "joint_pain", "body_aches"))
        relevance = {item.key: 2 for item in items if item.kind == "allergy" or item.outcome == "active"}
        found.queries.append(Query(_fill(rng, MEDICATION_QUERIES, [pain]), "medication", relevance))
    if alerts:
        relevance = {item.key: 2 for item in items if item.kind in ("alert", "vitals")}
        for _alert, likely in alerts:
            for item in items:
                if item.kind == "condition" and any(item.text.endswith(c) for c in likely):
                    relevance[item.key] = 1
        found.queries.append(Query(rng.choice(VITALS_QUERIES), "vitals", relevance))
    rng.shuffle(found.items)
    return found


def split(personas: list[Persona], test_share: float = 0.25) -> tuple[list[Persona], list[Persona]]:
    """(train, test) by persona: every fourth persona is a test persona, never a training one."""
    step = max(2, round(1 / test_share))
    test = personas[::step]
    train = [p for i, p in enumerate(personas) if i % step]
    return train, test
