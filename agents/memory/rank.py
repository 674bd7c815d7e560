"""Ranking memory items for a query: Reciprocal Rank Fusion, then LambdaMART (Context Tuning §3.2).

BM25 and dense similarity each rank every item; RRF (Cormack et al. 2009, k=60) fuses the two
ranks; a LightGBM ``lambdarank`` model then re-ranks with the fused rank among its features,
together with the signals the paper names: numerical (scores, ranks, age in days), categorical
(item kind, outcome, the query's intent) and habitual (how often the user complained about the
same body system; whether the item's specialist is the one triage suggests for the query).

The committed model is ``ranker.txt`` beside this module; its card is ``RANKER.md``. Without it
(or with ``use_model=False``) the ranking is RRF's.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from agents.memory.index import MemoryIndex
from agents.memory.items import KINDS, OUTCOMES, MemoryItem
from agents.memory.text import Analysis, analyse

RANKER_FILE = Path(__file__).with_name("ranker.txt")
RRF_K = 60
SUGGESTED = 3  # triage's top specializations the "same specialist" signal looks at
INTENTS = ("symptom", "medication", "appointment", "vitals", "report")
_INTENT_WORDS = {
    "medication": {
        "take",
        "medicine",
        "pill",
        "tablet",
        "dose",
        "prescription",
        "painkiller",
        "drug",
        "inhaler",
        "refill",
        "med",
    },
    "appointment": {"doctor", "appointment", "specialist", "book", "visit", "clinic", "see", "consultant"},
    "vitals": {"watch", "alarm", "oxygen", "pulse", "reading", "beep", "alert", "monitor", "heartbeat"},
    "report": {"report", "summary", "week", "yesterday"},
}
FEATURES = (
    "bm25",
    "bm25_rank",
    "dense",
    "dense_rank",
    "rrf",
    "rrf_rank",
    "concepts",
    "concept_share",
    "negated_conflict",
    "systems",
    "kind",
    "age_days",
    "frequency",
    "same_specialist",
    "outcome",
    "intent",
    "concept_sim",
    "linked_systems",
)
CATEGORICAL = ("kind", "outcome", "intent")


@dataclass(frozen=True)
class Ranked:
    item: MemoryItem
    score: float
    features: tuple[float, ...]


def ranks(scores: list[float]) -> list[int]:
    """1-based rank of each score (highest first; ties keep the items' order)."""
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    found = [0] * len(scores)
    for position, i in enumerate(order, start=1):
        found[i] = position
    return found


def rrf(*rankings: list[int], k: int = RRF_K) -> list[float]:
    """Reciprocal Rank Fusion of several rankings of the same items."""
    return [sum(1.0 / (k + ranking[i]) for ranking in rankings) for i in range(len(rankings[0]))]


def intent(analysis: Analysis) -> str:
    words = set(analysis.tokens)
    for name, cue in _INTENT_WORDS.items():
        if words & cue:
            return name
    return "symptom"


def features(
    index: MemoryIndex, query: str, *, now: dt.date, specializations: list[str] | None = None
) -> list[tuple[float, ...]]:
    """One feature row per item of ``index`` for ``query`` (in FEATURES' order)."""
    q = analyse(query)
    scores = index.search(q)
    bm25_ranks, dense_ranks = ranks(scores.bm25), ranks(scores.dense)
    fused = rrf(bm25_ranks, dense_ranks)
    fused_ranks = ranks(fused)
    top_bm25 = max(scores.bm25, default=0.0) or 1.0
    suggested = specializations if specializations is not None else _triage(q.affirmed_text)[:SUGGESTED]
    query_intent = INTENTS.index(intent(q))
    systems = [a.systems | item.systems for item, a in zip(index.items, index.analyses, strict=True)]
    complaint_systems = [s for item, s in zip(index.items, systems, strict=True) if item.kind == "complaint"]
    rows = []
    for i, (item, a) in enumerate(zip(index.items, index.analyses, strict=True)):
        shared = len(q.concepts & a.concepts)
        frequency = sum(1 for s in complaint_systems if s & systems[i]) if systems[i] else 0
        same = 0
        if item.specialization in suggested:
            same = len(suggested) - suggested.index(item.specialization)
        rows.append(
            (
                scores.bm25[i] / top_bm25,
                bm25_ranks[i],
                scores.dense[i],
                dense_ranks[i],
                fused[i],
                fused_ranks[i],
                shared,
                shared / max(1, len(a.concepts)),
                len(q.negated & a.concepts),
                len(q.systems & systems[i]),
                KINDS.index(item.kind),
                (now - item.date).days if item.date else math.nan,
                frequency,
                same,
                OUTCOMES.index(item.outcome) if item.outcome in OUTCOMES else 0,
                query_intent,
                scores.concept[i],
                len(scores.systems & systems[i]),
            )
        )
    return rows


def _triage(text: str) -> list[str]:
    from agents import triage

    return [name for name, _ in triage.suggest(text or ".", k=3)]


@cache
def ranker(path: Path = RANKER_FILE):
    """The committed LambdaMART model (None when the file is absent)."""
    if not path.is_file():
        return None
    import lightgbm  # heavy, optional: loaded only when used

    return lightgbm.Booster(model_file=str(path))


def rank(
    index: MemoryIndex,
    query: str,
    *,
    now: dt.date,
    use_model: bool = True,
    specializations: list[str] | None = None,
    model=None,
) -> list[Ranked]:
    """Every item of ``index``, most relevant to ``query`` first."""
    if not index.items:
        return []
    rows = features(index, query, now=now, specializations=specializations)
    booster = model if model is not None else (ranker() if use_model else None)
    if booster is not None:
        import numpy as np

        scores = [float(s) for s in booster.predict(np.asarray(rows, dtype=float))]
    else:
        scores = [row[FEATURES.index("rrf")] for row in rows]
    order = sorted(range(len(rows)), key=lambda i: (-scores[i], rows[i][FEATURES.index("rrf_rank")]))
    return [Ranked(index.items[i], scores[i], rows[i]) for i in order]


def feature(ranked: Ranked, name: str) -> float:
    return ranked.features[FEATURES.index(name)]
