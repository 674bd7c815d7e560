"""State changes the API performs on rows the models own but offer no method
for yet. Each takes model instances that the caller has already authorised,
locks the row it changes, and refuses a change the current state does not
allow with ``RefusedTransition`` (409 at the API).

They belong on the models (``Alert.acknowledge()``, ``DoseEvent.mark_taken()``,
...); they live here only because the models are owned elsewhere.
"""

from __future__ import annotations

import datetime as dt

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from health import sos
from health.api.base import RefusedTransition
from health.models import Alert, AlertEvent, Device, DoseEvent, Notification

# --- Devices -------------------------------------------------------------------


def revoke_device(device: Device) -> Device:
    """Make the device's token stop working from now on; the device row, and
    the readings it sent, stay. Revoking twice keeps the first revocation time."""
    with transaction.atomic():
        locked = Device.objects.select_for_update().get(pk=device.pk)
        if locked.revoked_at is None:
            locked.revoked_at = timezone.now()
            locked.save(update_fields=["revoked_at"])
    return locked


# --- Alerts --------------------------------------------------------------------
# Only the changes that are pure bookkeeping are offered: a soft SOS only ever
# alerted the patient, and a hard SOS still counting down has sent nothing, so
# acknowledging or cancelling them changes state and timeline and nothing else.
# Ending a hard SOS that went out (contacts messaged, ambulance dispatched) is
# the SOS flow's job, not this module's.


def acknowledge_alert(alert: Alert) -> Alert:
    """Mark an open soft SOS as seen by the patient (stamped, on the timeline)."""
    with transaction.atomic():
        locked = Alert.objects.select_for_update().get(pk=alert.pk)
        if locked.kind != Alert.Kind.SOFT:
            raise RefusedTransition("Only a soft SOS can be acknowledged here.")
        if locked.state != Alert.State.OPEN:
            raise RefusedTransition(f"Cannot acknowledge an alert that is {locked.state}.")
        locked.state = Alert.State.ACKNOWLEDGED
        locked.acknowledged_at = timezone.now()
        locked.save(update_fields=["state", "acknowledged_at"])
        AlertEvent.objects.create(alert=locked, kind="acknowledged", message="Acknowledged by the patient.")
    return locked


def cancel_alert(alert: Alert) -> Alert:
    """Cancel a soft SOS that is still active, or a hard SOS during its countdown
    (``health.sos.cancel``: nothing was sent, so nothing needs taking back)."""
    try:
        return sos.cancel(alert)
    except sos.SosRefused as exc:
        raise RefusedTransition(str(exc)) from exc


# --- Notifications ---------------------------------------------------------------


def mark_notification_read(notification: Notification) -> Notification:
    """Stamp the notification as read; reading it again keeps the first time."""
    if notification.read_at is None:
        now = timezone.now()
        # A conditional update: two tabs marking it at once stamp it once.
        Notification.objects.filter(pk=notification.pk, read_at__isnull=True).update(read_at=now)
        notification.refresh_from_db(fields=["read_at"])
    return notification


def mark_all_notifications_read(notifications: QuerySet[Notification]) -> int:
    """Stamp every unread notification of ``notifications`` as read; return how many."""
    return notifications.filter(read_at__isnull=True).update(read_at=timezone.now())


# --- Dose events -----------------------------------------------------------------

TAKEABLE_STATES = (DoseEvent.State.DUE, DoseEvent.State.SENT, DoseEvent.State.SNOOZED, DoseEvent.State.MISSED)
SNOOZABLE_STATES = (DoseEvent.State.DUE, DoseEvent.State.SENT, DoseEvent.State.SNOOZED)


def mark_dose_taken(dose: DoseEvent) -> DoseEvent:
    """Record that the patient took the dose (also late, after it was marked missed:
    the record should say what happened)."""
    with transaction.atomic():
        locked = DoseEvent.objects.select_for_update().get(pk=dose.pk)
        if locked.state not in TAKEABLE_STATES:
            raise RefusedTransition(f"This dose is already {locked.state}.")
        locked.state = DoseEvent.State.TAKEN
        locked.acted_at = timezone.now()
        locked.snoozed_until = None
        locked.save(update_fields=["state", "acted_at", "snoozed_until"])
    return locked


def snooze_dose(dose: DoseEvent, *, minutes: int) -> DoseEvent:
    """Postpone the reminder of a dose that is not taken or missed by ``minutes``."""
    with transaction.atomic():
        locked = DoseEvent.objects.select_for_update().get(pk=dose.pk)
        if locked.state not in SNOOZABLE_STATES:
            raise RefusedTransition(f"Cannot snooze a dose that is {locked.state}.")
        now = timezone.now()
        locked.state = DoseEvent.State.SNOOZED
        locked.acted_at = now
        locked.snoozed_until = now + dt.timedelta(minutes=minutes)
        locked.save(update_fields=["state", "acted_at", "snoozed_until"])
    return locked
