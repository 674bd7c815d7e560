"""Periodic tasks of the Scheduler, ready for ``CELERY_BEAT_SCHEDULE``.

Like ``health.messaging.schedule``, settings import this module before the apps are loaded, so it
imports nothing from the app.
"""

from __future__ import annotations

# Doses are due on the minute: a tick a minute reminds each at most a minute late. A tick that found
# nothing due is a few indexed queries. An unstarted tick expires after one period: a worker back
# from downtime runs one tick, which catches up everything (health.scheduler.dispatch), instead of
# a pile of them.
DOSE_TICK_SECONDS = 60.0

# A prescription reading the broker lost is queued again at most this long after it stalled
# (health.scheduler.review.stalled_readings); a sweep that finds none is one indexed query.
READING_SWEEP_SECONDS = 30.0

BEAT_SCHEDULE: dict[str, dict[str, object]] = {
    "requeue-stalled-readings": {
        "task": "health.tasks.requeue_stalled_readings",
        "schedule": READING_SWEEP_SECONDS,
        "options": {"expires": READING_SWEEP_SECONDS},
    },
    "dispatch-due-doses": {
        "task": "health.tasks.dispatch_due_doses",
        "schedule": DOSE_TICK_SECONDS,
        "options": {"expires": DOSE_TICK_SECONDS},
    },
}
