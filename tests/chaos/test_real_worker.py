"""A real Celery worker process on Redis, SIGKILLed in the middle of an evening report, and started
again: the report and its notification are recorded exactly once.

The worker runs from a small bootstrap that holds the report task inside its transaction (after the
report row and the notification are written, before the commit) while a "hold" file exists, and
says when it got there; the test then kills the whole worker with SIGKILL, removes the hold and
starts a new worker, as the supervisor of ``make run`` would. The dead worker never acknowledged
the task (``acks_late``), so Redis hands it out again once its visibility timeout (set to the
minimum, 30 s) has passed: the new worker takes it up as it starts. About a minute in all.

Its Redis is database 11 of REDIS_URL's server, else a redis-server of its own (tests/local_redis.py).
"""

from __future__ import annotations

import datetime as dt
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.utils import timezone

from health.models import DailyReport, Notification
from tests.chaos.processes import ROOT, app_environment, kill_group, wait_for
from tests.local_redis import redis_database

VISIBILITY_TIMEOUT = 30  # the smallest the settings accept (CELERY_VISIBILITY_TIMEOUT)

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

BOOTSTRAP = """
import os, sys, time
from pathlib import Path
import django
django.setup()
from health.reports import generate
hold, reached = Path(os.environ["CHAOS_HOLD"]), Path(os.environ["CHAOS_REACHED"])
real = generate._announce
def announce_then_hold(report, **kwargs):
    real(report, **kwargs)  # the notification row is written, inside the report's transaction
    if hold.exists():
        reached.write_text(str(time.time()))
        time.sleep(600)  # killed here
generate._announce = announce_then_hold
from celery.bin.celery import main
sys.argv = ["celery", "-A", "backend", "worker", "--pool", "solo", "-l", "info", "-n", os.environ["CHAOS_NAME"]]
main()
"""


@pytest.fixture
def redis_url(tmp_path):
    """A Redis database of the test's own (tests/local_redis.py): never a skip."""
    with redis_database(tmp_path, 11) as url:
        yield url


def start_worker(env: dict[str, str], log: Path) -> subprocess.Popen:
    with log.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "-c", BOOTSTRAP],
            cwd=ROOT,
            env={**env, "CHAOS_NAME": f"chaos-{log.stem}@%h"},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def test_a_report_task_killed_with_its_worker_is_redelivered_and_recorded_once(alice, redis_url, tmp_path):
    from celery import Celery

    hold, reached = tmp_path / "hold", tmp_path / "reached"
    hold.touch()
    env = app_environment(
        tmp_path,
        redis_url,
        CELERY_VISIBILITY_TIMEOUT=str(VISIBILITY_TIMEOUT),
        CHAOS_HOLD=str(hold),
        CHAOS_REACHED=str(reached),
    )
    assert shutil.which("celery", path=str(Path(sys.executable).parent))  # the venv's Celery
    day = timezone.localdate() - dt.timedelta(days=1)
    first_log, second_log = tmp_path / "worker-1.log", tmp_path / "worker-2.log"
    workers = [start_worker(env, first_log)]
    try:
        # Not the current app: a new current app (no eager mode, no result backend) would be the one
        # every later test's shared_task.delay() uses.
        sender = Celery(broker=redis_url, set_as_current=False)
        sender.send_task("health.tasks.write_daily_report", args=[alice.pk, day.isoformat()])
        wait_for(reached.exists, 90, "the worker did not reach the middle of the report", first_log)
        kill_group(workers[0])
        hold.unlink()
        # The transaction died with the process: nothing of the report is in the database.
        assert not DailyReport.objects.filter(user=alice).exists()
        assert not Notification.objects.filter(user=alice, kind="report").exists()

        # Start again once the broker would give the task back (the new worker restores it on start).
        delivered_at = float(reached.read_text())
        time.sleep(max(0.0, delivered_at + VISIBILITY_TIMEOUT + 1 - time.time()))
        workers.append(start_worker(env, second_log))
        wait_for(
            lambda: Notification.objects.filter(user=alice, kind="report").exists(),
            90,
            "the redelivered report was not written",
            second_log,
        )
        time.sleep(2)  # anything that would come twice has had time to
    finally:
        for worker in workers:
            kill_group(worker)

    assert DailyReport.objects.filter(user=alice, date=day).count() == 1
    assert Notification.objects.filter(user=alice, kind="report").count() == 1
    assert "write_daily_report" in second_log.read_text()
    print("\nchaos (real worker): 1 SIGKILL mid-report; redelivered; 1 report, 1 notification")
