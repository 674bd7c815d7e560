"""Knowledge the Action Manager reads at run time, kept as data files beside this module.

``symptom_bank.json``: the curated disease and symptom bank. Every disease of the Agent-Lite
paper's Appendix C (``source: "appendix_c"``) plus everyday conditions (``source: "extra"``) so
that each specialization of the demo directory has at least five diseases. Each disease names the
specialist who treats it and lists its most characteristic symptoms first. ``first_contact`` names
the specialist who examines a patient first when that is someone else: a cancer is treated by an
oncologist, but a breast lump without a diagnosis is examined by a general surgeon and a changing
mole by a dermatologist (the first-contact rule triage follows; absent, it is ``specialization``).

Symptoms are grouped by body system (the group names are for readers only). A symptom has a key,
a short clinical term (what the caller passes as ``symptoms``) and first-person lay phrasings that
are complete clauses ("my throat is killing me"); ``"countable": true`` when the clinical term
takes "a"/"an" ("I have a rash"), ``"noun_phrase": false`` when it cannot follow "I have"
("recent travel to the tropics"). ``child_lay`` has third-person phrasings, with
``{he}``/``{his}``/``{him}`` placeholders, for a parent describing a child.

Triage (:mod:`agents.triage`) builds its retrieval index from the bank, and the symptom matcher
(:mod:`agents.tools.said`) reads its phrasings; the offline data generator samples
conversations from it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

SYMPTOM_BANK = Path(__file__).with_name("symptom_bank.json")


@dataclass(frozen=True)
class Symptom:
    key: str
    clinical: str
    lay: tuple[str, ...]


@dataclass(frozen=True)
class Disease:
    name: str
    specialization: str
    symptoms: tuple[str, ...]  # keys of Symptom, most characteristic first
    source: str  # "appendix_c" or "extra"
    first_contact: str = ""  # who examines first, without a diagnosis ("" = the specialization)

    @property
    def examined_first_by(self) -> str:
        return self.first_contact or self.specialization


@dataclass(frozen=True)
class SymptomBank:
    symptoms: Mapping[str, Symptom]  # by key, in the file's order
    diseases: tuple[Disease, ...]
    child_lay: Mapping[str, tuple[str, ...]]  # symptom key -> phrasings about a child
    countable: frozenset[str]  # keys whose clinical term takes "a"/"an" in a sentence
    not_noun_phrase: frozenset[str]  # keys whose clinical term cannot follow "I have"


class BankError(ValueError):
    """The bank file is inconsistent (a duplicate or unknown symptom key)."""


@cache
def symptom_bank(path: Path = SYMPTOM_BANK) -> SymptomBank:
    """The bank in ``path`` (the committed file by default), read once and checked."""
    data = json.loads(path.read_text(encoding="utf-8"))
    symptoms: dict[str, Symptom] = {}
    countable: set[str] = set()
    not_noun_phrase: set[str] = set()
    for rows in data["symptoms"].values():
        for row in rows:
            key = row["key"]
            if key in symptoms:
                raise BankError(f"duplicate symptom key {key!r}")
            symptoms[key] = Symptom(key=key, clinical=row["clinical"], lay=tuple(row["lay"]))
            if row.get("countable", False):
                countable.add(key)
            if not row.get("noun_phrase", True):
                not_noun_phrase.add(key)
    diseases = tuple(
        Disease(row["name"], row["specialization"], tuple(row["symptoms"]), row["source"], row.get("first_contact", ""))
        for row in data["diseases"]
    )
    child_lay = {key: tuple(phrasings) for key, phrasings in data["child_lay"].items()}
    named = {key for disease in diseases for key in disease.symptoms} | child_lay.keys()
    unknown = sorted(named - symptoms.keys())
    if unknown:
        raise BankError(f"unknown symptom keys: {', '.join(unknown)}")
    return SymptomBank(symptoms, diseases, child_lay, frozenset(countable), frozenset(not_noun_phrase))
