"""Raising and clearing a soft SOS: the alert, the user's notification, the agent's flow.

The notification is written at once, in the ingesting request, so the user
hears about abnormal vitals within the same round trip; the Action Manager's
soft SOS flow (seed paper D.4, ``agents.sos.flows.run_soft_sos``) runs in a
Celery task after commit and shows the same text in the chat: its notify_user
step finds this notification and sends no second one (``soft_sos_notice`` is
the one wording of both).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.utils import timezone

from core.events import Event
from core.realtime import push_to_user
from health.models import Alert, AlertEvent, Notification
from health.monitor.rules import RULES_BY_CONDITION, Rule
from health.sos.hard import push_alert

# Each vital as the patient reads it: name and unit. "oxygen" is the seed paper's name for SpO2.
_VITALS = {
    "spo2": ("SpO₂", "%"),
    "oxygen": ("SpO₂", "%"),
    "heart_rate": ("Heart rate", "bpm"),
    "systolic_bp": ("Systolic blood pressure", "mmHg"),
    "diastolic_bp": ("Diastolic blood pressure", "mmHg"),
}
_SLEEP = {"deep": "Deep sleep", "light": "Light sleep", "rem": "REM sleep", "awake": "Awake"}


@dataclass(frozen=True)
class Notice:
    """What the patient is told about a soft SOS: one wording, wherever it is shown."""

    title: str
    body: str
    vitals: tuple[str, ...] = ()  # the report's vitals lines, for the banner
    advice: str = ""  # what to do first, for the banner


def _number(value: Any) -> str:
    return f"{value:g}" if isinstance(value, int | float) else str(value)


def vitals_report(snapshot: dict[str, Any]) -> list[str]:
    """One line per vital of the snapshot with its unit, e.g. ``SpO₂: 86 %``; blood pressure
    as one ``Blood pressure: 188/124 mmHg`` line when both values are there; sleep stages last."""
    snapshot = dict(snapshot or {})
    lines: list[str] = []
    if "systolic_bp" in snapshot and "diastolic_bp" in snapshot:
        systolic, diastolic = snapshot.pop("systolic_bp"), snapshot.pop("diastolic_bp")
        pressure = f"Blood pressure: {_number(systolic)}/{_number(diastolic)} mmHg"
    else:
        pressure = None
    order = list(_VITALS)
    for key in sorted(snapshot, key=lambda k: (order.index(k) if k in order else len(order), k)):
        value = snapshot[key]
        if isinstance(value, dict):
            continue
        name, unit = _VITALS.get(key, (key.replace("_", " ").capitalize(), ""))
        lines.append(f"{name}: {_number(value)}{f' {unit}' if unit else ''}")
    if pressure:
        lines.append(pressure)
    for value in snapshot.values():
        if isinstance(value, dict):
            # A fixed order: PostgreSQL's jsonb does not keep the keys' order.
            stages = sorted(value, key=lambda k: (list(_SLEEP).index(k) if k in _SLEEP else len(_SLEEP), k))
            lines += [f"{_SLEEP.get(stage, stage.capitalize())}: {_number(value[stage])} minutes" for stage in stages]
    return lines


def soft_sos_notice(alert: Alert | None) -> Notice:
    """The soft SOS notification, from the alert as recorded: the monitor's notification and
    the Action Manager's soft SOS flow (``agents.sos.guard.soft_sos_text``) both send this text."""
    rule = RULES_BY_CONDITION.get(alert.condition) if alert is not None else None
    context = {
        "name": rule.label if rule else "Abnormal vitals",
        "summary": (alert.summary if alert is not None else "") or "Abnormal vitals were detected.",
        "vitals": vitals_report(alert.vitals_snapshot if alert is not None else {}),
        "advice": rule.advice if rule else "Sit or lie down, rest and re-measure.",
        "specialist": rule.specialist if rule else "general physician",
    }
    title = render_to_string("health/sos/soft_title.txt", context).strip()
    body = render_to_string("health/sos/soft_body.txt", context).strip()
    return Notice(title=title, body=body, vitals=tuple(context["vitals"]), advice=context["advice"])


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
    levels = {limit.metric: rule.levels_of(limit) for limit in rule.limits}
    AlertEvent.objects.create(
        alert=alert,
        kind="raised",
        message=f"Raised by the vitals monitor: {summary}"[:255],
        data={"measured_at": measured_at.isoformat(), "levels": levels, "readings": readings},
    )
    notice = soft_sos_notice(alert)
    notification = Notification.objects.create(
        user_id=user_id,
        kind="alert",
        level=Notification.Level.WARNING,
        title=notice.title,
        body=notice.body,
        data={"alert": alert.pk, "condition": rule.condition, "actions": ["acknowledge", "escalate"]},
    )
    push_alert(alert)
    payload = {
        "id": notification.pk,
        "kind": notification.kind,
        "level": notification.level,
        "title": notification.title,
        "body": notice.body,
    }
    transaction.on_commit(lambda: push_to_user(user_id, Event.NOTIFICATION, payload), robust=True)

    def run_agent_flow() -> None:
        from health.tasks import soft_sos  # health.tasks imports the monitor's services: deferred

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
