"""The medication lexicon (``lexicon.json``): synonyms -> generic names, and fixed combinations."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from rapidfuzz import process
from rapidfuzz.distance import OSA

LEXICON_PATH = Path(__file__).with_name("lexicon.json")


@dataclass(frozen=True)
class Lexicon:
    """``names``: every lower-case name (generic or synonym) -> its generic name;
    ``combinations``: the set of parts' generic names -> the combination's generic name."""

    names: dict[str, str]
    combinations: dict[frozenset[str], str]


@cache
def load_lexicon(path: Path = LEXICON_PATH) -> Lexicon:
    data = json.loads(path.read_text(encoding="utf-8"))
    names: dict[str, str] = {}
    for generic, synonyms in data["medications"].items():
        names.setdefault(generic, generic)
        for synonym in synonyms:
            names.setdefault(synonym, generic)
    combinations: dict[frozenset[str], str] = {}
    for generic in data["medications"]:
        parts = [names.get(part.strip()) for part in generic.split("-")]
        if len(parts) > 1 and all(parts):
            combinations[frozenset(parts)] = generic
    return Lexicon(names=names, combinations=combinations)


# --- is a name a medicine? (the chat's reminders, the medications API and page) ---------------------

# Words around a medicine's name that are not part of it ("Tab Metformin", "Dolo 650 tablets").
NOT_NAME_WORDS = {
    "tab", "tabs", "tablet", "tablets", "cap", "caps", "capsule", "capsules", "syp", "syrup", "inj",
    "injection", "susp", "suspension", "drops", "pill", "pills", "my", "the", "medicine", "medication",
}  # fmt: skip


@dataclass(frozen=True)
class KnownMedicine:
    """A name the lexicon knows: ``name`` is what to store (the user's spelling when it is in the
    lexicon as written, else the lexicon's name it is a typo of), ``generic`` its generic name."""

    name: str
    generic: str
    corrected: bool = False


def known_medicine(name: str) -> KnownMedicine | None:
    """``name`` looked up in the medicines lexicon (health/scheduler/lexicon.json, which the
    prescription reader uses): a generic or brand name, a combination of known names ("metformin +
    glimepiride"), or one typo away from one ("metformn"; two for names of 10 letters or more, first
    letter the same). None for anything else ("Lottery Ticket")."""
    return _known_medicine(str(name))


# Cached: the Medications page and API ask for every listed medicine on every view, and the fuzzy
# match over the whole lexicon is the costly part. The lexicon does not change while a process runs.
@lru_cache(maxsize=4096)
def _known_medicine(name: str) -> KnownMedicine | None:
    lexicon = load_lexicon()
    text = " ".join(re.sub(r"[^\w\s+&/.-]", " ", name.lower()).split())
    if text in lexicon.names:
        return KnownMedicine(name, lexicon.names[text])
    core = " ".join(w for w in text.split() if w not in NOT_NAME_WORDS and not re.fullmatch(r"[\d.]+", w))
    if not core:
        return None
    if core in lexicon.names:
        return KnownMedicine(name, lexicon.names[core])
    parts = [p for p in re.split(r"\s*(?:\+|&|/|\band\b|\bwith\b)\s*", core) if p]
    if len(parts) > 1 and all(part in lexicon.names for part in parts):
        generics = frozenset(lexicon.names[part] for part in parts)
        return KnownMedicine(name, lexicon.combinations.get(generics, " + ".join(sorted(generics))))
    if len(core) < 5 or not re.fullmatch(r"[a-z][a-z -]*", core):
        return None
    hit = process.extractOne(core, _lexicon_names(), scorer=OSA.distance, score_cutoff=1 if len(core) < 10 else 2)
    if hit is None or hit[0][0] != core[0]:
        return None
    generic = lexicon.names[hit[0]]
    stored = hit[0] if "-" in generic else generic  # a combination keeps the brand it was typed as
    return KnownMedicine(stored[:1].upper() + stored[1:], generic, corrected=True)


def _lexicon_names() -> list[str]:
    return sorted(load_lexicon().names)
