"""Per-user search indexes over the memory items: BM25 over lemmas and dense vectors.

``MemoryIndex(items)`` is plain data (the offline lab builds one per generated persona);
``index_for(user)`` is the product's: one index per user per process, rebuilt when the user's
data changes. A save or delete of a source model bumps the user's version in Django's cache
(Redis in production, so the web process's change reaches the worker's index too); an index whose
version is behind is rebuilt on its next use. Vitals arrive with ``bulk_create``, which sends no
signal, so an index is also rebuilt after ``MEMORY_INDEX_MAX_AGE_SECONDS``. Rebuilding is cheap:
each text's vector is cached, so only new or changed items are embedded.
"""

from __future__ import annotations

import functools
import re
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

from django.conf import settings

from agents.memory.items import MemoryItem, items_for
from agents.memory.text import Analysis, analyse, body_systems
from agents.memory.versions import _indexes, version

_lock = threading.Lock()
_vectors: OrderedDict[str, object] = OrderedDict()
VECTOR_CACHE = 20_000


def embed(texts: list[str]):
    """Unit vectors of ``texts`` (all-MiniLM-L6-v2, the triage's encoder), cached per text."""
    import numpy as np  # heavy, optional: loaded only when used

    from agents import triage

    with _lock:
        missing = list(dict.fromkeys(t for t in texts if t not in _vectors))
        if missing:
            found = triage.encoder().encode(
                missing, batch_size=64, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
            )
            for text, vector in zip(missing, found, strict=True):
                _vectors[text] = vector
            while len(_vectors) > VECTOR_CACHE:
                _vectors.popitem(last=False)
        rows = [_vectors[t] for t in texts]
    return np.vstack(rows) if rows else np.zeros((0, 384), dtype="float32")


@dataclass
class Scores:
    bm25: list[float]
    dense: list[float]
    concept: list[float]  # best cosine between a clause of the query and one of the item's symptoms
    systems: frozenset[str]  # body systems of the symptoms the query's clauses are closest to


CLAUSE_LINK = 0.5  # a clause this close to a clinical term is taken to name that symptom


def clauses(text: str) -> list[str]:
    """The query's clauses ("I keep getting the shivers, and my head hurts" -> two), at most six."""
    parts = [p.strip() for p in re.split(r"[,.;!?]|\band\b|\bbut\b", text) if len(p.strip()) > 2]
    return parts[:6]


def linked_symptoms(text: str, threshold: float = CLAUSE_LINK) -> frozenset[str]:
    """Symptom keys that a clause of ``text`` names in other words ("my cuts take ages to heal" ->
    slow_healing): each clause's nearest clinical term of the bank, if close enough. One term a
    clause: the runners-up are mostly neighbours ("sore throat" is also near "dry cough"). Negated
    words are left out first, so "no fever" links to nothing."""
    parts = clauses(analyse(text).affirmed_text)
    if not parts:
        return frozenset()
    keys, terms = concept_terms()
    similarity = terms @ embed(parts).T  # terms x clauses
    best = similarity.argmax(axis=0)
    return frozenset(keys[row] for column, row in enumerate(best) if similarity[row, column] >= threshold)


@functools.cache
def concept_terms() -> tuple[list[str], object]:
    """(symptom keys, unit vectors of their clinical terms): the dense side of symptom linking."""
    from agents.knowledge import symptom_bank

    bank = symptom_bank()
    keys = list(bank.symptoms)
    return keys, embed([bank.symptoms[k].clinical for k in keys])


class MemoryIndex:
    """BM25 and dense search over one user's items."""

    def __init__(self, items: list[MemoryItem]) -> None:
        self.items = list(items)
        self.analyses: list[Analysis] = [analyse(item.text) for item in self.items]
        # An empty token list would make BM25 divide by zero on a corpus of one.
        self._bm25 = _bm25([list(a.tokens) or ["∅"] for a in self.analyses]) if self.items else None
        self._vectors = embed([analyse(item.content).affirmed_text or item.text for item in self.items])

    def search(self, query: str | Analysis) -> Scores:
        """BM25 and cosine scores of every item for ``query`` (in the items' order)."""
        analysis = analyse(query) if isinstance(query, str) else query
        if not self.items:
            return Scores([], [], [], frozenset())
        bm25 = [0.0] * len(self.items)
        if analysis.tokens:
            bm25 = [float(s) for s in self._bm25.get_scores(list(analysis.tokens))]
        parts = clauses(analysis.affirmed_text)
        vectors = embed([analysis.affirmed_text or ".", *parts])
        dense = [float(s) for s in self._vectors @ vectors[0]]
        keys, terms = concept_terms()
        best = (terms @ vectors.T).max(axis=1)  # each symptom's closeness to the nearest clause
        closest = dict(zip(keys, (float(b) for b in best), strict=True))
        concept = [max((closest.get(k, 0.0) for k in a.concepts), default=0.0) for a in self.analyses]
        named = {k for k, b in closest.items() if b >= CLAUSE_LINK} | set(analysis.concepts)
        systems = body_systems()
        return Scores(bm25, dense, concept, frozenset(systems[k] for k in named if k in systems))


def _bm25(corpus: list[list[str]]):
    """Okapi BM25 with Lucene's IDF, log(1 + (N - n + 0.5) / (n + 0.5)): rank-bm25's Okapi IDF is
    0 for a term in half the documents, which in a user's corpus of a few items is most terms."""
    import math

    from rank_bm25 import BM25Okapi  # optional import: only where memory is used

    class LuceneBM25(BM25Okapi):
        def _calc_idf(self, nd: dict[str, int]) -> None:
            self.idf = {word: math.log(1 + (self.corpus_size - n + 0.5) / (n + 0.5)) for word, n in nd.items()}

    return LuceneBM25(corpus)


def index_for(user, now=None) -> MemoryIndex:
    """The user's index, rebuilt if their data changed since it was built (or it is too old)."""
    current = version(user.pk)
    max_age = settings.MEMORY_INDEX_MAX_AGE_SECONDS
    cached = _indexes.get(user.pk)
    fresh = current is not None and cached is not None and cached[0] == current
    if fresh and time.monotonic() - cached[1] < max_age and now is None:
        return cached[2]
    index = MemoryIndex(items_for(user, now))
    if now is None and current is not None:
        _indexes[user.pk] = (current, time.monotonic(), index)
    return index
