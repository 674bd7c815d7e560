"""SMS transports, chosen by configuration.

Each kind maps to a dotted path imported only when chosen, so the Twilio client
is never imported on an install that does not use it.
"""

from __future__ import annotations

from django.conf import settings
from django.utils.module_loading import import_string

from health.messaging.transports.base import NotSent, Transport, TransportError

TRANSPORTS: dict[str, str] = {
    "twilio": "health.messaging.transports.twilio.TwilioTransport",
    "outbox_only": "health.messaging.transports.outbox_only.OutboxOnlyTransport",
}


def configured_kind() -> str:
    """``"twilio"`` when all three TWILIO_* settings are set, else ``"outbox_only"``."""
    if settings.TWILIO_ACCOUNT_SID and settings.TWILIO_AUTH_TOKEN and settings.TWILIO_FROM_NUMBER:
        return "twilio"
    return "outbox_only"


def get_transport(kind: str | None = None) -> Transport:
    """Return a transport of ``kind`` (default: the configured one), built from settings."""
    transport_class = import_string(TRANSPORTS[kind or configured_kind()])
    return transport_class.from_settings()


__all__ = ["TRANSPORTS", "NotSent", "Transport", "TransportError", "configured_kind", "get_transport"]
