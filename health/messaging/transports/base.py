"""The interface every SMS transport implements, and its one error type."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from health.models import OutboundMessage


class TransportError(Exception):
    """A send or lookup that did not succeed.

    ``message`` is shown to the user (status_detail) and may be logged, so it
    never contains a phone number or a message body. ``permanent`` says whether
    trying again could help: an invalid number stays invalid, an outage ends.
    """

    def __init__(self, message: str, permanent: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.permanent = permanent


class NotSent(TransportError):
    """The transport deliberately sends nothing (no provider is configured).

    Not a failure of the message: it is kept in the outbox, marked "not sent".
    """

    def __init__(self, message: str) -> None:
        super().__init__(message, permanent=True)


class Transport(ABC):
    """Sends one outbox message through one provider."""

    @classmethod
    @abstractmethod
    def from_settings(cls) -> Transport:
        """Build the transport from Django settings."""

    @abstractmethod
    def send(self, message: OutboundMessage) -> str:
        """Hand ``message`` to the provider; return the provider's id for it.

        Raises ``TransportError`` (``permanent`` set when retrying cannot help)
        or ``NotSent``.
        """

    def find_matching(self, message: OutboundMessage) -> list[str]:
        """Return the provider's ids of messages it already holds that look
        like ``message`` (same recipient and body, not older than it), newest
        first.

        Delivery asks this before re-sending a message whose previous attempt
        ended without a recorded outcome. A transport that keeps no record it
        could search finds nothing, hence this default.
        """
        return []
