"""A real Celery worker process on Redis, SIGKILLed in the middle of a task and started again, or
left running while Redis restarts empty under it: what the task does is recorded exactly once.
Three tasks:

- **report**: the evening report, killed after the report row and its notification are written;
- **reminder**: the dose dispatcher, killed after the dose is marked reminded and its notification
  written;
- **ocr**: a prescription reading, killed while the photo is being read (the OCR engine stood in
  for by a fixed text: the task's life is what is tested, not EasyOCR).

The worker runs from a small bootstrap that holds the task inside its transaction (or, for the OCR,
inside the reading) while a "hold" file exists, and says when it got there; the test then kills the
whole worker with SIGKILL, removes the hold and starts a new worker, as the supervisor of
``make run`` would. The dead worker never acknowledged the task (``acks_late``), so Redis hands it
out again once its visibility timeout (set to the minimum, 30 s) has passed: the new worker takes
it up as it starts. About a minute a mode.

Its Redis is database 11 of REDIS_URL's server, else a redis-server of its own (tests/local_redis.py).
"""

from __future__ import annotations

import datetime as dt
import io
import shutil
import subprocess
import sys
import time
import zoneinfo
from pathlib import Path

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import FileSystemStorage
from django.utils import timezone
from PIL import Image

from health.models import DailyReport, DoseEvent, Medication, Notification, Prescription
from tests.chaos.processes import ROOT, app_environment, kill_group, wait_for
from tests.factories import MedicationFactory
from tests.local_redis import redis_database
from tests.summary import summarise

VISIBILITY_TIMEOUT = 30  # the smallest the settings accept (CELERY_VISIBILITY_TIMEOUT)

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

BOOTSTRAP = """
import os, sys, time
from pathlib import Path
from types import SimpleNamespace
import django
django.setup()
hold, reached, mode = Path(os.environ["CHAOS_HOLD"]), Path(os.environ["CHAOS_REACHED"]), os.environ["CHAOS_MODE"]

def wait_here():
    if hold.exists():
        reached.write_text(str(time.time()))
        while hold.exists():  # killed here, or let go once Redis has restarted
            time.sleep(0.2)

if mode == "report":
    from health.reports import generate
    real = generate._announce
    def announce_then_hold(report, **kwargs):
        real(report, **kwargs)  # the notification row is written, inside the report's transaction
        wait_here()
    generate._announce = announce_then_hold
elif mode == "reminder":
    from health.scheduler import dispatch
    real = dispatch._push
    def push_then_hold(dose, notification=None):
        real(dose, notification)  # the dose is marked reminded and notified, inside its transaction
        wait_here()
    dispatch._push = push_then_hold
elif mode == "ocr":
    from health.scheduler import reading
    reading.get_reader = lambda: None
    def read_text(image, settings):
        wait_here()  # the prescription is being read
        return SimpleNamespace(text="Tab Metformin 500 mg 1-0-1 after food x 30 days", lines=[], steps=[])
    reading.read_text = read_text

from celery.bin.celery import main
sys.argv = ["celery", "-A", "backend", "worker", "--pool", "solo", "-l", "info", "-Q", "celery,ocr",
            "-n", os.environ["CHAOS_NAME"]]
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


def _report(alice, tmp_path):
    day = timezone.localdate() - dt.timedelta(days=1)

    def done() -> bool:
        return Notification.objects.filter(user=alice, kind="report").exists()

    def check() -> str:
        assert DailyReport.objects.filter(user=alice, date=day).count() == 1
        assert Notification.objects.filter(user=alice, kind="report").count() == 1
        return "1 report, 1 notification"

    return "health.tasks.write_daily_report", [alice.pk, day.isoformat()], "celery", done, check


def _reminder(alice, tmp_path):
    zone = zoneinfo.ZoneInfo(alice.profile.timezone)
    due = (timezone.now() - dt.timedelta(minutes=2)).astimezone(zone)
    medication = MedicationFactory(
        user=alice, name="Metformin", times_per_day=1, clock_times=[f"{due:%H:%M}"], start_date=due.date()
    )
    medication.sync_reminders()
    # On since before the dose fell due (a new reminder owes no dose from before it was switched on).
    medication.reminders.update(checked_until=timezone.now() - dt.timedelta(minutes=10))

    def done() -> bool:
        return Notification.objects.filter(user=alice, kind="dose").exists()

    def check() -> str:
        dose = DoseEvent.objects.get(user=alice)  # one dose, reminded once
        assert dose.state == DoseEvent.State.SENT
        assert Notification.objects.filter(user=alice, kind="dose").count() == 1
        return "1 dose reminded, 1 notification"

    return "health.tasks.dispatch_due_doses", [], "celery", done, check


def _ocr(alice, tmp_path):
    buffer = io.BytesIO()
    Image.new("RGB", (400, 200), "white").save(buffer, format="PNG")
    prescription = Prescription(user=alice, content_type="image/png")
    # Stored where the worker finds it (its DATA_DIR is tmp_path), not queued: the test sends the task.
    FileSystemStorage(location=tmp_path / "media").save(
        name := "prescriptions/chaos.png", ContentFile(buffer.getvalue())
    )
    prescription.image.name = name
    prescription.save()

    def done() -> bool:
        prescription.refresh_from_db()
        return prescription.parse_status in (Prescription.ParseStatus.NEEDS_REVIEW, Prescription.ParseStatus.FAILED)

    def check() -> str:
        prescription.refresh_from_db()
        assert prescription.parse_status == Prescription.ParseStatus.NEEDS_REVIEW, prescription.parse_error
        assert [item["name"] for item in prescription.extracted] == ["metformin"]
        assert not Medication.objects.filter(user=alice).exists()  # read, not scheduled: the patient checks it
        return "1 reading recorded, waiting for the patient's check"

    return "health.tasks.read_prescription", [prescription.pk], "ocr", done, check


MODES = {"report": _report, "reminder": _reminder, "ocr": _ocr}


def _nothing_half_done(mode: str, alice) -> None:
    """The transaction died with the process: nothing of the task is in the database."""
    if mode == "report":
        assert not DailyReport.objects.filter(user=alice).exists()
        assert not Notification.objects.filter(user=alice, kind="report").exists()
    elif mode == "reminder":
        assert not Notification.objects.filter(user=alice, kind="dose").exists()
        assert not DoseEvent.objects.filter(user=alice, state=DoseEvent.State.SENT).exists()
    else:
        assert Prescription.objects.get(user=alice).parse_status == Prescription.ParseStatus.PROCESSING


@pytest.mark.parametrize("mode", list(MODES))
def test_a_task_killed_with_its_worker_is_redelivered_and_recorded_once(alice, redis_url, tmp_path, mode):
    from celery import Celery

    hold, reached = tmp_path / "hold", tmp_path / "reached"
    hold.touch()
    env = app_environment(
        tmp_path,
        redis_url,
        CELERY_VISIBILITY_TIMEOUT=str(VISIBILITY_TIMEOUT),
        CHAOS_HOLD=str(hold),
        CHAOS_REACHED=str(reached),
        CHAOS_MODE=mode,
    )
    assert shutil.which("celery", path=str(Path(sys.executable).parent))  # the venv's Celery
    task, args, queue, done, check = MODES[mode](alice, tmp_path)
    first_log, second_log = tmp_path / "worker-1.log", tmp_path / "worker-2.log"
    workers = [start_worker(env, first_log)]
    try:
        # Not the current app: a new current app (no eager mode, no result backend) would be the one
        # every later test's shared_task.delay() uses.
        sender = Celery(broker=redis_url, set_as_current=False)
        sender.send_task(task, args=args, queue=queue)
        wait_for(reached.exists, 90, f"the worker did not reach the middle of {task}", first_log)
        kill_group(workers[0])
        hold.unlink()
        _nothing_half_done(mode, alice)

        # Start again once the broker would give the task back (the new worker restores it on start).
        delivered_at = float(reached.read_text())
        time.sleep(max(0.0, delivered_at + VISIBILITY_TIMEOUT + 1 - time.time()))
        workers.append(start_worker(env, second_log))
        wait_for(done, 90, f"the redelivered {task} did not finish", second_log)
        time.sleep(2)  # anything that would come twice has had time to
    finally:
        for worker in workers:
            kill_group(worker)

    outcome = check()
    assert task.rsplit(".", 1)[1] in second_log.read_text()
    summarise(f"chaos (real worker): 1 SIGKILL mid-{mode}; redelivered; {outcome}")


@pytest.mark.parametrize("mode", list(MODES))
def test_a_task_under_way_when_redis_restarts_empty_completes_once(alice, broker, tmp_path, mode):
    """Redis killed while the task runs and started again with nothing in it (no persistence): the
    worker reconnects, the task finishes, and what it does is recorded once."""
    from celery import Celery

    hold, reached = tmp_path / "hold", tmp_path / "reached"
    hold.touch()
    env = app_environment(tmp_path, broker.url, CHAOS_HOLD=str(hold), CHAOS_REACHED=str(reached), CHAOS_MODE=mode)
    task, args, queue, done, check = MODES[mode](alice, tmp_path)
    log = tmp_path / "worker.log"
    worker = start_worker(env, log)
    try:
        Celery(broker=broker.url, set_as_current=False).send_task(task, args=args, queue=queue)
        wait_for(reached.exists, 90, f"the worker did not reach the middle of {task}", log)
        broker.kill()
        time.sleep(2)
        broker.start()
        hold.unlink()
        wait_for(done, 90, f"{task} did not finish after Redis came back", log)
        time.sleep(3)  # anything that would come twice has had time to
        assert worker.poll() is None, log.read_text()[-3000:]
    finally:
        kill_group(worker)

    outcome = check()
    summarise(f"chaos (Redis restarted empty mid-{mode}): the task finished; {outcome}")
