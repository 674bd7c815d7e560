"""The transport used when no SMS provider is configured: nothing leaves the
device, and the message stays in the outbox marked "not sent"."""

from __future__ import annotations

from typing import TYPE_CHECKING

from health.messaging.transports.base import NotSent, Transport

if TYPE_CHECKING:
    from health.models import OutboundMessage

NO_PROVIDER = "no SMS provider configured"


class OutboxOnlyTransport(Transport):
    """Keeps every message in the outbox; the user sees why it was not sent."""

    @classmethod
    def from_settings(cls) -> OutboxOnlyTransport:
        return cls()

    def send(self, message: OutboundMessage) -> str:
        """Always raises NotSent: there is no provider to hand the message to."""
        raise NotSent(NO_PROVIDER)
