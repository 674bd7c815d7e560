"""Push events to a user's open browser tabs over Channels.

Every producer (agent runtime, vitals monitor, SOS, messaging) goes through
``push_to_user``; each tab's consumer joins the user's group on connect.
"""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

log = logging.getLogger(__name__)


def user_group(user_id: int) -> str:
    return f"user.{user_id}"


def push_to_user(user_id: int, event: str, payload: dict[str, Any]) -> None:
    """Send ``{"event": event, "data": payload}`` to every tab of ``user_id``.

    Delivery is best effort: a missing or unreachable channel layer never
    breaks the action that produced the event (the database is the record).
    """
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(user_group(user_id), {"type": "user.event", "event": event, "data": payload})
    except Exception:
        log.warning("could not push %s event to user %s", event, user_id, exc_info=True)
