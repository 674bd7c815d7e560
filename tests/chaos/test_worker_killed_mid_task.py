"""A Celery worker killed in the middle of a task: the task comes back and its result is recorded
exactly once. Three tasks: a medication reminder tick, an OCR reading and an evening report.

How the kill is simulated (in-process, fast): the task body runs up to a chosen point and there
raises ``WorkerKilled``, a ``BaseException``, so no ``except Exception`` in the task can handle it,
as none can handle a SIGKILL; the open transaction rolls back, as the database rolls back the
transaction of a connection that died, and what was committed stays. Then the same task runs again
with the same arguments: that is the redelivery, which ``acks_late`` with
``task_reject_on_worker_lost`` guarantee (checked first). Each task is killed at two points: inside
its transaction (nothing of it must survive, the rerun does it all once) and after its commit but
before the broker's ack (the rerun must do nothing twice). ``test_real_worker.py`` kills a real
worker process on Redis once.
"""

from __future__ import annotations

import datetime as dt
import io
from types import SimpleNamespace

import pytest
from django.conf import settings
from django.utils import timezone
from PIL import Image

from health import tasks
from health.models import DailyReport, DoseEvent, Notification, OutboundMessage, Prescription
from health.reports import generate
from health.scheduler import dispatch, reading, review
from tests.factories import DoseEventFactory, MedicationFactory, ReminderFactory
from tests.summary import summarise

CHECKED: list[str] = []  # what each test checked, printed by the last test


class WorkerKilled(BaseException):
    """SIGKILL, as far as the task body can tell: nothing catches it."""


def kill_after(target, name: str, *, calls: int = 1):
    """Replace ``target.name`` by a wrapper that lets the first ``calls - 1`` calls through, and dies
    after running the ``calls``-th (its work done, nothing after it)."""
    real = getattr(target, name)
    seen = {"n": 0}

    def wrapper(*args, **kwargs):
        result = real(*args, **kwargs)
        seen["n"] += 1
        if seen["n"] == calls:
            raise WorkerKilled(f"SIGKILL after {name}")
        return result

    return wrapper


@pytest.mark.parametrize(
    "task", [tasks.dispatch_due_doses, tasks.read_prescription, tasks.write_daily_report], ids=lambda t: t.name
)
def test_the_broker_gives_a_killed_workers_task_back(task):
    """The premise of every test below: acknowledged after the work, handed out again when the
    worker was lost."""
    assert task.acks_late is True
    assert settings.CELERY_TASK_ACKS_LATE is True
    assert settings.CELERY_TASK_REJECT_ON_WORKER_LOST is True
    assert settings.CELERY_WORKER_PREFETCH_MULTIPLIER == 1  # a dying worker holds one task, not a batch
    CHECKED.append(f"{task.name}: acks_late and reject_on_worker_lost")


# --- a reminder tick -------------------------------------------------------------------------------


@pytest.fixture
def two_due_doses(alice):
    """Two doses of two medicines due a minute ago; alice gets reminders by SMS too."""
    alice.profile.reminder_sms, alice.profile.phone = True, "+14155550100"
    alice.profile.save()
    due = timezone.now() - dt.timedelta(minutes=1)
    doses = []
    for name in ("Metformin", "Amlodipine"):
        reminder = ReminderFactory(medication=MedicationFactory(user=alice, name=name))
        doses.append(DoseEventFactory(reminder=reminder, due_at=due, due_on=due.date()))
    return doses


def reminders_of(dose: DoseEvent) -> tuple[int, int]:
    notifications = Notification.objects.filter(kind="dose", data__dose=dose.pk).count()
    texts = OutboundMessage.objects.filter(idempotency_key__startswith=f"dose:{dose.pk}:").count()
    return notifications, texts


@pytest.mark.parametrize(
    "where, kill",
    [
        # Inside the second dose's transaction: its notification is written, its SMS is being queued.
        ("mid-transaction", lambda mp: mp.setattr(dispatch, "queue_sms", kill_after(dispatch, "queue_sms", calls=2))),
        # Every dose committed, the tick still running (snoozed doses next): the ack never came.
        ("after commit", lambda mp: mp.setattr(dispatch, "resend_snoozed", kill_after(dispatch, "resend_snoozed"))),
    ],
)
def test_a_reminder_tick_killed_mid_way_reminds_every_dose_once(two_due_doses, monkeypatch, where, kill):
    kill(monkeypatch)
    with pytest.raises(WorkerKilled):
        tasks.dispatch_due_doses()
    monkeypatch.undo()
    # What the dead worker left: one dose reminded (the other rolled back), or both.
    left = sum(n for dose in two_due_doses for n in reminders_of(dose))
    assert left == (2 if where == "mid-transaction" else 4), left

    tasks.dispatch_due_doses()  # redelivered
    tasks.dispatch_due_doses()  # and beat's next tick for good measure

    for dose in two_due_doses:
        dose.refresh_from_db()
        assert dose.state == DoseEvent.State.SENT
        assert reminders_of(dose) == (1, 1), f"{where}: dose {dose.pk}"
    CHECKED.append(f"reminder tick killed {where}: 2 doses, each 1 notification + 1 SMS")


# --- an OCR reading --------------------------------------------------------------------------------


def white_png() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (200, 100), "white").save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.fixture
def uploaded(alice, settings, tmp_path, monkeypatch):
    """An uploaded prescription; the OCR engine stubbed with its text (what is under test is the task
    around it), counting its readings."""
    settings.MEDIA_ROOT = tmp_path
    readings = []

    def read_text(image, ocr_settings):
        readings.append(1)
        return SimpleNamespace(text="Tab Paracetamol 500 mg BD x 5 days", lines=[], steps=[])

    monkeypatch.setattr(reading, "get_reader", lambda: None)
    monkeypatch.setattr(reading, "read_text", read_text)
    return SimpleNamespace(prescription=review.receive_upload(alice, white_png()), readings=readings)


def test_an_ocr_reading_killed_mid_read_is_read_again_and_recorded_once(uploaded, monkeypatch):
    real = reading.read_text
    monkeypatch.setattr(reading, "read_text", lambda *a: (_ for _ in ()).throw(WorkerKilled("SIGKILL mid-OCR")))
    with pytest.raises(WorkerKilled):
        tasks.read_prescription(uploaded.prescription.pk)
    prescription = Prescription.objects.get(pk=uploaded.prescription.pk)
    assert prescription.parse_status == Prescription.ParseStatus.PROCESSING  # left half-read
    monkeypatch.setattr(reading, "read_text", real)

    assert tasks.read_prescription(uploaded.prescription.pk) == Prescription.ParseStatus.NEEDS_REVIEW

    prescription.refresh_from_db()
    assert [item["name"] for item in prescription.extracted] == ["paracetamol"]
    assert len(uploaded.readings) == 1
    CHECKED.append("OCR reading killed mid-read: read again once, 1 medicine offered")


def test_an_ocr_reading_killed_after_it_was_recorded_is_not_read_twice(uploaded, monkeypatch):
    # The reading is committed; the worker dies telling the open pages (before the ack).
    monkeypatch.setattr(review, "_push", kill_after(review, "_push", calls=2))
    with pytest.raises(WorkerKilled):
        tasks.read_prescription(uploaded.prescription.pk)
    monkeypatch.undo()

    assert tasks.read_prescription(uploaded.prescription.pk) == Prescription.ParseStatus.NEEDS_REVIEW

    prescription = Prescription.objects.get(pk=uploaded.prescription.pk)
    assert [item["name"] for item in prescription.extracted] == ["paracetamol"]
    assert len(uploaded.readings) == 1  # the redelivery found it read and did not read it again
    CHECKED.append("OCR reading killed after commit: not read twice")


# --- an evening report -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "where, kill",
    [
        # Inside the report's transaction: the row and its notification are written, not committed.
        ("mid-transaction", lambda mp: mp.setattr(generate, "_announce", kill_after(generate, "_announce"))),
        # Committed; the task dies before returning (the ack never came).
        ("after commit", lambda mp: mp.setattr(generate, "build", kill_after(generate, "build"))),
    ],
)
def test_a_report_killed_mid_generation_is_written_and_announced_once(alice, monkeypatch, where, kill):
    day = timezone.localdate() - dt.timedelta(days=1)
    kill(monkeypatch)
    with pytest.raises(WorkerKilled):
        tasks.write_daily_report(alice.pk, day.isoformat())
    survived = DailyReport.objects.filter(user=alice, date=day).count()
    assert survived == (0 if where == "mid-transaction" else 1)
    monkeypatch.undo()

    report_id = tasks.write_daily_report(alice.pk, day.isoformat())  # redelivered

    assert list(DailyReport.objects.filter(user=alice).values_list("pk", flat=True)) == [report_id]
    assert Notification.objects.filter(user=alice, kind="report").count() == 1
    CHECKED.append(f"report killed {where}: 1 report, 1 notification")


def test_zz_what_was_checked():
    """Counts what this module checked (run last in the module; alone it checks nothing)."""
    summarise(f"chaos (simulated kills): {len(CHECKED)} checks: " + "; ".join(CHECKED))
