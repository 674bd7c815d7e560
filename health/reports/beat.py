"""The evening report's periodic tick, ready for ``CELERY_BEAT_SCHEDULE``.

Like ``health.scheduler.beat``, settings import this module before the apps are loaded, so it
imports nothing that needs them (``core.periodic`` is a plain module; the rules of the tick are in
``health.reports.due``).
"""

from __future__ import annotations

from core.periodic import every

# Every five minutes: a report is written at most five minutes after the patient's report time,
# and a tick that finds nothing due is one query over the profiles. An unstarted tick expires after
# one period, so a worker back from downtime runs one tick, which catches up (health.reports.due).
REPORT_TICK_SECONDS = 300.0

BEAT_SCHEDULE: dict[str, dict[str, object]] = {
    "write-daily-reports": every(REPORT_TICK_SECONDS, "health.tasks.write_daily_reports"),
}
