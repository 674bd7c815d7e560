"""The compact memory the planner reads: the few long-term items that matter for this request.

One line in the planner's system prompt, computed once per request (so the prompt prefix stays the
same across the request's steps and the key/value cache keeps working): the top items of the
user's memory for what they said, kept only when related to it, or when a clinician always wants
them (known conditions, allergies, a pregnancy or age). Short on purpose: the planner is a small
model and its prompt is re-read at every step.
"""

from __future__ import annotations

import logging

from agents.memory.recall import is_related, recall

log = logging.getLogger(__name__)

ITEMS = 3
MAX_CHARS = 360
ALWAYS = ("condition", "allergy")


def long_term(user, query: str, *, items: int = ITEMS, max_chars: int = MAX_CHARS) -> str:
    """``"item; item; item"``: the user's memory most relevant to ``query`` (empty: nothing worth it)."""
    if not query.strip():
        return ""
    chosen = []
    for ranked in recall(user, query, k=8):
        item = ranked.item
        wanted = is_related(ranked) or item.kind in ALWAYS or (item.kind == "profile" and "pregnant" in item.text)
        if wanted and item.text not in chosen:
            chosen.append(item.text)
        if len(chosen) == items:
            break
    text = "; ".join(chosen)
    return text if len(text) <= max_chars else text[: max_chars - 1] + "…"


def planner_memory(user, query: str) -> str:
    """``long_term`` that never fails a chat: memory is help, not a requirement."""
    try:
        return long_term(user, query)
    except Exception as exc:  # noqa: BLE001  (a broken index must not stop the conversation)
        log.warning("memory context unavailable: %s", type(exc).__name__)
        return ""
