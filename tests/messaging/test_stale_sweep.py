"""The periodic sweep re-enqueues messages whose delivery task was lost, and
only those."""

from __future__ import annotations

import datetime as dt

from django.utils import timezone

from backend.celery import app
from health.messaging.delivery import ATTEMPT_LEASE
from health.messaging.schedule import BEAT_SCHEDULE
from health.models import OutboundMessage
from health.tasks import redeliver_stale_messages
from tests.factories import OutboundMessageFactory
from tests.messaging.conftest import TO_NUMBER

Status = OutboundMessage.Status


def aged(message: OutboundMessage, minutes: float, *, attempted: bool = False) -> OutboundMessage:
    then = timezone.now() - dt.timedelta(minutes=minutes)
    fields = {"created_at": then, "last_attempt_at": then if attempted else None}
    OutboundMessage.objects.filter(pk=message.pk).update(**fields)
    return message


def test_the_sweep_delivers_messages_whose_task_was_lost(fake_twilio, alice):
    # Created straight in the table: no delivery task was ever enqueued.
    never_tried = aged(OutboundMessageFactory(user=alice, recipient=TO_NUMBER), minutes=10)
    # Its worker died mid-attempt and the task never came back.
    abandoned = aged(
        OutboundMessageFactory(user=alice, recipient=TO_NUMBER, attempts=1, status_detail="sending"),
        minutes=10,
        attempted=True,
    )

    assert redeliver_stale_messages.delay().get() == 2

    never_tried.refresh_from_db()
    abandoned.refresh_from_db()
    assert never_tried.status == Status.SENT
    assert abandoned.status == Status.SENT
    assert len(fake_twilio.accepted) == 2


def test_the_sweep_leaves_fresh_and_final_messages_alone(fake_twilio, alice):
    OutboundMessageFactory(user=alice, recipient=TO_NUMBER)
    aged(OutboundMessageFactory(user=alice, recipient=TO_NUMBER, attempts=1), minutes=1, attempted=True)
    for status in (Status.SENT, Status.FAILED, Status.NOT_SENT):
        aged(OutboundMessageFactory(user=alice, recipient=TO_NUMBER, status=status), minutes=60)

    assert redeliver_stale_messages.delay().get() == 0

    assert fake_twilio.calls == []


def test_a_message_whose_attempt_died_is_swept_as_soon_as_its_lease_ends(fake_twilio, alice):
    died = aged(
        OutboundMessageFactory(user=alice, recipient=TO_NUMBER, attempts=1, status_detail="sending"),
        minutes=ATTEMPT_LEASE.total_seconds() / 60 + 1,
        attempted=True,
    )
    waiting_for_retry = aged(
        OutboundMessageFactory(user=alice, recipient=TO_NUMBER, attempts=1, status_detail="retrying: x"),
        minutes=ATTEMPT_LEASE.total_seconds() / 60 + 1,
        attempted=True,
    )

    assert redeliver_stale_messages.delay().get() == 1

    died.refresh_from_db()
    waiting_for_retry.refresh_from_db()
    assert died.status == Status.SENT
    assert waiting_for_retry.status == Status.QUEUED
    assert len(fake_twilio.posts) == 1


def test_the_beat_schedule_runs_the_registered_sweep_task():
    [entry] = BEAT_SCHEDULE.values()

    assert entry["task"] == redeliver_stale_messages.name
    assert entry["task"] in app.tasks
    assert 0 < entry["schedule"] <= 300
