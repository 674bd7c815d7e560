"""Periodic tasks of the monitor and the SOS flows, ready for ``CELERY_BEAT_SCHEDULE``.

Like ``health.messaging.schedule``, settings import this module before the
apps are loaded, so it imports nothing that needs them (``core.periodic`` is a plain module).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from core.periodic import every
from health.scheduler.beat import BEAT_SCHEDULE as DOSE_BEAT_SCHEDULE  # a plain module, like this one

# The task enqueued at the press (with the countdown as its delay) opens a hard
# SOS on time; this sweep is the safety net for a lost enqueue or a worker that
# was down, so a late SOS is at most this late. When nothing is overdue the
# sweep is one indexed query.
SOS_SWEEP_INTERVAL_SECONDS = 5.0

BEAT_SCHEDULE: dict[str, dict[str, object]] = {
    "sweep-sos-countdowns": every(SOS_SWEEP_INTERVAL_SECONDS, "health.tasks.sweep_sos_countdowns"),
}

# Celery writes three INFO lines for every run of a task (beat sent it, the worker
# received it, it succeeded): for the SOS sweep, every 5 s. A sweep that found
# nothing to do says nothing; one that enqueued something keeps its success line
# (its return value is the number enqueued), and warnings and errors always show.
# The dose tick (every minute) is as routine: quiet when it found no dose to remind.
QUIET_WHEN_IDLE = frozenset(entry["task"] for entry in (*BEAT_SCHEDULE.values(), *DOSE_BEAT_SCHEDULE.values()))
_CELERY_LOGGERS = ("celery.beat", "celery.worker.strategy", "celery.app.trace")


class QuietIdleSweeps(logging.Filter):
    """Drops Celery's routine INFO lines about a frequent sweep that found nothing."""

    def __init__(self, tasks: frozenset[str] = QUIET_WHEN_IDLE) -> None:
        super().__init__()
        self.tasks = tasks

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno > logging.INFO:
            return True
        args = record.args
        if record.name == "celery.beat":
            # "Scheduler: Sending due task %s (%s)" with (entry name, task name)
            return not (isinstance(args, tuple) and len(args) == 2 and args[1] in self.tasks)
        if not isinstance(args, dict) or args.get("name") not in self.tasks:
            return True
        if record.name == "celery.worker.strategy":  # "Task %(name)s[%(id)s] received"
            return False
        return str(args.get("return_value", "")) not in ("0", "None")  # "... succeeded in ...: 0"


def quiet_idle_sweeps(other_sweeps: Iterable[str] = ()) -> None:
    """Install the filter on Celery's loggers (once per process: beat, worker, tests), for the
    sweeps above and ``other_sweeps`` (task names of other packages' frequent sweeps)."""
    tasks = QUIET_WHEN_IDLE | frozenset(other_sweeps)
    for name in _CELERY_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, QuietIdleSweeps) for f in logger.filters):
            logger.addFilter(QuietIdleSweeps(tasks))
