"""A worker that dies mid-delivery loses nothing and doubles nothing.

With ``acks_late`` the broker hands the task out again after its visibility
timeout. If the dead attempt got the message to Twilio, the redelivery finds it
there (GET on the list endpoint) and adopts its SID instead of POSTing again.
"""

from __future__ import annotations

import datetime as dt
import email.utils

import pytest
from django.conf import settings
from django.db.models import F
from django.utils import timezone

from health.models import OutboundMessage
from health.tasks import deliver_message
from tests.messaging.conftest import ACCEPT_THEN_DIE, FROM_NUMBER, TO_NUMBER, WorkerDied

BODY = "Alice pressed SOS. Location: https://maps.example/?q=52.52,13.40"


def the_visibility_timeout_passes(message: OutboundMessage) -> None:
    """Move the dead attempt back by the broker's visibility timeout, the
    earliest a killed worker's task comes back."""
    timeout = dt.timedelta(seconds=settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"])
    OutboundMessage.objects.filter(pk=message.pk).update(last_attempt_at=F("last_attempt_at") - timeout)


def queue_and_die(queue_message) -> OutboundMessage:
    with pytest.raises(WorkerDied):
        queue_message(body=BODY)
    return OutboundMessage.objects.get(body=BODY)


def test_a_message_twilio_accepted_before_the_worker_died_is_adopted_not_sent_again(fake_twilio, queue_message):
    fake_twilio.answer_posts(ACCEPT_THEN_DIE)
    message = queue_and_die(queue_message)
    assert message.status == OutboundMessage.Status.QUEUED
    assert message.provider_message_id == ""
    assert message.attempts == 1

    the_visibility_timeout_passes(message)
    outcome = deliver_message.delay(message.pk).get()

    assert outcome == "adopted"
    message.refresh_from_db()
    assert message.status == OutboundMessage.Status.SENT
    assert message.provider_message_id == fake_twilio.accepted[0]["sid"]
    assert message.sent_at is not None
    assert message.attempts == 2
    assert len(fake_twilio.posts) == 1
    [lookup] = fake_twilio.gets
    assert lookup.params["To"] == TO_NUMBER
    assert lookup.params["From"] == FROM_NUMBER
    assert [c.method for c in fake_twilio.calls] == ["POST", "GET"]


def test_a_message_twilio_never_received_before_the_worker_died_is_sent_once(fake_twilio, queue_message):
    fake_twilio.answer_posts(WorkerDied())
    message = queue_and_die(queue_message)

    the_visibility_timeout_passes(message)
    outcome = deliver_message.delay(message.pk).get()

    assert outcome == "sent"
    message.refresh_from_db()
    assert message.status == OutboundMessage.Status.SENT
    assert [m["sid"] for m in fake_twilio.accepted] == [message.provider_message_id]
    assert [c.method for c in fake_twilio.calls] == ["POST", "GET", "POST"]


def test_an_identical_older_message_at_twilio_is_not_mistaken_for_this_one(fake_twilio, queue_message):
    last_week = email.utils.format_datetime(timezone.now().astimezone(dt.UTC) - dt.timedelta(days=7), usegmt=True)
    fake_twilio.accepted.append(
        {
            "sid": "SM" + "0" * 32,
            "to": TO_NUMBER,
            "from": FROM_NUMBER,
            "body": BODY,
            "direction": "outbound-api",
            "status": "delivered",
            "date_created": last_week,
            "date_sent": last_week,
        }
    )
    fake_twilio.answer_posts(WorkerDied())
    message = queue_and_die(queue_message)

    the_visibility_timeout_passes(message)
    outcome = deliver_message.delay(message.pk).get()

    assert outcome == "sent"
    message.refresh_from_db()
    assert message.provider_message_id != "SM" + "0" * 32
    assert len(fake_twilio.accepted) == 2


def test_a_duplicate_delivery_while_an_attempt_may_still_be_sending_does_nothing(fake_twilio, queue_message):
    fake_twilio.answer_posts(ACCEPT_THEN_DIE)
    message = queue_and_die(queue_message)

    # Too soon: the first attempt's lease has not run out.
    outcome = deliver_message.delay(message.pk).get()

    assert outcome == "busy"
    assert len(fake_twilio.calls) == 1
    message.refresh_from_db()
    assert message.status == OutboundMessage.Status.QUEUED
    assert message.status_detail == "sending"
    assert message.attempts == 1


def test_a_twin_message_already_recorded_for_another_row_is_not_adopted(fake_twilio, queue_message):
    twin = queue_message(body=BODY)
    fake_twilio.answer_posts(WorkerDied())  # dies before Twilio gets it
    with pytest.raises(WorkerDied):
        queue_message(body=BODY)
    message = OutboundMessage.objects.exclude(pk=twin.pk).get(body=BODY)

    the_visibility_timeout_passes(message)
    outcome = deliver_message.delay(message.pk).get()

    assert outcome == "sent"
    message.refresh_from_db()
    assert message.provider_message_id not in ("", twin.provider_message_id)
    assert len(fake_twilio.posts) == 3
