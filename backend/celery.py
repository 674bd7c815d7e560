"""The Celery application: configured from Django settings (``CELERY_*``)."""

from __future__ import annotations

import os
import threading

from celery import Celery
from celery.signals import task_prerun, worker_process_init

from agents.beat import BEAT_SCHEDULE as AGENTS_BEAT_SCHEDULE
from health.monitor.schedule import quiet_idle_sweeps

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "backend.settings")

app = Celery("backend")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# The SOS sweep runs every 5 s, the chat resume sweep every 30 s: their idle runs are not logged.
quiet_idle_sweeps(entry["task"] for entry in AGENTS_BEAT_SCHEDULE.values())


@app.task(name="backend.ping", ignore_result=False)
def ping() -> str:
    """Round trip used by health checks and tests to prove a worker is connected."""
    return "pong"


@worker_process_init.connect
def warm_up(**_: object) -> threading.Thread | None:
    """Load, as a worker process starts, what its work will need, so that the first patient is not
    also waiting for it. In a thread: the process must report ready within seconds (an SOS may be
    waiting), and work that arrives meanwhile waits for the same loads.

    The OCR worker (``OCR_WORKER=1``, set by scripts/run_local.py and docker-compose.yml) builds
    EasyOCR's reader (``health.scheduler.ocr.get_reader``); the main worker loads the chat models
    (``agents.warm``), unless ``AGENT_WARM_UP`` is off."""
    if os.environ.get("OCR_WORKER") == "1":

        def build() -> None:
            from health.scheduler.ocr import get_reader

            get_reader()

        thread = threading.Thread(target=build, name="ocr-warm-up", daemon=True)
        thread.start()
        return thread
    from django.conf import settings

    if settings.AGENT_WARM_UP:
        from agents import warm

        return warm.in_background()
    return None


# An SOS never waits for the warm-up (what it needs is imported as the worker starts; a crash of an
# SOS run is completed by its guard).
_SOS_TASKS = frozenset(
    {
        "health.tasks.deliver_message",
        "health.tasks.redeliver_stale_messages",
        "health.tasks.hard_sos_countdown_elapsed",
        "health.tasks.sweep_sos_countdowns",
        "health.tasks.end_hard_sos",
        "health.tasks.soft_sos",
        "agents.hard_sos_start",
        "agents.hard_sos_end",
        "agents.soft_sos",
    }
)


@task_prerun.connect
def after_the_warm_up_imports(task=None, **_: object) -> None:
    """Any other task waits (at most 60 s, about 5 s after a start) until the warm-up thread has
    imported its libraries: the two threads must not import spaCy at the same time."""
    if task is not None and task.name not in _SOS_TASKS:
        from agents import warm

        warm.wait_for_imports(60)
