"""Periodic tasks of the Action Manager, ready for ``CELERY_BEAT_SCHEDULE``.

Like ``health.messaging.schedule``, settings import this module before the apps are loaded, so it
imports nothing from the app.
"""

from __future__ import annotations

# A chat whose run was lost (agents.resume) is resumed at most this long after it turned quiet. A
# sweep that finds nothing is one indexed query. An unstarted sweep expires after one period.
RESUME_SWEEP_SECONDS = 30.0

BEAT_SCHEDULE: dict[str, dict[str, object]] = {
    "resume-quiet-chats": {
        "task": "agents.resume_quiet_chats",
        "schedule": RESUME_SWEEP_SECONDS,
        "options": {"expires": RESUME_SWEEP_SECONDS},
    },
}
