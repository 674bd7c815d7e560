"""Delivering outbox messages: each message reaches the provider at most once,
however often, and however concurrently, delivery is asked for.

Why asking twice is normal here: Celery acknowledges a delivery task only after
it finished (``acks_late``), so a worker that dies mid-task has the task
redelivered; a task that outlives the broker's visibility timeout is redelivered
too; and the stale-message sweep re-enqueues anything left queued. Each of those
calls ``deliver()`` again for a message that may already be on its way.

The outbox row is the record of truth, with these states:

- ``queued``: not delivered yet. ``attempts`` counts attempts started,
  ``last_attempt_at`` stamps the latest, ``status_detail`` is ``"sending"``
  while one is under way and the reason while a retry waits.
- ``sent``, ``failed``, ``not_sent``: final. Delivery never touches them again.
"""

from __future__ import annotations

import datetime as dt
import enum
import logging
import os
import socket

from django.db.models import F, Q
from django.utils import timezone

from core.events import Event
from core.realtime import push_to_user
from health.messaging.transports import NotSent, TransportError, get_transport
from health.models import OutboundMessage

logger = logging.getLogger(__name__)

Status = OutboundMessage.Status

# status_detail while an attempt is under way (also what the outbox UI shows).
SENDING = "sending"
# An attempt "leases" its message for this long: another delivery arriving
# meanwhile (a duplicate task, the sweep) leaves it alone instead of sending in
# parallel. Longer than an attempt can take (a lookup and a send, each bounded
# by the transport's HTTP timeout), so only a dead attempt's lease runs out.
ATTEMPT_LEASE = dt.timedelta(minutes=2)
# A message still queued this long after its last attempt (or its creation,
# when never attempted) has lost its task: the broker dropped it, or the worker
# died holding it. Longer than the delivery task's largest retry countdown, so
# the sweep does not race a retry that is merely waiting.
STALE_AFTER = dt.timedelta(minutes=5)
# An SOS message nobody is working on is picked up again this soon by the SOS
# sweep (every few seconds): an emergency text must not wait minutes.
SOS_STALE_AFTER = dt.timedelta(seconds=4)
DETAIL_MAX_LENGTH = OutboundMessage._meta.get_field("status_detail").max_length
OWNER_MAX_LENGTH = OutboundMessage._meta.get_field("attempt_owner").max_length
# status_detail while an SOS end message waits for its start message to the same person.
WAITING = "waiting for the earlier SOS message to this recipient"


class WaitForEarlier(Exception):
    """An earlier message of the same SOS to the same recipient is not final yet:
    this one must not overtake it ("false alarm" before "emergency")."""


class Outcome(enum.StrEnum):
    """What one call of ``deliver()`` did."""

    SENT = "sent"
    # The provider already had the message from an interrupted attempt.
    ADOPTED = "adopted"
    FAILED = "failed"
    NOT_SENT = "not_sent"
    # Already final (or deleted): nothing to do.
    SKIPPED = "skipped"
    # Another attempt holds the lease; it (or the sweep) will finish the job.
    BUSY = "busy"


def attempt_owner() -> str:
    """``host:pid`` of this process, written on the message it is sending."""
    return f"{socket.gethostname()}:{os.getpid()}"[:OWNER_MAX_LENGTH]


def owner_is_dead(owner: str) -> bool:
    """Whether ``owner`` (``host:pid``) is a process of this host that no longer runs.

    A worker killed mid-attempt leaves its lease behind; waiting the lease out
    would hold an emergency text for minutes. On the same host we can see that
    its process is gone and take over at once. Another host's process (a
    separate worker container) cannot be checked: its lease runs its course.
    """
    host, _, pid_text = owner.rpartition(":")
    if host != socket.gethostname() or not pid_text.isdigit():
        return False
    pid = int(pid_text)
    if pid == os.getpid():
        return False
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            # "pid (name) S ...": a zombie (Z) or dead (X) process holds nothing.
            return stat.read().rpartition(")")[2].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True
    except OSError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def deliver(message_id: int) -> Outcome:
    """Deliver outbox message ``message_id`` unless it is final or being
    delivered right now, and return what happened.

    Never sends a message twice: see the in-doubt case below. A permanent
    provider error marks the message ``failed``; no provider marks it
    ``not_sent``. A transient error leaves it ``queued`` with the reason in
    ``status_detail`` and is raised as ``TransportError`` for the caller to
    retry later.
    """
    _wait_for_earlier(message_id)
    if not _claim(message_id):
        return _unclaimed_outcome(message_id)
    message = OutboundMessage.objects.filter(pk=message_id).first()
    if message is None:  # deleted since the claim
        return _logged(message_id, Outcome.SKIPPED, 0)
    transport = get_transport()
    provider_id: str | None = None
    try:
        if message.attempts > 1:
            # IN DOUBT. An earlier attempt started and recorded no outcome: it
            # may have died (worker killed, host lost) after the provider
            # accepted the message and before we stored the provider id, or its
            # request timed out after reaching the provider. Sending again
            # could text an emergency contact twice, so first ask the provider
            # whether it already has this message, and adopt its id if so.
            # Only when it has none do we send. A retry after an error the
            # provider answered costs one extra lookup; that is the price of
            # treating every unrecorded attempt alike.
            provider_id = _unclaimed(transport.find_matching(message))
        adopted = provider_id is not None
        if provider_id is None:
            provider_id = transport.send(message)
    except NotSent as exc:
        _finish(message_id, Status.NOT_SENT, f"not sent: {exc.message}")
        return _logged(message_id, Outcome.NOT_SENT, message.attempts)
    except TransportError as exc:
        if exc.permanent:
            _finish(message_id, Status.FAILED, f"failed: {exc.message}")
            return _logged(message_id, Outcome.FAILED, message.attempts)
        _release(message_id, f"retrying: {exc.message}")
        logger.info("message %s: transient error on attempt %s, will retry", message_id, message.attempts)
        raise
    _record_sent(message_id, provider_id)
    return _logged(message_id, Outcome.ADOPTED if adopted else Outcome.SENT, message.attempts)


def give_up(message_id: int, error: TransportError) -> bool:
    """Mark a still-queued message ``failed`` with ``error`` as the reason, after
    its retries ran out; return whether it was marked.

    Leaves alone a message that is final, or that another attempt is
    delivering right now: that attempt's outcome is the truer one.
    """
    now = timezone.now()
    message = OutboundMessage.objects.filter(pk=message_id).first()
    if message is None:
        return False
    detail = f"failed after {message.attempts} attempts: {error.message}"
    marked = (
        OutboundMessage.objects.filter(pk=message_id, status=Status.QUEUED)
        .exclude(_in_flight(now))
        .update(status=Status.FAILED, status_detail=detail[:DETAIL_MAX_LENGTH])
    )
    if marked:
        logger.warning("message %s: failed after %s attempts", message_id, message.attempts)
        _announce(message_id)
    return bool(marked)


def _wait_for_earlier(message_id: int) -> None:
    """Deliver this SOS's earlier messages to the same recipient first; raise
    ``WaitForEarlier`` while one of them is still not final.

    Messages of one alert to one person go out in the order they were queued:
    the end of an SOS ("help arrived", "false alarm") must never reach someone
    before the alarm it stands down, even when the alarm's delivery was held up
    (a worker killed mid-send). Trying the earlier message here, rather than
    only waiting for it, also means its delivery does not hang on whoever
    dropped it.
    """
    message = OutboundMessage.objects.filter(pk=message_id, status=Status.QUEUED).first()
    if message is None or message.alert_id is None:
        return
    earlier = list(
        OutboundMessage.objects.filter(
            alert_id=message.alert_id, recipient=message.recipient, status=Status.QUEUED, pk__lt=message.pk
        )
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    for earlier_id in earlier:
        try:
            deliver(earlier_id)
        except TransportError:
            pass  # its own retries go on; this one waits for them
    if OutboundMessage.objects.filter(pk__in=earlier, status=Status.QUEUED).exists():
        OutboundMessage.objects.filter(pk=message_id, status=Status.QUEUED).exclude(_in_flight(timezone.now())).update(
            status_detail=WAITING
        )
        raise WaitForEarlier(f"message {message_id} waits for an earlier SOS message")


def stale_message_ids(limit: int = 500) -> list[int]:
    """Ids of queued messages whose delivery task was lost, oldest first: nobody
    tried them for ``STALE_AFTER``, or their attempt died holding the lease.
    Delivering them again is safe because ``deliver()`` is idempotent."""
    now = timezone.now()
    cutoff = now - STALE_AFTER
    stale = OutboundMessage.objects.filter(status=Status.QUEUED).filter(
        Q(last_attempt_at__lt=cutoff)
        | Q(last_attempt_at__isnull=True, created_at__lt=cutoff)
        # A worker killed mid-attempt may come back at once (a requeue that
        # found the lease still held) or only after the broker's visibility
        # timeout: pick the message up as soon as the dead attempt's lease ends.
        | Q(status_detail=SENDING, last_attempt_at__lt=now - ATTEMPT_LEASE)
    )
    return list(stale.order_by("created_at").values_list("pk", flat=True)[:limit])


def stalled_sos_message_ids(limit: int = 100) -> list[int]:
    """Ids of queued SOS messages nobody is delivering right now, oldest first:
    never tried for ``SOS_STALE_AFTER``, last tried that long ago (a lost retry
    or task), or held by an attempt whose process has died."""
    now = timezone.now()
    cutoff = now - SOS_STALE_AFTER
    queued = OutboundMessage.objects.filter(status=Status.QUEUED, alert__isnull=False).exclude(
        recipient_kind=OutboundMessage.RecipientKind.PATIENT
    )
    idle = queued.exclude(_in_flight(now)).filter(
        Q(last_attempt_at__lt=cutoff) | Q(last_attempt_at__isnull=True, created_at__lt=cutoff)
    )
    found = list(idle.order_by("pk").values_list("pk", flat=True)[:limit])
    for pk, owner in queued.filter(_in_flight(now)).values_list("pk", "attempt_owner")[:limit]:
        if owner and owner_is_dead(owner):
            found.append(pk)
    return sorted(set(found))


def _unclaimed(provider_ids: list[str]) -> str | None:
    """The first of ``provider_ids`` that no other outbox row has recorded: an
    identical text to the same person (a daily reminder, a repeated alert) that
    was delivered and recorded is that row's, not this one's."""
    recorded = set(
        OutboundMessage.objects.filter(provider_message_id__in=provider_ids).values_list(
            "provider_message_id", flat=True
        )
    )
    return next((provider_id for provider_id in provider_ids if provider_id not in recorded), None)


def _in_flight(now: dt.datetime) -> Q:
    return Q(status_detail=SENDING, last_attempt_at__gt=now - ATTEMPT_LEASE)


def _claim(message_id: int) -> bool:
    """Start an attempt: count it, stamp it and take the lease, all in one
    conditional UPDATE, so two deliveries racing for the same row cannot both
    win (the database serialises the UPDATE on SQLite and PostgreSQL alike)
    and no transaction is held open during the provider call.

    A lease whose owner process has died (same host) is void: the UPDATE is
    then conditional on that owner and that attempt, so only one taker wins."""
    now = timezone.now()
    me = attempt_owner()
    claim = {"attempts": F("attempts") + 1, "last_attempt_at": now, "status_detail": SENDING, "attempt_owner": me}
    queued = OutboundMessage.objects.filter(pk=message_id, status=Status.QUEUED)
    if queued.exclude(_in_flight(now)).update(**claim) == 1:
        return True
    held = queued.filter(_in_flight(now)).values_list("attempt_owner", "attempts").first()
    if held is None or not held[0] or not owner_is_dead(held[0]):
        return False
    owner, attempts = held
    taken = queued.filter(attempt_owner=owner, attempts=attempts).update(**claim) == 1
    if taken:
        logger.warning("message %s: the process of attempt %s died; taking over", message_id, attempts)
    return taken


def _unclaimed_outcome(message_id: int) -> Outcome:
    status = OutboundMessage.objects.filter(pk=message_id).values_list("status", flat=True).first()
    outcome = Outcome.BUSY if status == Status.QUEUED else Outcome.SKIPPED
    logger.info("message %s: %s (status %s)", message_id, outcome, status or "missing")
    return outcome


def _record_sent(message_id: int, provider_id: str) -> None:
    # Not conditional on "queued": once the provider has the message it was
    # sent, even if a late give_up() marked it failed meanwhile.
    OutboundMessage.objects.filter(pk=message_id).exclude(status=Status.SENT).update(
        status=Status.SENT, status_detail="", provider_message_id=provider_id, sent_at=timezone.now()
    )
    _announce(message_id)


def _finish(message_id: int, status: str, detail: str) -> None:
    if OutboundMessage.objects.filter(pk=message_id, status=Status.QUEUED).update(
        status=status, status_detail=detail[:DETAIL_MAX_LENGTH]
    ):
        _announce(message_id)


def _announce(message_id: int) -> None:
    """Tell the patient's open pages that an SOS message reached its outcome:
    the SOS page shows each message's recorded state, not a guess."""
    row = OutboundMessage.objects.filter(pk=message_id, alert__isnull=False).values("user_id", "alert_id").first()
    if row is not None:
        push_to_user(row["user_id"], Event.OUTBOX, {"id": message_id, "alert": row["alert_id"]})


def _release(message_id: int, detail: str) -> None:
    """End an attempt without an outcome: the message stays queued, its lease
    is given up so the retry may start at once, and the reason is shown."""
    OutboundMessage.objects.filter(pk=message_id, status=Status.QUEUED).update(status_detail=detail[:DETAIL_MAX_LENGTH])


def _logged(message_id: int, outcome: Outcome, attempt: int) -> Outcome:
    # Ids and states only: numbers and bodies are health data.
    logger.info("message %s: %s on attempt %s", message_id, outcome, attempt)
    return outcome
