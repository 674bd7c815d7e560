"""Medication reminders that fire: beat runs ``dispatch_due_doses`` every minute
(``health.scheduler.beat``), and every tick brings each dose one step further, from its recorded state.

The rules:

1. **When a dose is due.** Each enabled reminder of an active medication is due at its clock time in
   the patient's time zone (``PatientProfile.timezone``, read at every tick, so a changed zone takes
   effect at once), on every local day from the medication's start date to its end date. Times are
   resolved with ``zoneinfo``: a local time that does not exist on a spring-forward day (02:30 in New
   York) falls due the length of the gap later (03:30 EDT), and one that happens twice on a fall-back
   day (01:30) is due at its first occurrence, once. A reminder owes one dose per local day
   (``DoseEvent.due_on``), so moving to another zone never repeats a day's dose.
2. **Creating dose events.** ``Reminder.checked_until`` marks how far each reminder has been
   dispatched; a tick creates a ``DoseEvent`` for every due time after the mark up to now and moves
   the mark. A new, re-enabled or resumed reminder starts its mark at that moment, so nothing is owed
   from before it was on. The database's unique constraints (reminder + due time, reminder + day)
   make a dose exist once however many ticks create it.
3. **Reminding.** A dose that is due gets one in-app notification (pushed as ``notification`` and
   ``dose`` events over the websocket) and, when the patient opted in (``reminder_sms``) and has a
   phone number, one SMS through the outbox (``health.messaging.outbox``, which records "not sent"
   when no SMS provider is configured). ``DoseEvent.late`` is set when it goes out more than
   ``DOSE_LATE_AFTER_MINUTES`` after the due time: the app was not running then.
4. **Downtime.** Because of rules 2 and 3, the first tick after any process was down finds every
   dose that fell due meanwhile. A dose due no more than ``DOSE_CATCH_UP_HOURS`` ago is reminded
   once, marked late. An older one, or one overtaken by a later dose of the same medication that is
   also due (two doses of a medicine are never reminded together), is recorded missed without any
   reminder (``sent_at`` stays empty, which is how the record says so) and tells nobody. So is a
   dose reminded or snoozed before the downtime whose latest reminder or snooze end is older than
   the horizon: no re-alert, no carer text, about something that long ago.
5. **Snooze.** A snoozed dose is reminded again at ``snoozed_until``: once per snooze (a further
   snooze asks for another). Snoozing stops the re-alert and missed clocks until then.
6. **Not acted on.** A dose reminded ``DOSE_REALERT_AFTER_MINUTES`` ago and not taken, skipped or
   snoozed is re-alerted once ("Still not taken", also by SMS when opted in). It becomes **missed**
   ``DOSE_MISSED_AFTER_MINUTES`` after its latest reminder, and never sooner than the gap between
   the two settings after its re-alert, so the patient always gets that long to answer the re-alert.
   Then, when the patient opted in (``tell_carer_of_missed_doses``), each emergency contact marked as
   carer gets one SMS. The patient can still record the dose as taken or skipped afterwards.
7. **Exactly once.** Each step is a conditional update of the dose's state (``DoseEvent.mark_*``)
   in the same transaction as the notification and the outbox rows it causes; of two ticks running
   at once (two beats, a redelivered task) only the one whose update changed the row sends anything,
   and a tick that dies mid-way rolls back whole, to be done by the next one. SMS carry idempotency
   keys per dose and step, and websocket pushes happen after commit.

A stopped (inactive) medication is left alone: no new doses, and its open ones are neither reminded,
re-alerted nor marked missed.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
import zoneinfo
from collections.abc import Iterator

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.template.loader import render_to_string
from django.utils import timezone

from core.events import Event
from core.realtime import push_to_user
from health.messaging.outbox import queue_sms
from health.models import DoseEvent, EmergencyContact, Medication, Notification, OutboundMessage, Reminder
from health.models.appointments import patient_zone

log = logging.getLogger(__name__)
S = DoseEvent.State


def _minutes(name: str, default: int) -> dt.timedelta:
    return dt.timedelta(minutes=getattr(settings, name, default))


def realert_after() -> dt.timedelta:
    return _minutes("DOSE_REALERT_AFTER_MINUTES", 30)


def missed_after() -> dt.timedelta:
    return _minutes("DOSE_MISSED_AFTER_MINUTES", 60)


def late_after() -> dt.timedelta:
    return _minutes("DOSE_LATE_AFTER_MINUTES", 5)


def catch_up() -> dt.timedelta:
    return dt.timedelta(hours=getattr(settings, "DOSE_CATCH_UP_HOURS", 12))


@dataclasses.dataclass
class Dispatched:
    """What one tick did (the task returns the sum of the counts)."""

    created: int = 0
    sent: int = 0
    resent: int = 0
    realerted: int = 0
    missed: int = 0
    missed_quietly: int = 0
    carers_told: int = 0

    @property
    def total(self) -> int:
        return sum(dataclasses.astuple(self))


# --- when doses are due -----------------------------------------------------------------


def local_due_time(day: dt.date, time_of_day: dt.time, zone: zoneinfo.ZoneInfo) -> dt.datetime:
    """The instant (UTC) of ``time_of_day`` on the local ``day`` in ``zone``.

    ``fold=0``: a time skipped by spring-forward is read with the offset before the change, which
    lands the gap's length later (02:30 -> 03:30); a time repeated by fall-back is its first
    occurrence."""
    return dt.datetime.combine(day, time_of_day, tzinfo=zone).astimezone(dt.UTC)


def due_times(
    reminder: Reminder, zone: zoneinfo.ZoneInfo, after: dt.datetime, upto: dt.datetime
) -> Iterator[tuple[dt.date, dt.datetime]]:
    """``(local day, instant)`` of each of the reminder's doses due in ``(after, upto]`` within the
    medication's dates, oldest first."""
    medication = reminder.medication
    day = after.astimezone(zone).date() - dt.timedelta(days=1)
    last = upto.astimezone(zone).date()
    while day <= last:
        if day >= medication.start_date and (medication.end_date is None or day <= medication.end_date):
            instant = local_due_time(day, reminder.time_of_day, zone)
            if after < instant <= upto:
                yield day, instant
        day += dt.timedelta(days=1)


def create_due_doses(now: dt.datetime) -> tuple[int, int]:
    """Rule 2: a dose event for every due time since each reminder's mark; doses already too old to
    remind (rule 4) are created missed. Returns ``(created due, created missed)``, as attempted:
    rows another tick made first are skipped by the database."""
    reminders = list(
        Reminder.objects.filter(enabled=True, medication__active=True, checked_until__lt=now).select_related(
            "medication__user__profile"
        )
    )
    rows: list[DoseEvent] = []
    oldest = now - catch_up()
    for reminder in reminders:
        zone = patient_zone(reminder.medication.user)
        for day, instant in due_times(reminder, zone, reminder.checked_until, now):
            too_old = instant < oldest
            rows.append(
                DoseEvent(
                    user_id=reminder.medication.user_id,
                    reminder=reminder,
                    due_at=instant,
                    due_on=day,
                    state=S.MISSED if too_old else S.DUE,
                    missed_at=now if too_old else None,
                )
            )
    with transaction.atomic():
        DoseEvent.objects.bulk_create(rows, ignore_conflicts=True)
        Reminder.objects.filter(pk__in=[r.pk for r in reminders], checked_until__lt=now).update(checked_until=now)
    missed = sum(row.state == S.MISSED for row in rows)
    return len(rows) - missed, missed


# --- texts ------------------------------------------------------------------------------


def _when(instant: dt.datetime, zone: zoneinfo.ZoneInfo, now: dt.datetime) -> str:
    local = instant.astimezone(zone)
    if local.date() == now.astimezone(zone).date():
        return f"{local:%H:%M}"
    return f"{local:%H:%M} on {local:%a} {local.day} {local:%b}"


def _context(dose: DoseEvent, kind: str, now: dt.datetime) -> dict[str, object]:
    medication = dose.reminder.medication
    zone = patient_zone(medication.user)
    food = "" if medication.food_timing == Medication.FoodTiming.ANY else medication.get_food_timing_display().lower()
    return {
        "kind": kind,
        "medication": str(medication),
        "dose": medication.dose,
        "food": food,
        "instructions": medication.instructions,
        "due_time": _when(dose.due_at, zone, now),
        "missed_after": int(missed_after().total_seconds() // 60),
        "patient": medication.user.get_full_name() or medication.user.get_username(),
    }


def _render(name: str, context: dict[str, object]) -> str:
    return render_to_string(f"health/doses/{name}", context).strip()


def _push(dose: DoseEvent, notification: Notification | None = None) -> None:
    """After commit: the dose's new state, and the notification when there is one."""
    dose_payload = {
        "id": dose.pk,
        "medication": dose.reminder.medication_id,
        "state": dose.state,
        "due_at": dose.due_at.isoformat(),
    }
    user_id = dose.user_id

    def push() -> None:
        if notification is not None:
            push_to_user(
                user_id,
                Event.NOTIFICATION,
                {
                    "id": notification.pk,
                    "kind": notification.kind,
                    "level": notification.level,
                    "title": notification.title,
                    "body": notification.body,
                },
            )
        push_to_user(user_id, Event.DOSE, dose_payload)

    transaction.on_commit(push, robust=True)


def _notify(dose: DoseEvent, kind: str, now: dt.datetime, *, step: str) -> Notification:
    """The patient's notification for this step and, when opted in, the same text by SMS."""
    context = _context(dose, kind, now)
    title, body = _render("notification_title.txt", context), _render("notification_body.txt", context)
    level = Notification.Level.WARNING if kind in ("realert", "missed") else Notification.Level.INFO
    actions = [] if kind == "missed" else ["taken", "snooze", "skip"]
    notification = Notification.objects.create(
        user_id=dose.user_id,
        kind="dose",
        level=level,
        title=title,
        body=body,
        data={
            "dose": dose.pk,
            "medication": dose.reminder.medication_id,
            "due_at": dose.due_at.isoformat(),
            "step": step,
            "actions": actions,
        },
    )
    profile = getattr(dose.reminder.medication.user, "profile", None)
    if kind != "missed" and profile is not None and profile.reminder_sms and profile.phone:
        queue_sms(
            user=dose.reminder.medication.user,
            recipient=profile.phone,
            recipient_kind=OutboundMessage.RecipientKind.PATIENT,
            recipient_name=context["patient"],
            body=_render("patient_sms.txt", {**context, "title": title, "body": body}),
            idempotency_key=f"dose:{dose.pk}:{step}",
        )
    _push(dose, notification)
    return notification


def _tell_carers(dose: DoseEvent, now: dt.datetime) -> int:
    """Rule 6: one SMS to each carer of a patient who opted in; returns how many were queued."""
    user = dose.reminder.medication.user
    profile = getattr(user, "profile", None)
    if profile is None or not profile.tell_carer_of_missed_doses:
        return 0
    carers = list(EmergencyContact.objects.filter(user=user, is_carer=True))
    if not carers or not dose.mark_carer_notified(now):
        return 0
    body = _render("carer_sms.txt", _context(dose, "missed", now))
    for carer in carers:
        queue_sms(
            user=user,
            recipient=carer.phone,
            recipient_kind=OutboundMessage.RecipientKind.EMERGENCY_CONTACT,
            recipient_name=carer.name,
            body=body,
            idempotency_key=f"dose:{dose.pk}:carer:{carer.pk}",
        )
    return len(carers)


# --- the steps ----------------------------------------------------------------------------


def _open_doses(condition: Q) -> list[DoseEvent]:
    return list(
        DoseEvent.objects.filter(condition, reminder__medication__active=True)
        .select_related("reminder__medication__user__profile")
        .order_by("due_at", "pk")
    )


def _record_missed_quietly(dose: DoseEvent, now: dt.datetime) -> bool:
    with transaction.atomic():
        if not dose.mark_missed(now):
            return False
        _push(dose)
    return True


def expire_stale(now: dt.datetime, result: Dispatched) -> None:
    """Rule 4: an open dose whose due time, snooze or latest reminder is older than the catch-up
    horizon (the app was down) is recorded missed, with no reminder, re-alert or carer text."""
    oldest = now - catch_up()
    stale = (
        Q(state=S.DUE, due_at__lt=oldest)
        | Q(state=S.SNOOZED, snoozed_until__lt=oldest)
        | Q(state=S.SENT, sent_at__lt=oldest)
    )
    for dose in _open_doses(stale):
        result.missed_quietly += _record_missed_quietly(dose, now)


def send_due(now: dt.datetime, result: Dispatched) -> None:
    """Rules 3 and 4: remind every dose that is due and not yet reminded."""
    doses = _open_doses(Q(state=S.DUE, due_at__lte=now))
    # The latest due time of each medication among the doses due now: an older late one is overtaken.
    latest: dict[int, dt.datetime] = {}
    for dose in doses:
        medication_id = dose.reminder.medication_id
        latest[medication_id] = max(latest.get(medication_id, dose.due_at), dose.due_at)
    for dose in doses:
        late = now - dose.due_at > late_after()
        overtaken = late and dose.due_at < latest[dose.reminder.medication_id]
        if overtaken:
            result.missed_quietly += _record_missed_quietly(dose, now)
            continue
        with transaction.atomic():
            if not dose.mark_sent(now, late=late):
                continue
            _notify(dose, "late" if late else "reminder", now, step="reminder")
        result.sent += 1


def resend_snoozed(now: dt.datetime, result: Dispatched) -> None:
    """Rule 5: a snooze that is over reminds again, once."""
    for dose in _open_doses(Q(state=S.SNOOZED, snoozed_until__lte=now)):
        snoozed_until = dose.snoozed_until
        with transaction.atomic():
            if not dose.mark_resent(now):
                continue
            # One key per snooze: the snooze's end time tells them apart.
            _notify(dose, "snoozed", now, step=f"snooze:{snoozed_until:%Y%m%dT%H%M%S}")
        result.resent += 1


def realert_unanswered(now: dt.datetime, result: Dispatched) -> None:
    """Rule 6, first half: "Still not taken", once per dose."""
    for dose in _open_doses(Q(state=S.SENT, realerted_at__isnull=True, sent_at__lte=now - realert_after())):
        with transaction.atomic():
            if not dose.mark_realerted(now):
                continue
            _notify(dose, "realert", now, step="realert")
        result.realerted += 1


def mark_unanswered_missed(now: dt.datetime, result: Dispatched) -> None:
    """Rule 6, second half: missed, and the carers told when the patient opted in."""
    answer_window = max(missed_after() - realert_after(), dt.timedelta())
    condition = Q(state=S.SENT, sent_at__lte=now - missed_after(), realerted_at__lte=now - answer_window)
    for dose in _open_doses(condition):
        with transaction.atomic():
            if not dose.mark_missed(now):
                continue
            _notify(dose, "missed", now, step="missed")
            result.carers_told += _tell_carers(dose, now)
        result.missed += 1


def dispatch_due_doses(now: dt.datetime | None = None) -> Dispatched:
    """One tick: create the doses that fell due, remind them, re-send snoozed ones, re-alert and mark
    missed (module docstring); safe to run twice at once or again after a crash."""
    now = now or timezone.now()
    result = Dispatched()
    result.created, result.missed_quietly = create_due_doses(now)
    expire_stale(now, result)
    send_due(now, result)
    resend_snoozed(now, result)
    realert_unanswered(now, result)
    mark_unanswered_missed(now, result)
    if result.total:
        log.info("dose dispatch: %s", dataclasses.asdict(result))
    return result
