"""What the messages of a hard SOS actually did, read from the outbox.

Every status a person reads about an SOS (the SOS page, the assistant's
closing message, the operator overview) comes from here, so all of them say
the same thing and none says more than the outbox records: a message is
"sent" only once the SMS provider accepted it; with no provider it is
"not sent", and the patient is told to call the emergency number.
"""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from health.models import Alert, Dispatch, OutboundMessage

Status = OutboundMessage.Status
Kind = OutboundMessage.RecipientKind

DEFAULT_EMERGENCY_NUMBER = "911"
# How long the assistant's closing SOS message waits for the SMS outcomes
# before saying what is known (still sending) rather than guessing.
SUMMARY_WAIT_SECONDS = 8.0
# An SOS text the provider has not accepted this long after it was queued (the
# provider is down, the network is out) is as good as not sent to the patient:
# they are told to call, while delivery keeps trying.
CALL_IF_PENDING_AFTER = dt.timedelta(seconds=60)


def emergency_number() -> str:
    """The number the patient is told to call (``EMERGENCY_NUMBER``, default 911)."""
    return str(getattr(settings, "EMERGENCY_NUMBER", "") or DEFAULT_EMERGENCY_NUMBER)


@dataclass(frozen=True)
class Group:
    """The messages of one SOS phase to one kind of recipient."""

    names: tuple[str, ...]
    sent: int
    pending: int
    not_sent: int
    failed: int
    reasons: tuple[str, ...]

    @property
    def total(self) -> int:
        return self.sent + self.pending + self.not_sent + self.failed

    @property
    def state(self) -> str:
        """``none`` (no message), ``failed``, ``not_sent``, ``pending`` or ``sent`` (all of them)."""
        if not self.total:
            return "none"
        if self.failed:
            return "failed"
        if self.not_sent:
            return "not_sent"
        if self.pending:
            return "pending"
        return "sent"

    def as_dict(self) -> dict:
        return {
            "state": self.state,
            "total": self.total,
            "sent": self.sent,
            "pending": self.pending,
            "not_sent": self.not_sent,
            "failed": self.failed,
            "names": list(self.names),
            "reasons": list(self.reasons),
        }


@dataclass(frozen=True)
class PhaseDelivery:
    ambulance: Group
    contacts: Group

    @property
    def settled(self) -> bool:
        return not (self.ambulance.pending or self.contacts.pending)

    @property
    def undelivered(self) -> bool:
        """Some message of this phase will not reach its recipient."""
        return any(group.state in ("failed", "not_sent") for group in (self.ambulance, self.contacts))

    @property
    def reached_everyone(self) -> bool:
        return self.ambulance.state == "sent" and self.contacts.state == "sent"


def _group(messages: list[OutboundMessage], kind: str) -> Group:
    mine = [m for m in messages if m.recipient_kind == kind]
    count = lambda status: sum(1 for m in mine if m.status == status)  # noqa: E731
    reasons = []
    for m in mine:
        reason = m.status_detail.removeprefix("not sent: ").removeprefix("failed: ")
        if m.status in OutboundMessage.UNDELIVERED_STATUSES and reason and reason not in reasons:
            reasons.append(reason)
    return Group(
        names=tuple(m.recipient_name or m.recipient for m in mine),
        sent=count(Status.SENT),
        pending=count(Status.QUEUED),
        not_sent=count(Status.NOT_SENT),
        failed=count(Status.FAILED),
        reasons=tuple(reasons),
    )


def phase_delivery(alert: Alert, phase: str) -> PhaseDelivery:
    messages = list(OutboundMessage.objects.filter(alert=alert, phase=phase).order_by("pk"))
    return PhaseDelivery(ambulance=_group(messages, Kind.AMBULANCE), contacts=_group(messages, Kind.EMERGENCY_CONTACT))


def settled_delivery(alert: Alert, phase: str, *, timeout: float = SUMMARY_WAIT_SECONDS) -> PhaseDelivery:
    """The phase's delivery once no message is pending, or as it stands after ``timeout`` s.

    Inside a transaction nothing queued in it can be delivered before it
    commits (delivery starts on commit): no use waiting, the state is told as it is."""
    if transaction.get_connection().in_atomic_block:
        timeout = 0.0
    deadline = time.monotonic() + timeout
    while True:
        found = phase_delivery(alert, phase)
        if found.settled or time.monotonic() >= deadline:
            return found
        time.sleep(0.25)


def ambulance_dispatched(alert: Alert) -> bool:
    return Dispatch.objects.filter(alert=alert).exists()


def should_call_now(alert: Alert, start: PhaseDelivery | None = None) -> bool:
    """Whether the patient must be told, prominently, to call the emergency
    number: the hard SOS went out and a message did not reach its recipient,
    or no ambulance could be dispatched once the start sequence finished.
    ``start`` is the start phase's delivery when the caller has just read it."""
    if alert.kind != Alert.Kind.HARD or alert.state in (Alert.State.COUNTDOWN, Alert.State.CANCELLED):
        return False
    start = start or phase_delivery(alert, OutboundMessage.Phase.START)
    if start.undelivered:
        return True
    late = timezone.now() - CALL_IF_PENDING_AFTER
    if OutboundMessage.objects.filter(
        alert=alert, phase=OutboundMessage.Phase.START, status=Status.QUEUED, created_at__lt=late
    ).exists():
        return True
    finished = alert.events.filter(kind="start_finished").exists()
    return finished and (not ambulance_dispatched(alert) or start.contacts.state == "none")


def delivery_report(alert: Alert) -> dict:
    """What the SOS page and the API show about an alert's messages."""
    start = phase_delivery(alert, OutboundMessage.Phase.START)
    end = phase_delivery(alert, OutboundMessage.Phase.END)
    return {
        "start": {"ambulance": start.ambulance.as_dict(), "contacts": start.contacts.as_dict()},
        "end": {"ambulance": end.ambulance.as_dict(), "contacts": end.contacts.as_dict()},
        "ambulance_dispatched": ambulance_dispatched(alert),
        "call_emergency_number": should_call_now(alert, start),
        "emergency_number": emergency_number(),
    }
