"""The learned second opinion of the first step: which desk a request is for, when no desk's rules read it.

The desks' hand-written rules (agents.appointment_desk, health_desk, medicine_desk) are precise but
read only the phrasings they were written from: on template families they were not written from,
"can we push Thursday's visit back" or "what's on my pill list" went to the model, which was never
trained on those use cases. This classifier reads the request by meaning: the sentence encoder
triage already loads (all-MiniLM-L6-v2) and a multinomial logistic regression over its embedding
(12 use cases), trained by ``manage.py train_first_step`` on generated requests of the dev template
families only (agentlab/data/requests.py; the test families stay unseen) and shipped as
``agents/knowledge/first_step.npz`` with its card ``first_step.json``.

It is asked only after every rule declined, and it only ever routes to a desk: help now stays with
its rules (a false SOS is not a guess to make), and the model's own use cases (booking, setting a
reminder) are never taken from it on a guess: a route needs the classifier's probability at or above
the threshold chosen on the dev families by cross-validation so that none of the model's requests
was taken. A wrong route still changes nothing without the patient's yes (the desks ask first).
Turned off with ``AGENT_FIRST_STEP_MODEL=0``.
"""

from __future__ import annotations

import logging
from functools import cache
from pathlib import Path

import numpy as np
from django.conf import settings

log = logging.getLogger(__name__)

MODEL_PATH = Path(__file__).parent / "knowledge" / "first_step.npz"
# The use cases a route may go to (the classifier's other classes keep the request with the model).
DESK_USE_CASES = frozenset(
    {
        "appointments_list",
        "appointments_cancel",
        "appointments_reschedule",
        "my_health",
        "medicines_today",
        "medicines_taken",
        "medicines_photo",
    }
)


@cache
def _model() -> tuple[list[str], np.ndarray, np.ndarray, float]:
    data = np.load(MODEL_PATH, allow_pickle=False)
    return [str(c) for c in data["classes"]], data["coef"], data["intercept"], float(data["threshold"])


def probabilities(message: str) -> dict[str, float]:
    """The classifier's probability of each use case for ``message``."""
    from agents.triage import encoder  # the sentence encoder triage uses (loaded once per process)

    classes, coef, intercept, _threshold = _model()
    vector = encoder().encode([str(message)], normalize_embeddings=True, show_progress_bar=False)[0]
    logits = coef @ vector + intercept
    exp = np.exp(logits - logits.max())
    return dict(zip(classes, (exp / exp.sum()).tolist(), strict=True))


def route(message: str) -> str | None:
    """The desk use case ``message`` is for, when the classifier is sure enough; else None."""
    if not getattr(settings, "AGENT_FIRST_STEP_MODEL", True) or not MODEL_PATH.exists():
        return None
    found = probabilities(message)
    best = max(found, key=found.__getitem__)
    if best in DESK_USE_CASES and found[best] >= _model()[3]:
        return best
    return None
