"""Where each (user, condition) stands: in an episode or armed for a new one.

The state is read from the alerts themselves, so it survives restarts and is
the same in every process. An episode starts when the monitor raises a soft
SOS (its "raised" event holds the measured time of the reading that
triggered it) and ends when the monitor sees the vitals recover (a "cleared"
event). Closing the alert by hand (acknowledge, cancel, escalate) does not
end the episode: the same abnormality must not raise a new alert a second
later. An episode nobody cleared expires after ``EPISODE_EXPIRES`` of
measured time, so a watch that stopped sending does not silence a condition
forever.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db.models import Max
from django.utils.dateparse import parse_datetime

from health.models import Alert, AlertEvent

EPISODE_EXPIRES = dt.timedelta(hours=6)


@dataclass(frozen=True)
class Episode:
    """``alert`` is the episode's soft SOS (None when armed); readings measured
    at or before ``since`` were already judged."""

    alert: Alert | None
    active: bool
    since: dt.datetime | None


def _measured(event: AlertEvent | None) -> dt.datetime | None:
    if event is None or "measured_at" not in event.data:
        return None
    return parse_datetime(event.data["measured_at"])


def episode(user_id: int, condition: str, now: dt.datetime) -> Episode:
    """The current episode of ``condition`` for the user, judged at measured time ``now``."""
    return episodes(user_id, [condition], now)[condition]


def episodes(user_id: int, conditions: list[str], now: dt.datetime) -> dict[str, Episode]:
    """``episode`` for each of ``conditions`` at once: one query when the user
    has no soft SOS of these conditions, three otherwise (not two per condition).
    The latest alert of a condition is its episode's; of its events, the last
    "raised" and the last "cleared" count."""
    latest = (
        Alert.objects.filter(user_id=user_id, kind=Alert.Kind.SOFT, condition__in=conditions)
        .values("condition")
        .annotate(last=Max("pk"))
        .values_list("last", flat=True)
    )
    found: dict[str, Episode] = {condition: Episode(alert=None, active=False, since=None) for condition in conditions}
    alert_ids = list(latest)
    if not alert_ids:
        return found
    alerts = {alert.pk: alert for alert in Alert.objects.filter(pk__in=alert_ids)}
    events: dict[int, dict[str, AlertEvent]] = {pk: {} for pk in alerts}
    # Ordered as alert.events is, so the same event wins as in ``episode``.
    for event in AlertEvent.objects.filter(alert_id__in=alerts, kind__in=("raised", "cleared")).order_by(
        "created_at", "id"
    ):
        events[event.alert_id][event.kind] = event
    for alert in alerts.values():
        found[alert.condition] = _judge(alert, events[alert.pk], now)
    return found


def _judge(alert: Alert, events: dict[str, AlertEvent], now: dt.datetime) -> Episode:
    cleared = _measured(events.get("cleared"))
    if cleared is not None:
        return Episode(alert=alert, active=False, since=cleared)
    raised = _measured(events.get("raised")) or alert.created_at
    if now - raised > EPISODE_EXPIRES and not alert.is_active:
        return Episode(alert=alert, active=False, since=raised)
    return Episode(alert=alert, active=True, since=raised)
