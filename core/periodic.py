"""One entry of ``CELERY_BEAT_SCHEDULE``, as every package's periodic tasks declare theirs.

Settings import the packages' beat modules before Django's apps are loaded, so this module, like
them, imports nothing of the app.
"""

from __future__ import annotations


def every(seconds: float, task: str) -> dict[str, object]:
    """``task`` run every ``seconds``. An unstarted run expires after one period: a worker back from
    downtime finds one run waiting, which catches up, not a pile of identical ones."""
    return {"task": task, "schedule": seconds, "options": {"expires": seconds}}
