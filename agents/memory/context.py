"""The compact memory the planner reads: the few long-term items that matter for this request.

One line in the planner's system prompt, computed once per request (so the prompt prefix stays the
same across the request's steps and the key/value cache keeps working): what a clinician always
wants (age and sex, a pregnancy, known conditions, allergies), then the user's records most
relevant to what they said, kept only when related to it. Short on purpose: the planner is a small
model and its prompt is re-read at every step.
"""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)

ITEMS = 3
MAX_CHARS = 360
ALWAYS = ("profile", "condition", "allergy")  # what a clinician reads before any complaint


def long_term(user, query: str, *, items: int = ITEMS, max_chars: int = MAX_CHARS) -> str:
    """``"item; item; ..."``: the user's age, sex, conditions and allergies, then the ``items``
    records most relevant to ``query`` that are related to it (empty: nothing worth saying)."""
    if not query.strip():
        return ""
    # Deferred: recall loads spaCy and the sentence encoder, which a process that never plans a
    # chat (the OCR worker, beat, a management command) must not pay for at start-up.
    from agents.memory.recall import is_related, recall

    ranked = recall(user, query)
    firsts = sorted((r for r in ranked if r.item.kind in ALWAYS), key=lambda r: ALWAYS.index(r.item.kind))
    always = [r.item.text for r in firsts]
    related = [r.item.text for r in ranked if r.item.kind not in ALWAYS and is_related(r)][:items]
    text = "; ".join([*always, *related])
    return text if len(text) <= max_chars else text[: max_chars - 1] + "…"


def planner_memory(user, query: str) -> str:
    """``long_term`` that never fails a chat: memory is help, not a requirement."""
    try:
        return long_term(user, query)
    except Exception as exc:  # noqa: BLE001  (a broken index must not stop the conversation)
        log.warning("memory context unavailable: %s", type(exc).__name__)
        return ""
