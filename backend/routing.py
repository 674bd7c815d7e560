"""Websocket routes: each UI feature's consumer lives in ``frontend``."""

from __future__ import annotations

from frontend.routing import websocket_urlpatterns

__all__ = ["websocket_urlpatterns"]
