"""The Celery application: configured from Django settings (``CELERY_*``)."""

from __future__ import annotations

import os

from celery import Celery

from health.monitor.schedule import quiet_idle_sweeps

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "backend.settings")

app = Celery("backend")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# The SOS sweep runs every 5 s: its idle runs are not logged (see the function).
quiet_idle_sweeps()


@app.task(name="backend.ping")
def ping() -> str:
    """Round trip used by health checks and tests to prove a worker is connected."""
    return "pong"
