"""Asking again never sends again: one idempotency key is one message, and a
message that reached a final state is left alone."""

from __future__ import annotations

import pytest

from health.messaging.outbox import queue_sms
from health.models import OutboundMessage
from health.tasks import deliver_message
from tests.factories import OutboundMessageFactory
from tests.messaging.conftest import TO_NUMBER


def test_queuing_twice_with_the_same_key_makes_one_message_and_one_request(fake_twilio, queue_message):
    first = queue_message(key="sos-42-contact-7")
    second = queue_message(key="sos-42-contact-7")

    assert second.pk == first.pk
    assert OutboundMessage.objects.filter(idempotency_key="sos-42-contact-7").count() == 1
    assert len(fake_twilio.calls) == 1


def test_delivering_a_sent_message_again_makes_no_request(fake_twilio, queue_message):
    message = queue_message()

    outcome = deliver_message.delay(message.pk).get()

    assert outcome == "skipped"
    assert len(fake_twilio.calls) == 1
    message.refresh_from_db()
    assert message.status == OutboundMessage.Status.SENT
    assert message.attempts == 1


@pytest.mark.parametrize("status", [OutboundMessage.Status.FAILED, OutboundMessage.Status.NOT_SENT])
def test_failed_and_not_sent_messages_are_not_delivered_again(fake_twilio, alice, status):
    message = OutboundMessageFactory(user=alice, recipient=TO_NUMBER, status=status, attempts=1)

    outcome = deliver_message.delay(message.pk).get()

    assert outcome == "skipped"
    assert fake_twilio.calls == []
    message.refresh_from_db()
    assert message.status == status
    assert message.attempts == 1


def test_a_message_that_no_longer_exists_is_skipped(fake_twilio, alice, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        message, _ = queue_sms(
            user=alice,
            recipient=TO_NUMBER,
            recipient_kind=OutboundMessage.RecipientKind.EMERGENCY_CONTACT,
            body="Appointment tomorrow at 9:00",
            idempotency_key="deleted-before-delivery",
        )
    message.delete()

    [enqueue] = callbacks
    enqueue()

    assert fake_twilio.calls == []
