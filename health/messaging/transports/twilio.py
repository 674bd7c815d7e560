"""SMS through Twilio's official REST client."""

from __future__ import annotations

import datetime as dt
import logging
from typing import TYPE_CHECKING

import requests
from django.conf import settings
from twilio.base.exceptions import TwilioException
from twilio.http.http_client import TwilioHttpClient
from twilio.rest import Client

from health.messaging.transports.base import Transport, TransportError

if TYPE_CHECKING:
    from health.models import OutboundMessage

# Twilio's HTTP client logs each request's query string at INFO, and the
# in-doubt lookup filters by phone number: give it a logger that keeps quiet
# below WARNING so numbers never reach our logs.
_http_logger = logging.getLogger("health.messaging.twilio_http")
_http_logger.setLevel(logging.WARNING)

# Per HTTP request. Delivery's lease (``health.messaging.delivery``) assumes an
# attempt (one lookup and one send) cannot take much longer than two of these.
HTTP_TIMEOUT_SECONDS = 10.0
# The in-doubt lookup reads this many of the most recent messages to the
# recipient: an interrupted attempt is minutes old, far fewer messages ago.
LOOKUP_LIMIT = 50
# Twilio's clock stamps its messages, ours stamps the outbox row: a message
# Twilio dates up to this much before our row may still be ours.
CLOCK_SKEW = dt.timedelta(minutes=5)
# Statuses that say "not now" rather than "never".
TRANSIENT_STATUSES = frozenset({408, 429})

# Twilio error codes that come back for a bad recipient or sender, with the
# reason a person reading the outbox needs. Other 4xx errors are permanent too,
# with a generic reason; https://www.twilio.com/docs/api/errors lists them all.
PERMANENT_REASONS: dict[int, str] = {
    20003: "Twilio rejected the account credentials",
    21211: "the recipient's number is not a valid phone number",
    21214: "the recipient's number cannot be reached",
    21217: "the recipient's number does not appear to be valid",
    21408: "this Twilio account may not send SMS to the recipient's region",
    21606: "the configured sender number cannot send SMS",
    21608: "this trial Twilio account may only message verified numbers",
    21610: "the recipient has unsubscribed from this sender (replied STOP)",
    21612: "Twilio cannot route a message to the recipient's number",
    21614: "the recipient's number cannot receive SMS (not a mobile number)",
    21659: "the configured sender number does not belong to this Twilio account",
}


class TwilioTransport(Transport):
    """Sends SMS from one Twilio number."""

    def __init__(self, account_sid: str, auth_token: str, from_number: str, api_url: str = "") -> None:
        self.from_number = from_number
        http_client = TwilioHttpClient(timeout=HTTP_TIMEOUT_SECONDS, logger=_http_logger)
        self.client = Client(account_sid, auth_token, http_client=http_client)
        if api_url:
            # A Twilio-compatible endpoint instead of api.twilio.com (same paths, same JSON).
            self.client.api.base_url = api_url.rstrip("/")

    @classmethod
    def from_settings(cls) -> TwilioTransport:
        return cls(
            settings.TWILIO_ACCOUNT_SID,
            settings.TWILIO_AUTH_TOKEN,
            settings.TWILIO_FROM_NUMBER,
            getattr(settings, "TWILIO_API_URL", ""),
        )

    def send(self, message: OutboundMessage) -> str:
        """Create the message at Twilio; return its SID."""
        try:
            created = self.client.messages.create(to=message.recipient, from_=self.from_number, body=message.body)
        except (TwilioException, requests.RequestException) as exc:
            # ``from None``: Twilio's own error text can quote the phone number.
            raise as_transport_error(exc) from None
        return created.sid

    def find_matching(self, message: OutboundMessage) -> list[str]:
        """Return the SIDs of messages Twilio holds from our number to the same
        recipient with the same body, created no earlier than our outbox row,
        newest first.

        No ``DateSent`` filter: a message still queued at Twilio has no send
        date yet, and that is exactly the one an interrupted attempt may have
        left behind.
        """
        try:
            candidates = self.client.messages.list(to=message.recipient, from_=self.from_number, limit=LOOKUP_LIMIT)
        except (TwilioException, requests.RequestException) as exc:
            raise as_transport_error(exc) from None
        earliest = message.created_at - CLOCK_SKEW
        return [
            candidate.sid
            for candidate in candidates
            if (candidate.direction or "").startswith("outbound")
            and candidate.to == message.recipient
            and candidate.body == message.body
            and candidate.date_created is not None
            and candidate.date_created >= earliest
        ]


def as_transport_error(exc: TwilioException | requests.RequestException) -> TransportError:
    """Translate an error of the Twilio client into a TransportError whose text
    is safe to show and log: 429 and 5xx are transient, other 4xx permanent."""
    if isinstance(exc, requests.RequestException):
        # Connection refused, DNS, timeouts: Twilio may or may not have the
        # message, and delivery's in-doubt lookup settles that on the retry.
        return TransportError(f"could not reach Twilio ({type(exc).__name__})")
    status, code = _status_and_code(exc)
    if status is None or status >= 500 or status in TRANSIENT_STATUSES:
        return TransportError(f"Twilio is unavailable (HTTP {status or 'error'})")
    reason = PERMANENT_REASONS.get(code or 0, "Twilio rejected the message")
    suffix = f"Twilio error {code}, HTTP {status}" if code and code != status else f"HTTP {status}"
    return TransportError(f"{reason} ({suffix})", permanent=True)


def _status_and_code(exc: TwilioException) -> tuple[int | None, int | None]:
    status = getattr(exc, "status", None)
    if status is None and len(exc.args) > 1:
        # Listing a page fails with a bare TwilioException("...", response).
        status = getattr(exc.args[1], "status_code", None)
    code = getattr(exc, "code", None)
    return _as_int(status), _as_int(code)


def _as_int(value: object) -> int | None:
    try:
        return int(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
