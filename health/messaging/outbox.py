"""Putting messages in the outbox. Delivery happens later, from the outbox, by
Celery (``health.messaging.delivery``); the outbox row is the record of truth."""

from __future__ import annotations

from django.db import IntegrityError, transaction

from health.models import OutboundMessage
from health.validators import normalize_e164


def queue_sms(
    *,
    user,
    recipient: str,
    recipient_kind: str,
    body: str,
    idempotency_key: str,
    recipient_name: str = "",
    alert=None,
    phase: str = OutboundMessage.Phase.NONE,
) -> tuple[OutboundMessage, bool]:
    """Queue one SMS; return ``(message, created)``.

    The idempotency key makes a retried caller (a redelivered task, a replayed
    SOS step) find the message it already queued instead of queuing it twice.
    Callers decide who may be messaged; this function only records the intent.

    A newly created message is handed to the delivery task once the caller's
    transaction commits; a found one is not (its own delivery is under way).
    """
    number = normalize_e164(recipient)
    existing = OutboundMessage.objects.filter(idempotency_key=idempotency_key).first()
    if existing is not None:
        return existing, False
    try:
        with transaction.atomic():
            message = OutboundMessage.objects.create(
                user=user,
                channel=OutboundMessage.Channel.SMS,
                recipient=number,
                recipient_name=recipient_name,
                recipient_kind=recipient_kind,
                body=body,
                idempotency_key=idempotency_key,
                alert=alert,
                phase=phase,
            )
    except IntegrityError:
        # Lost a race with a concurrent caller using the same key.
        return OutboundMessage.objects.get(idempotency_key=idempotency_key), False
    _deliver_after_commit(message.pk)
    return message, True


def _deliver_after_commit(message_id: int) -> None:
    """Enqueue delivery once the current transaction commits: a worker never
    looks for a row it cannot see yet, or one that was rolled back. Robust: if
    the broker is down, the caller's committed work stands and the
    stale-message sweep delivers the message later."""

    def enqueue_delivery() -> None:
        # Imported here, not at the top: health.tasks grows to import services
        # that queue SMS themselves.
        from health.tasks import deliver_message

        deliver_message.delay(message_id)

    transaction.on_commit(enqueue_delivery, robust=True)
