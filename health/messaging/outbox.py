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
) -> tuple[OutboundMessage, bool]:
    """Queue one SMS; return ``(message, created)``.

    The idempotency key makes a retried caller (a redelivered task, a replayed
    SOS step) find the message it already queued instead of queuing it twice.
    Callers decide who may be messaged; this function only records the intent.
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
            )
    except IntegrityError:
        # Lost a race with a concurrent caller using the same key.
        return OutboundMessage.objects.get(idempotency_key=idempotency_key), False
    return message, True
