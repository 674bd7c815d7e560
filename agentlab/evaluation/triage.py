"""Triage alone (no language model): the first specialization ``agents.triage.suggest`` ranks.

Two sources, scored the same way (the first specialization is one a sensible triage books):

- ``generated``: complaints the phrasing generator writes for every disease of the bank, with a
  test seed and typos on a third of them; the right answer is the disease's first-contact
  specialist (``Disease.examined_first_by``). Grouped by that specialization.
- ``hand_written``: complaints written by hand, independently of the bank and its phrasing
  generator, seven a specialization (``triage_dev.jsonl``): plain, texting, British and US wording,
  the classic presentations a clinician recognises. The clause reading's floor and weight were
  chosen on the first 115 and the generated ones (the last 46 were written after, as a check), so
  they are a development set, not held-out evidence.
- ``symptom2disease``: the raw Symptom2Disease complaints (evaluation only; never a source of
  rules or training), accepted when the first specialization is in the label's list. Grouped by
  label. The texts are never written into a report.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass, field
from pathlib import Path

from agentlab.data import phrasing
from agentlab.data.bank import DISEASES
from agentlab.evaluation.scenarios import symptom2disease_cases
from agents import triage

HAND_WRITTEN = Path(__file__).with_name("triage_dev.jsonl")
TEST_SEED = 20261125
TYPO_SHARE = 1 / 3
TYPO_RATE = 0.06


@dataclass
class Score:
    cases: int = 0
    right: int = 0
    groups: dict[str, list[int]] = field(default_factory=dict)  # group -> [right, cases]
    seconds: float = 0.0

    def add(self, group: str, right: bool) -> None:
        self.cases += 1
        self.right += int(right)
        row = self.groups.setdefault(group, [0, 0])
        row[0] += int(right)
        row[1] += 1

    @property
    def share(self) -> float:
        return self.right / self.cases if self.cases else 0.0

    def as_dict(self) -> dict:
        return {
            "cases": self.cases,
            "right": self.right,
            "share": round(self.share, 4),
            "seconds": round(self.seconds, 1),
            "groups": {name: {"right": r, "cases": n} for name, (r, n) in sorted(self.groups.items())},
        }


def _normal(name: str) -> str:
    """Directory spelling of a specialization ("ENT" = "ent", "general practitioner" = GP)."""
    name = " ".join(str(name).lower().split())
    return {"general practitioner": "general physician", "otolaryngologist": "ent"}.get(name, name)


def generated(per_disease: int, seed: int = TEST_SEED) -> Score:
    rng = random.Random(seed)
    score = Score()
    started = time.perf_counter()
    for disease in DISEASES:
        expected = disease.examined_first_by
        for _ in range(per_disease):
            typos = TYPO_RATE if rng.random() < TYPO_SHARE else 0.0
            text = phrasing.complaint(rng, disease, typo_rate=typos).text
            score.add(expected, triage.suggest(text)[0][0] == expected)
    score.seconds = time.perf_counter() - started
    return score


def hand_written(path: str | Path = HAND_WRITTEN) -> Score:
    """Each line ``{"text": ..., "specialization": ...}``: right when triage ranks it first."""
    score = Score()
    started = time.perf_counter()
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            text, expected = row["text"], _normal(row["specialization"])
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}, line {number}: not a {{text, specialization}} object") from exc
        score.add(expected, _normal(triage.suggest(text)[0][0]) == expected)
    score.seconds = time.perf_counter() - started
    return score


def symptom2disease(directory: str | Path, per_disease: int | None = None) -> Score:
    score = Score()
    started = time.perf_counter()
    for case in symptom2disease_cases(directory, per_disease=per_disease):
        ranked = triage.suggest(case.message)
        acceptable = {_normal(name) for name in case.specializations}
        score.add(case.label, bool(ranked) and _normal(ranked[0][0]) in acceptable)
    score.seconds = time.perf_counter() - started
    return score
