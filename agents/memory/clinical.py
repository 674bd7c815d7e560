"""What memory knows about conditions and medicines: the specialist and body system each belongs to.

Small, hand-written tables of common long-term conditions and medicines, so that "type 2 diabetes"
or "metformin" can be matched to a complaint about thirst the way a clinician would link them. A
name not in a table still is a memory item; it only lacks these links.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Link:
    specialization: str
    systems: frozenset[str]
    condition: str = ""  # the condition a medicine treats


def _link(specialization: str, *systems: str, condition: str = "") -> Link:
    return Link(specialization, frozenset(systems), condition)


HEART = "heart and vessels"
LUNGS = "lungs, chest"
HORMONES = "hormones, metabolism"
KIDNEYS = "kidneys and urinary tract"
DIGESTION = "digestion"
NERVES = "head, brain, nerves"
JOINTS = "bones, joints, muscles"
MIND = "mental health"
SKIN = "skin, hair, nails"
WOMEN = "women's health"
GENERAL = "general"

# Condition (a regular expression over the lower-cased name) -> its specialist and body systems.
CONDITIONS: dict[str, Link] = {
    r"diabet|prediabet": _link("endocrinologist", HORMONES, GENERAL),
    r"thyroid": _link("endocrinologist", HORMONES),
    r"asthma": _link("pulmonologist", LUNGS),
    r"copd|emphysema|chronic bronchitis": _link("pulmonologist", LUNGS),
    r"kidney|renal|nephro": _link("nephrologist", KIDNEYS),
    r"hypertension|high blood pressure": _link("cardiologist", HEART),
    r"heart|angina|atrial|arrhythm|coronary": _link("cardiologist", HEART),
    r"migraine|epilep|seizure": _link("neurologist", NERVES),
    r"arthritis|lupus|gout": _link("rheumatologist", JOINTS),
    r"crohn|colitis|ibs|irritable bowel|reflux|gerd|coeliac|celiac": _link("gastroenterologist", DIGESTION),
    r"hepatitis|cirrhosis|fatty liver": _link("hepatologist", DIGESTION),
    r"depress|anxiety|bipolar|panic": _link("psychiatrist", MIND),
    r"eczema|psoriasis": _link("dermatologist", SKIN),
    r"pregnan": _link("gynecologist", WOMEN, DIGESTION),
    r"pcos|endometriosis|fibroid": _link("gynecologist", WOMEN),
}

# Medicine (generic, lower case) -> the condition it is usually for.
MEDICINES: dict[str, str] = {
    "metformin": "type 2 diabetes",
    "insulin": "diabetes",
    "gliclazide": "type 2 diabetes",
    "empagliflozin": "type 2 diabetes",
    "levothyroxine": "hypothyroidism",
    "salbutamol": "asthma",
    "albuterol": "asthma",
    "budesonide": "asthma",
    "montelukast": "asthma",
    "tiotropium": "copd",
    "amlodipine": "hypertension",
    "lisinopril": "hypertension",
    "ramipril": "hypertension",
    "losartan": "hypertension",
    "atorvastatin": "heart disease",
    "bisoprolol": "atrial fibrillation",
    "furosemide": "kidney disease",
    "sumatriptan": "migraine",
    "levetiracetam": "epilepsy",
    "methotrexate": "rheumatoid arthritis",
    "allopurinol": "gout",
    "omeprazole": "reflux",
    "pantoprazole": "reflux",
    "mesalazine": "ulcerative colitis",
    "sertraline": "depression",
    "fluoxetine": "depression",
    "folic acid": "pregnancy",
}


def condition_link(name: str) -> Link | None:
    """The specialist and body systems of a named condition, if the table knows it."""
    lowered = name.lower()
    for pattern, link in CONDITIONS.items():
        if re.search(pattern, lowered):
            return link
    return None


def medicine_link(name: str) -> Link | None:
    """The condition a medicine is usually for, with that condition's specialist and systems."""
    lowered = name.lower()
    for medicine, condition in MEDICINES.items():
        if medicine in lowered:
            link = condition_link(condition)
            return Link(link.specialization, link.systems, condition) if link else None
    return None
