"""Periodic tasks of the Scheduler, ready for ``CELERY_BEAT_SCHEDULE``.

Like ``health.messaging.schedule``, settings import this module before the apps are loaded, so it
imports nothing that needs them (``core.periodic`` is a plain module).
"""

from __future__ import annotations

from core.periodic import every

# Doses are due on the minute: a tick a minute reminds each at most a minute late. A tick that found
# nothing due is a few indexed queries. An unstarted tick expires after one period: a worker back
# from downtime runs one tick, which catches up everything (health.scheduler.dispatch), instead of
# a pile of them.
DOSE_TICK_SECONDS = 60.0

# A prescription reading the broker lost is queued again at most this long after it stalled
# (health.scheduler.review.stalled_readings); a sweep that finds none is one indexed query.
READING_SWEEP_SECONDS = 30.0

BEAT_SCHEDULE: dict[str, dict[str, object]] = {
    "requeue-stalled-readings": every(READING_SWEEP_SECONDS, "health.tasks.requeue_stalled_readings"),
    "dispatch-due-doses": every(DOSE_TICK_SECONDS, "health.tasks.dispatch_due_doses"),
}
