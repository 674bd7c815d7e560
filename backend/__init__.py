"""Project wiring: settings, URLs, ASGI, Celery app and websocket routing."""

from __future__ import annotations

from backend.celery import app as celery_app

__all__ = ["celery_app"]
