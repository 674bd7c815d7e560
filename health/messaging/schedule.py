"""Periodic tasks of the messaging package, ready for ``CELERY_BEAT_SCHEDULE``.

Settings import this module before Django's apps are loaded, so it imports
nothing that needs them (``core.periodic`` is a plain module). With the DatabaseScheduler (django-celery-beat), beat
copies these entries into its tables at start-up, where the admin shows them.
"""

from __future__ import annotations

from core.periodic import every

# Sweeping every minute finds a lost message at most a minute after it turns
# stale (``health.messaging.delivery.STALE_AFTER``); when nothing is stale the
# sweep is one indexed query. Expiring an unstarted sweep after one period keeps
# a worker that was down from finding a pile of identical sweeps on its return.
SWEEP_INTERVAL_SECONDS = 60.0

BEAT_SCHEDULE: dict[str, dict[str, object]] = {
    "redeliver-stale-messages": every(SWEEP_INTERVAL_SECONDS, "health.tasks.redeliver_stale_messages"),
}
