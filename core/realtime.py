"""Push events to a user's open browser tabs over Channels.

Every producer (agent runtime, vitals monitor, SOS, messaging) goes through
``push_to_user`` with one of ``core.events.Event``; each tab's consumer
(``frontend.consumers``) joins the user's group on connect.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from core.events import Event

log = logging.getLogger(__name__)
_muted: ContextVar[bool] = ContextVar("realtime_muted", default=False)


@contextmanager
def muted() -> Iterator[None]:
    """No pushes from this context while inside: conversations that no browser shows (generated
    training data) skip the channel layer, a quarter of the generator's time."""
    token = _muted.set(True)
    try:
        yield
    finally:
        _muted.reset(token)


def user_group(user_id: int) -> str:
    return f"user.{user_id}"


def push_to_user(user_id: int, event: Event | str, payload: dict[str, Any]) -> None:
    """Send ``{"event": event, "data": payload}`` to every tab of ``user_id``.

    Delivery is best effort: a missing or unreachable channel layer never
    breaks the action that produced the event (the database is the record).
    An event name that is not in ``core.events.Event`` is a programming
    error, raised at once (no page listens for it).
    """
    event = Event(event)
    if _muted.get():
        return
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(
            user_group(user_id), {"type": "user.event", "event": event.value, "data": payload}
        )
    except Exception:
        log.warning("could not push %s event to user %s", event, user_id, exc_info=True)
