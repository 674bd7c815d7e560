"""The symptom bank (agents/knowledge/symptom_bank.json, read by :mod:`agents.knowledge`) as the
data generator uses it: module constants, plus the demo directory's specializations, which the
bank covers (each has at least five diseases).
"""

from __future__ import annotations

from agents.knowledge import Disease, Symptom, symptom_bank
from health import demo_data

__all__ = [
    "CHILD_LAY",
    "COUNTABLE",
    "DISEASES",
    "NOT_NOUN_PHRASE",
    "SPECIALIZATIONS",
    "SYMPTOMS",
    "Disease",
    "Symptom",
    "diseases_for",
]

# The demo directory's specializations, in its order: the bank covers every one of them.
SPECIALIZATIONS: tuple[str, ...] = tuple(row.name for row in demo_data.SPECIALIZATIONS)

_BANK = symptom_bank()
SYMPTOMS = _BANK.symptoms
DISEASES = _BANK.diseases
CHILD_LAY = _BANK.child_lay  # every symptom of a pediatrician disease has an entry
COUNTABLE = _BANK.countable
NOT_NOUN_PHRASE = _BANK.not_noun_phrase


def diseases_for(specialization: str) -> list[Disease]:
    """The diseases whose first booking is ``specialization`` (empty for unknown names)."""
    return [d for d in DISEASES if d.specialization == specialization]
