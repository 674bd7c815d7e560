"""The medication lexicon (``lexicon.json``): synonyms -> generic names, and fixed combinations."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

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
