"""Periodic tasks of the monitor and the SOS flows, ready for ``CELERY_BEAT_SCHEDULE``.

Like ``health.messaging.schedule``, settings import this module before the
apps are loaded, so it imports nothing from the app.
"""

from __future__ import annotations

# The task enqueued at the press (with the countdown as its delay) opens a hard
# SOS on time; this sweep is the safety net for a lost enqueue or a worker that
# was down, so a late SOS is at most this late. When nothing is overdue the
# sweep is one indexed query.
SOS_SWEEP_INTERVAL_SECONDS = 5.0

BEAT_SCHEDULE: dict[str, dict[str, object]] = {
    "sweep-sos-countdowns": {
        "task": "health.tasks.sweep_sos_countdowns",
        "schedule": SOS_SWEEP_INTERVAL_SECONDS,
        "options": {"expires": SOS_SWEEP_INTERVAL_SECONDS},
    },
}
