"""What the Action Manager adds to a daily report, through handlers it registers at start-up.

``health`` never imports ``agents`` (layers point one way), yet the report names the key points of
the day's conversations, which live in ``agents.models``, and the local model may write its
summary. ``agents`` registers both in its ``AppConfig.ready()``, like the SOS flows
(``health.sos.flows``). Without a registration the report still builds: the conversations are
``None`` ("not available", not "none"), and the narrative is the template's.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

# (user id, start, end) -> one short line per conversation of that span.
ConversationPoints = Callable[[int, dt.datetime, dt.datetime], list[str]]
# The day's facts -> a short summary, or None when the model has nothing (or failed).
Narrator = Callable[[dict[str, Any]], str | None]

_conversation_points: ConversationPoints | None = None
_narrator: Narrator | None = None


def register(*, conversation_points: ConversationPoints | None = None, narrator: Narrator | None = None) -> None:
    """Called by the Action Manager's ``AppConfig.ready()`` (and by tests)."""
    global _conversation_points, _narrator
    if conversation_points is not None:
        _conversation_points = conversation_points
    if narrator is not None:
        _narrator = narrator


def conversation_points(user_id: int, start: dt.datetime, end: dt.datetime) -> list[str] | None:
    if _conversation_points is None:
        return None
    return list(_conversation_points(user_id, start, end))


def narrator() -> Narrator | None:
    return _narrator
