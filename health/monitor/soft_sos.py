"""Raising and clearing a soft SOS: the alert, the user's notification, the agent's flow.

The notification is written at once, in the ingesting request, so the user
hears about abnormal vitals within the same round trip; the Action Manager's
soft SOS flow (seed paper D.4, ``agents.services.run_soft_sos``) runs in a
Celery task after commit and adds its message to the chat.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from frontend.realtime import push_to_user
from health.models import Alert, AlertEvent, Notification
from health.monitor.rules import Rule
from health.sos import push_alert

_UNITS = {"heart_rate": " bpm", "spo2": " %", "systolic_bp": " mmHg", "diastolic_bp": " mmHg"}
_NAMES = {"heart_rate": "Heart rate", "spo2": "SpO2", "systolic_bp": "Systolic BP", "diastolic_bp": "Diastolic BP"}


def vitals_report(snapshot: dict[str, Any]) -> str:
    """One line per vital of the snapshot, e.g. ``SpO2: 86 %``."""
    return "\n".join(f"{_NAMES.get(k, k)}: {v:g}{_UNITS.get(k, '')}" for k, v in snapshot.items())


def recommendations(rule: Rule) -> list[str]:
    return [
        rule.advice,
        f"If it stays like this, book an appointment with a {rule.specialist}.",
        "If you have chest pain, trouble breathing, fainting or confusion, call emergency services or press SOS now.",
    ]


def raise_soft_sos(
    *, user_id: int, rule: Rule, snapshot: dict[str, Any], measured_at: dt.datetime, seconds: float, readings: int
) -> Alert | None:
    """Open a soft SOS for ``rule``'s condition and notify the user; None when
    one is already active for that condition (the database's constraint decides)."""
    summary = f"{rule.label} for {seconds:.0f} s ({readings} readings)."
    try:
        with transaction.atomic():
            alert = Alert.objects.create(
                user_id=user_id,
                kind=Alert.Kind.SOFT,
                state=Alert.State.OPEN,
                condition=rule.condition,
                summary=summary,
                vitals_snapshot=snapshot,
            )
    except IntegrityError:
        return None
    levels = {limit.metric: rule.levels.get(limit.metric, (limit.trigger, limit.clear)) for limit in rule.limits}
    AlertEvent.objects.create(
        alert=alert,
        kind="raised",
        message=f"Raised by the vitals monitor: {summary}"[:255],
        data={"measured_at": measured_at.isoformat(), "levels": levels, "readings": readings},
    )
    advice = recommendations(rule)
    body = "\n".join([summary, "", vitals_report(snapshot), "", *[f"- {line}" for line in advice]])
    notification = Notification.objects.create(
        user_id=user_id,
        kind="alert",
        level=Notification.Level.WARNING,
        title=f"Soft SOS: {rule.label.lower()}",
        body=body,
        data={"alert": alert.pk, "condition": rule.condition, "actions": ["acknowledge", "escalate"]},
    )
    push_alert(alert)
    payload = {
        "id": notification.pk,
        "kind": notification.kind,
        "level": notification.level,
        "title": notification.title,
        "body": body,
    }
    transaction.on_commit(lambda: push_to_user(user_id, "notification", payload), robust=True)

    def run_agent_flow() -> None:
        from health.tasks import soft_sos

        soft_sos.delay(alert.pk)

    transaction.on_commit(run_agent_flow, robust=True)
    return alert


def clear_episode(alert: Alert, *, measured_at: dt.datetime) -> None:
    """The vitals are back in range: end the episode, resolving its alert if still active."""
    with transaction.atomic():
        locked = Alert.objects.select_for_update().get(pk=alert.pk)
        if locked.events.filter(kind="cleared").exists():
            return
        if locked.is_active:
            locked.state = Alert.State.RESOLVED
            locked.resolved_at = timezone.now()
            locked.save(update_fields=["state", "resolved_at"])
            push_alert(locked)
        AlertEvent.objects.create(
            alert=locked,
            kind="cleared",
            message="Vitals back in the normal range.",
            data={"measured_at": measured_at.isoformat()},
        )
