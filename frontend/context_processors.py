"""Template context every page gets."""

from __future__ import annotations

from django.http import HttpRequest

from core.events import names


def live_events(request: HttpRequest) -> dict:
    """The websocket's event names (``core.events``), which ``base.html`` hands to the pages' scripts."""
    return {"live_events": names()}
