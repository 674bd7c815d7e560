"""The Celery application: configured from Django settings (``CELERY_*``)."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "backend.settings")

app = Celery("backend")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.task(name="backend.ping")
def ping() -> str:
    """Round trip used by health checks and tests to prove a worker is connected."""
    return "pong"
