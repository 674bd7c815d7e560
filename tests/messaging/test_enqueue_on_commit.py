"""queue_sms hands a new message to the delivery task only when the caller's
transaction commits, so the worker never looks for a row it cannot see."""

from __future__ import annotations

from health.messaging.outbox import queue_sms
from health.models import OutboundMessage
from tests.messaging.conftest import TO_NUMBER


def queue(alice, key: str) -> OutboundMessage:
    message, _ = queue_sms(
        user=alice,
        recipient=TO_NUMBER,
        recipient_kind=OutboundMessage.RecipientKind.AMBULANCE,
        body="Patient Alice at 52.52,13.40",
        idempotency_key=key,
    )
    return message


def test_delivery_waits_for_the_callers_transaction_to_commit(fake_twilio, alice, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        message = queue(alice, "sos-1-ambulance")

    assert fake_twilio.calls == []
    [commit_hook] = callbacks

    commit_hook()

    message.refresh_from_db()
    assert message.status == OutboundMessage.Status.SENT
    assert len(fake_twilio.posts) == 1


def test_a_message_found_by_its_key_is_not_enqueued_again(fake_twilio, alice, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        queue(alice, "sos-1-ambulance")

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        queue(alice, "sos-1-ambulance")

    assert callbacks == []
    assert len(fake_twilio.posts) == 1
