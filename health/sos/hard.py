"""Hard SOS: the button, its countdown, the start, the end, and escalation of a soft SOS.

The life of a hard SOS alert::

    press / escalate ─▶ COUNTDOWN (countdown_ends_at = now + SOS_COUNTDOWN_SECONDS)
        │  cancel or end during the countdown ─▶ CANCELLED   (nothing was sent)
        ▼  countdown over: a task enqueued with that countdown, or the beat sweep
        │  (eager Celery, no worker: a timer in the process that took the press)
      OPEN ─▶ the Action Manager's start flow (notify, locate, dispatch, SMS)
        │  end
        ▼  the start flow has finished ─▶ the end flow ─▶ dispatch released
      RESOLVED

The SMS themselves are the Action Manager's job (registered in ``health.sos.flows``): its SOS
guard completes the fixed sequence even without a model. This module owns the
states, the timing, the rate limits and the bookkeeping around those flows,
and writes every step on the alert's timeline.

Tasks run with ids only and every entry point is idempotent: a redelivered
task, a second press, a second "end" find the work already done.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connections, transaction
from django.utils import timezone

from core.events import Event
from core.realtime import push_to_user
from health.models import Alert, AlertEvent, Ambulance, Dispatch
from health.sos import flows
from health.sos.flows import sos_flows

# Hard SOS alerts that went out (cancelled ones sent nothing) a user may raise
# per hour; more than that is a stuck button or a child playing, and the
# contacts must not be flooded. The API tells the user to call the emergency
# number directly instead.
DEFAULT_MAX_PER_HOUR = 3
# A start that has not begun this long after its countdown ended is picked up
# again by the sweep (its task was lost, e.g. the broker was down at enqueue).
STALLED_START_AFTER = dt.timedelta(seconds=30)
START_KIND = flows.HARD_SOS_START

log = logging.getLogger(__name__)


class SosRefused(Exception):
    """The alert's kind or state does not allow this SOS step."""


class SosRateLimited(SosRefused):
    """Too many hard SOS alerts went out in the last hour."""


class StartInProgress(Exception):
    """The start flow is still running elsewhere; the end must wait for it."""


class EndReasonMissing(SosRefused):
    """Ending a hard SOS that went out needs the patient's reason (the end messages say it)."""


def countdown_seconds() -> int:
    return int(getattr(settings, "SOS_COUNTDOWN_SECONDS", 10))


def max_per_hour() -> int:
    return int(getattr(settings, "SOS_MAX_PER_HOUR", DEFAULT_MAX_PER_HOUR))


def _event(alert: Alert, kind: str, message: str, **data: Any) -> AlertEvent:
    return AlertEvent.objects.create(alert=alert, kind=kind, message=message[:255], data=data)


def push_alert(alert: Alert) -> None:
    """Tell the user's open tabs about the alert's new state (after commit)."""
    payload = {
        "id": alert.pk,
        "kind": alert.kind,
        "state": alert.state,
        "condition": alert.condition,
        "countdown_ends_at": alert.countdown_ends_at.isoformat() if alert.countdown_ends_at else None,
    }
    user_id = alert.user_id
    transaction.on_commit(lambda: push_to_user(user_id, Event.ALERT, payload), robust=True)


# health.tasks is imported where it is used, not at the top: its tasks are thin wrappers around
# this module's services (it imports this module), and a task must exist before it is enqueued.
def _tasks_run_eagerly() -> bool:
    from health.tasks import hard_sos_countdown_elapsed

    return bool(hard_sos_countdown_elapsed.app.conf.task_always_eager)


def _enqueue_countdown(alert: Alert) -> None:
    from health.tasks import hard_sos_countdown_elapsed  # see _tasks_run_eagerly

    alert_id = alert.pk
    delay = max(0.0, (alert.countdown_ends_at - timezone.now()).total_seconds())
    if delay > 0 and _tasks_run_eagerly():
        # Eager Celery (no broker, no worker, no beat) would run the task now,
        # ignoring the countdown, and it would refuse to open the alert early:
        # nothing would ever send it. A timer in this process runs it instead.
        transaction.on_commit(lambda: _start_countdown_timer(alert_id, delay), robust=True)
        return
    # The beat sweep is the safety net if this enqueue is lost; the task
    # itself refuses to open an alert whose countdown has not ended yet.
    transaction.on_commit(lambda: hard_sos_countdown_elapsed.apply_async((alert_id,), countdown=delay), robust=True)


# --- the countdown without a worker (eager Celery) ---------------------------------------
# One timer per alert still counting down in this process. A timer that
# fires runs the countdown task (eagerly, in the timer's thread); one whose
# alert was cancelled meanwhile finds nothing to do (and cancel() stops it).
_countdown_timers: dict[int, threading.Timer] = {}
_countdown_timers_lock = threading.Lock()
# A timer may wake a hair before the wall clock reaches countdown_ends_at.
_TIMER_SLACK = 0.05
_TIMER_THREAD = "sos-countdown-"


def _start_countdown_timer(alert_id: int, delay: float) -> None:
    timer = threading.Timer(delay + _TIMER_SLACK, _countdown_timer_fired, args=(alert_id,))
    timer.daemon = True
    timer.name = f"{_TIMER_THREAD}{alert_id}"
    with _countdown_timers_lock:
        previous = _countdown_timers.pop(alert_id, None)
        _countdown_timers[alert_id] = timer
    if previous is not None:
        previous.cancel()
    timer.start()


def _countdown_timer_fired(alert_id: int) -> None:
    from health.tasks import hard_sos_countdown_elapsed  # see _tasks_run_eagerly

    with _countdown_timers_lock:
        if _countdown_timers.get(alert_id) is threading.current_thread():
            del _countdown_timers[alert_id]
    try:
        ends_at = (
            Alert.objects.filter(pk=alert_id, kind=Alert.Kind.HARD, state=Alert.State.COUNTDOWN)
            .values_list("countdown_ends_at", flat=True)
            .first()
        )
        if ends_at is None:
            return  # cancelled, ended or already opened: nothing to do
        early = (ends_at - timezone.now()).total_seconds()
        if early > 0:
            _start_countdown_timer(alert_id, early)
            return
        hard_sos_countdown_elapsed.delay(alert_id)
    except Exception:  # a thread's error would otherwise vanish
        log.exception("hard SOS %s: running its countdown in this process failed", alert_id)
    finally:
        if threading.current_thread().name.startswith(_TIMER_THREAD):
            connections.close_all()  # the timer thread's own connections


def pending_countdown_timer(alert_id: int) -> threading.Timer | None:
    """The in-process timer of an alert still counting down (eager mode), if any."""
    with _countdown_timers_lock:
        return _countdown_timers.get(alert_id)


def cancel_countdown_timers() -> None:
    """Stop every in-process countdown timer (tests; a process shutting down)."""
    with _countdown_timers_lock:
        timers = list(_countdown_timers.values())
        _countdown_timers.clear()
    for timer in timers:
        timer.cancel()


def _stop_countdown_timer(alert_id: int) -> None:
    with _countdown_timers_lock:
        timer = _countdown_timers.pop(alert_id, None)
    if timer is not None:
        timer.cancel()


def active_hard_sos(user) -> Alert | None:
    return (
        Alert.objects.filter(user=user, kind=Alert.Kind.HARD, state__in=Alert.ACTIVE_STATES)
        .order_by("-created_at")
        .first()
    )


def _create_hard_sos(user, *, latitude: float | None, longitude: float | None, escalated_from: Alert | None) -> Alert:
    """A new hard SOS in its countdown; the caller holds the user's lock."""
    since = timezone.now() - dt.timedelta(hours=1)
    went_out = (
        Alert.objects.filter(user=user, kind=Alert.Kind.HARD, created_at__gte=since)
        .exclude(state=Alert.State.CANCELLED)
        .count()
    )
    if went_out >= max_per_hour():
        raise SosRateLimited(
            f"{went_out} SOS alerts went out in the last hour; no more are sent automatically. "
            "If you need help now, call your local emergency number."
        )
    now = timezone.now()
    alert = Alert.objects.create(
        user=user,
        kind=Alert.Kind.HARD,
        state=Alert.State.COUNTDOWN,
        latitude=latitude,
        longitude=longitude,
        countdown_ends_at=now + dt.timedelta(seconds=countdown_seconds()),
        escalated_from=escalated_from,
        summary="Hard SOS" + (f" escalated from a soft SOS ({escalated_from.condition})" if escalated_from else ""),
    )
    seconds = countdown_seconds()
    if escalated_from is not None:
        _event(alert, "escalated", f"Escalated from soft SOS #{escalated_from.pk}.", soft_alert=escalated_from.pk)
    else:
        _event(alert, "pressed", "SOS button pressed.")
    _event(
        alert,
        "countdown_started",
        f"Sending in {seconds} s unless cancelled." if seconds else "Sending now (no countdown configured).",
        seconds=seconds,
    )
    _enqueue_countdown(alert)
    push_alert(alert)
    return alert


def _lock_user(user) -> None:
    # Serialises one user's presses: two taps in the same instant must not
    # both find "no active SOS" and create two.
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()


def press(user, *, latitude: float | None = None, longitude: float | None = None) -> tuple[Alert, bool]:
    """The SOS button: start a hard SOS countdown; return ``(alert, created)``.

    While the user already has an active hard SOS, a press returns that alert
    (the repeat is on its timeline) and sends nothing new. Raises
    ``SosRateLimited`` past the hourly limit.
    """
    with transaction.atomic():
        _lock_user(user)
        existing = active_hard_sos(user)
        if existing is not None:
            _event(existing, "repeat_press", "SOS button pressed again; this SOS is already under way.")
            return existing, False
        return _create_hard_sos(user, latitude=latitude, longitude=longitude, escalated_from=None), True


def escalate(soft_alert: Alert) -> tuple[Alert, bool]:
    """Turn the user's active soft SOS into a hard SOS (with the usual countdown).

    The soft SOS is resolved, pointing at the hard one. Escalating again, or
    while another hard SOS is active, returns that hard SOS: ``(alert, created)``.
    """
    with transaction.atomic():
        _lock_user(soft_alert.user)
        soft = Alert.objects.select_for_update().get(pk=soft_alert.pk)
        if soft.kind != Alert.Kind.SOFT:
            raise SosRefused("Only a soft SOS can be escalated.")
        already = Alert.objects.filter(escalated_from=soft).first()
        if already is not None:
            return already, False
        if soft.state not in (Alert.State.OPEN, Alert.State.ACKNOWLEDGED):
            raise SosRefused(f"Cannot escalate a soft SOS that is {soft.state}.")
        existing = active_hard_sos(soft.user)
        if existing is not None:
            hard, created = existing, False
            _event(existing, "repeat_press", f"Soft SOS #{soft.pk} escalated; this SOS is already under way.")
        else:
            hard, created = _create_hard_sos(soft.user, latitude=None, longitude=None, escalated_from=soft), True
        soft.state = Alert.State.RESOLVED
        soft.resolved_at = timezone.now()
        soft.save(update_fields=["state", "resolved_at"])
        _event(soft, "escalated", f"Escalated to hard SOS #{hard.pk}.", hard_alert=hard.pk)
        push_alert(soft)
    return hard, created


def cancel(alert: Alert) -> Alert:
    """Cancel an active soft SOS, or a hard SOS still in its countdown (nothing was sent)."""
    with transaction.atomic():
        locked = Alert.objects.select_for_update().get(pk=alert.pk)
        if locked.kind == Alert.Kind.SOFT:
            allowed: tuple[str, ...] = (Alert.State.OPEN, Alert.State.ACKNOWLEDGED)
        else:
            allowed = (Alert.State.COUNTDOWN,)
        if locked.state not in allowed:
            if locked.kind == Alert.Kind.HARD and locked.is_active:
                raise SosRefused("This hard SOS has already gone out to your contacts; it cannot be cancelled here.")
            raise SosRefused(f"Cannot cancel an alert that is {locked.state}.")
        locked.state = Alert.State.CANCELLED
        locked.save(update_fields=["state"])
        _event(locked, "cancelled", "Cancelled by the patient.")
        push_alert(locked)
        if locked.kind == Alert.Kind.HARD:
            alert_id = locked.pk
            transaction.on_commit(lambda: _stop_countdown_timer(alert_id), robust=True)
    return locked


def _conversation_status(alert: Alert, conversation_kind: str) -> str | None:
    event = AlertEvent.objects.filter(
        alert=alert, kind="agent_conversation", data__conversation_kind=conversation_kind
    ).first()
    if event is None:
        return None
    return sos_flows().status(event.data["conversation"])


def _run_start(alert: Alert) -> str | None:
    """Run (or resume, or find finished) the start flow; return its conversation's status."""
    run = sos_flows().run(alert.pk, flows.HARD_SOS_START)
    if run.finished and not alert.events.filter(kind="start_finished").exists():
        _event(
            alert,
            "start_finished",
            "Emergency start sequence finished."
            if run.status == "completed"
            else "Emergency start sequence finished with errors: see the conversation.",
            conversation=run.conversation_id,
            status=run.status,
        )
    return run.status


def open_after_countdown(alert_id: int) -> bool:
    """Once the countdown is over, open the hard SOS and run the start flow.

    Returns whether the start flow ran. Does nothing for an alert still
    counting down (the task ran early, or eagerly), cancelled or resolved;
    for an open alert it resumes a start flow that did not finish.
    """
    with transaction.atomic():
        alert = Alert.objects.select_for_update().get(pk=alert_id)
        if alert.kind != Alert.Kind.HARD:
            return False
        if alert.state == Alert.State.COUNTDOWN:
            if alert.countdown_ends_at is not None and timezone.now() < alert.countdown_ends_at:
                return False
            alert.state = Alert.State.OPEN
            alert.save(update_fields=["state"])
            _event(alert, "opened", "Countdown over: alerting the ambulance and your emergency contacts.")
            push_alert(alert)
        elif alert.state != Alert.State.OPEN:
            return False
    _run_start(alert)
    return True


def stalled_run_after() -> dt.timedelta:
    """How long a start flow may go without writing a step before the sweep resumes it: longer
    than one model call may take (``AGENT_CALL_TIMEOUT_SECONDS``) plus the closing message's wait
    for the SMS outcomes, so a live run is not raced (a race is harmless: steps are unique, the
    second runner stops), but a run whose worker died does not wait for the broker's redelivery."""
    return dt.timedelta(seconds=float(getattr(settings, "AGENT_CALL_TIMEOUT_SECONDS", 60)) + 20)


def overdue_alert_ids(now: dt.datetime | None = None) -> list[int]:
    """Hard SOS alerts whose countdown is over but that were not opened, open
    ones whose start flow never began (a lost task), and open ones whose start
    flow stopped half way (its worker died): the sweep's work."""
    now = now or timezone.now()
    overdue = Alert.objects.filter(kind=Alert.Kind.HARD, state=Alert.State.COUNTDOWN, countdown_ends_at__lte=now)
    open_alerts = Alert.objects.filter(
        kind=Alert.Kind.HARD, state=Alert.State.OPEN, countdown_ends_at__lte=now - STALLED_START_AFTER
    ).exclude(events__kind="end_requested")
    never_began = open_alerts.exclude(
        events__kind="agent_conversation", events__data__conversation_kind=START_KIND
    ).values_list("pk", flat=True)
    starts = _runs(open_alerts, START_KIND)
    half_done = [starts[pk] for pk in sos_flows().quiet_runs(list(starts), now - stalled_run_after())]
    return sorted({*overdue.values_list("pk", flat=True), *never_began, *half_done})


def stalled_end_alert_ids(now: dt.datetime | None = None) -> list[int]:
    """Hard SOS alerts whose end the patient asked for but whose end flow nobody is running: the
    task was lost (Redis restarted empty, or was down when the patient pressed "end"). Without
    this the page would say "telling the ambulance and your contacts" for ever, and they would
    never be told. An end asked for longer ago than a live run may go quiet is the sweep's to
    enqueue again unless a flow of the alert is alive: its end flow, or its start flow (the end
    waits for it, ``StartInProgress``), still writing steps. A second end task beside a live one
    is harmless (``finish_end`` is idempotent: the flows' steps are unique, the outbox sends each
    message once, the alert is resolved under its row lock)."""
    now = now or timezone.now()
    since = now - stalled_run_after()
    ending = Alert.objects.filter(
        kind=Alert.Kind.HARD,
        state__in=(Alert.State.OPEN, Alert.State.ACKNOWLEDGED),
        events__kind="end_requested",
        events__created_at__lt=since,
    ).distinct()
    alive = _alive_runs(ending, flows.HARD_SOS_END, since) | _alive_runs(ending, START_KIND, since)
    return sorted(set(ending.values_list("pk", flat=True)) - alive)


def _alive_runs(alerts, kind: str, since: dt.datetime) -> set[int]:
    """Those of ``alerts`` whose flow of ``kind`` is running and has written a step since ``since``."""
    runs = _runs(alerts, kind)
    registry = sos_flows()
    quiet = set(registry.quiet_runs(list(runs), since))
    return {runs[pk] for pk in runs if pk not in quiet and registry.status(pk) == "running"}


def _runs(alerts, kind: str) -> dict[int, int]:
    """The conversation of each of ``alerts``' flows of ``kind`` -> its alert, from the alerts' timelines."""
    events = AlertEvent.objects.filter(alert__in=alerts, kind="agent_conversation", data__conversation_kind=kind)
    return dict(events.values_list("data__conversation", "alert_id"))


def request_end(alert: Alert, reason: str = "") -> Alert:
    """The user ends their hard SOS, saying why (``Alert.EndReason``).

    During the countdown this is a cancel (nothing was sent, no reason
    needed). Once open, the reason is recorded and the end flow runs in a task
    after the start flow has finished; its messages say that reason, once to
    each recipient. Ending a resolved or cancelled SOS changes nothing.
    """
    from health.tasks import end_hard_sos  # see _tasks_run_eagerly

    with transaction.atomic():
        locked = Alert.objects.select_for_update().get(pk=alert.pk)
        if locked.kind != Alert.Kind.HARD:
            raise SosRefused("Only a hard SOS can be ended; acknowledge or cancel a soft SOS.")
        if locked.state == Alert.State.COUNTDOWN:
            return cancel(locked)
        if not locked.is_active:
            return locked
        if not locked.end_reason:
            if reason not in Alert.EndReason.values:
                choices = ", ".join(f"{value} ({label})" for value, label in Alert.EndReason.choices)
                raise EndReasonMissing(f"Say why the SOS is ending, one of: {choices}.")
            locked.end_reason = reason
            locked.save(update_fields=["end_reason"])
        if not locked.events.filter(kind="end_requested").exists():
            _event(
                locked,
                "end_requested",
                f"Ending the SOS ({locked.get_end_reason_display()}): telling the ambulance and your contacts.",
                reason=locked.end_reason,
            )
            push_alert(locked)
        alert_id = locked.pk
        transaction.on_commit(lambda: end_hard_sos.delay(alert_id), robust=True)
    return locked


def ended_as_false_alarm(alert: Alert) -> bool:
    """Whether the patient ended this hard SOS saying it was a false alarm."""
    return alert.kind == Alert.Kind.HARD and alert.end_reason == Alert.EndReason.FALSE_ALARM


def finish_end(alert_id: int) -> bool:
    """Run the end flow for an alert whose end was requested, then release its
    ambulance and resolve it. Returns whether the alert is resolved.

    The start flow runs (or is resumed) first, so no ambulance can be
    dispatched after the end; raises ``StartInProgress`` while another worker
    is still running it.
    """
    alert = Alert.objects.select_related("user").get(pk=alert_id)
    if alert.kind != Alert.Kind.HARD:
        return False
    if alert.state == Alert.State.RESOLVED:
        return True
    if alert.state not in (Alert.State.OPEN, Alert.State.ACKNOWLEDGED):
        return False
    if _conversation_status(alert, START_KIND) in (None, *flows.UNFINISHED):
        if _run_start(alert) in flows.UNFINISHED:
            raise StartInProgress(f"alert {alert_id}: the start flow is still running")
    sos_flows().run(alert_id, flows.HARD_SOS_END)
    now = timezone.now()
    with transaction.atomic():
        locked = Alert.objects.select_for_update().select_related("user").get(pk=alert_id)
        if locked.state == Alert.State.RESOLVED:
            return True
        if ended_as_false_alarm(locked) and not locked.events.filter(kind="false_alarm").exists():
            # The end flow's messages said so; this is the timeline's record.
            _event(locked, "false_alarm", "The patient said it was a false alarm; the end messages said so.")
        for dispatch in Dispatch.objects.select_for_update().filter(alert=locked, released_at__isnull=True):
            dispatch.released_at = now
            dispatch.save(update_fields=["released_at"])
            Ambulance.objects.filter(pk=dispatch.ambulance_id).update(available=True)
            _event(
                locked,
                "ambulance_released",
                f"Ambulance {dispatch.ambulance.code} released.",
                ambulance=dispatch.ambulance.code,
            )
        locked.state = Alert.State.RESOLVED
        locked.resolved_at = now
        locked.save(update_fields=["state", "resolved_at"])
        _event(locked, "resolved", "SOS ended.")
        push_alert(locked)
    return True
