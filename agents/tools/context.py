"""What the runtime injects into every tool call: who the conversation is for.

The model never supplies the context. It only ever sees the conversation's
user id (``user_ref``, from the trajectory's system state); a ``user_id``
argument naming anyone else is refused before a tool touches the database.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.utils import timezone

from agents.errors import NotAuthorised


@dataclass
class ToolContext:
    """The conversation a tool acts for.

    Attributes:
        user: the conversation's user; every tool acts for this user only.
        conversation: the conversation (None for a bare tool call in a shell).
        user_ref: the user id the model sees in the system state.
        alert: the SOS alert this run answers, if any.
        step_index: index of the caller step being executed (idempotency keys).
        clock: returns "now"; injectable so replays and tests are deterministic.
    """

    user: Any
    conversation: Any = None
    user_ref: str = ""
    alert: Any = None
    step_index: int = 0
    clock: Callable[[], dt.datetime] = field(default=timezone.now)

    def __post_init__(self) -> None:
        if not self.user_ref:
            self.user_ref = str(self.user.pk)

    def check_user(self, user_id: str) -> None:
        """Refuse a ``user_id`` argument that is not this conversation's user."""
        if str(user_id).strip() != self.user_ref:
            raise NotAuthorised(f"user_id {user_id!r} is not the user of this conversation ({self.user_ref}).")

    @property
    def tz(self) -> zoneinfo.ZoneInfo:
        """The user's time zone (from the profile), in which dates and times are spoken."""
        profile = getattr(self.user, "profile", None)
        try:
            return zoneinfo.ZoneInfo(profile.timezone if profile else "UTC")
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            return zoneinfo.ZoneInfo("UTC")

    def now(self) -> dt.datetime:
        return self.clock()

    def display_name(self) -> str:
        return self.user.get_full_name() or self.user.get_username()
