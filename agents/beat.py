"""Periodic tasks of the Action Manager, ready for ``CELERY_BEAT_SCHEDULE``.

Like ``health.messaging.schedule``, settings import this module before the apps are loaded, so it
imports nothing that needs them (``core.periodic`` is a plain module).
"""

from __future__ import annotations

from core.periodic import every

# A chat whose run was lost (agents.resume) is resumed at most this long after it turned quiet. A
# sweep that finds nothing is one indexed query. An unstarted sweep expires after one period.
RESUME_SWEEP_SECONDS = 30.0

BEAT_SCHEDULE: dict[str, dict[str, object]] = {
    "resume-quiet-chats": every(RESUME_SWEEP_SECONDS, "agents.resume_quiet_chats"),
}
