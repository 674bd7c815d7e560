"""Judging new readings: ``check_readings`` runs after every ingestion, on
the devices and time span the new readings cover. For each rule (``health.monitor.rules``), personalised by
the user's baseline (``health.monitor.baselines``), it replays the device's
recent readings from where the condition's episode left off
(``health.monitor.state``): a run of crossing readings long enough raises one
soft SOS (``health.sos.soft``); as long a run of recovered readings
clears the episode. Readings arriving late or out of order are judged in
measured-time order with their neighbours.
"""

from __future__ import annotations

import datetime as dt
from collections import deque
from dataclasses import dataclass

from health.models import Alert, VitalReading
from health.monitor import baselines, state
from health.monitor.rules import ACTIVE_STEPS, ACTIVITY_WINDOW, GLITCH_HEART_RATE_BELOW, RULES, Rule
from health.sos.soft import clear_episode, raise_soft_sos

# How far before the new readings the monitor looks: a run may have begun in
# an earlier batch, and activity gating needs the steps before it.
LOOKBACK = ACTIVITY_WINDOW + dt.timedelta(minutes=5)
# Blood pressure is measured every few minutes, not every second: its run may
# have begun this long before (HYPERTENSIVE_CRISIS.max_gap), fetched apart so
# a dense heart-rate stream is not read back for it.
BP_LOOKBACK = dt.timedelta(minutes=40)
# Readings already stored just after the new ones (a late batch) belong to the
# same runs; further on, the new readings cannot change a run's outcome.
LOOKAHEAD = dt.timedelta(minutes=5)
_FIELDS = ("measured_at", "heart_rate", "spo2", "systolic_bp", "diastolic_bp", "steps")
_VITALS = ("heart_rate", "spo2", "systolic_bp", "diastolic_bp")


@dataclass(frozen=True)
class Span:
    """New readings of one device: the earliest and latest measured instants,
    and the conditions whose trigger one of them crosses (``crossing``; None
    when unknown, and every condition is replayed)."""

    device_id: int
    first: dt.datetime
    last: dt.datetime
    crossing: frozenset[str] | None = None


def crossing(readings: list[dict]) -> frozenset[str]:
    """The conditions whose *population* trigger at least one of ``readings`` crosses.

    While a condition is armed, only a run of crossing readings can raise it,
    and a new reading that does not cross can only end a run (or, with steps,
    make readings near it count as moving): it cannot raise anything. A
    personal baseline only ever makes a rule more tolerant
    (``baselines.personalise``), and activity gating only removes crossings,
    so a reading that does not cross the population level crosses no personal
    one either. The replay, which reads the device's last quarter of an hour
    back, is then needed only for these conditions and the ones in an episode:
    for a watch reading normal vitals every second, none.
    """
    found: set[str] = set()
    for rule in RULES:
        for reading in readings:
            values = rule.values(reading)
            if values is not None and rule.crossed(values):
                found.add(rule.condition)
                break
    return frozenset(found)


@dataclass
class _Run:
    rows: list[dict]

    def span_seconds(self) -> float:
        return (self.rows[-1]["measured_at"] - self.rows[0]["measured_at"]).total_seconds() if self.rows else 0.0


def _snapshot(rows: list[dict], upto: int, rule: Rule) -> dict[str, float]:
    """The latest value of each vital up to the triggering reading; the rule's own
    metrics from the triggering reading itself."""
    found: dict[str, float] = {}
    for row in rows[: upto + 1]:
        for metric in _VITALS:
            value = row[metric]
            if value is not None and not (metric == "heart_rate" and value < GLITCH_HEART_RATE_BELOW):
                found[metric] = value
    trigger = rows[upto]
    found.update({m: trigger[m] for m in rule.metrics if trigger[m] is not None})
    return {metric: found[metric] for metric in _VITALS if metric in found}


def _activity(rows: list[dict]) -> list[bool]:
    """Per row: whether the device counted ``ACTIVE_STEPS`` within ``ACTIVITY_WINDOW`` before it."""
    flags: list[bool] = []
    window: deque[tuple[dt.datetime, int]] = deque()
    total = 0
    for row in rows:
        at = row["measured_at"]
        if row["steps"]:
            window.append((at, row["steps"]))
            total += row["steps"]
        while window and at - window[0][0] > ACTIVITY_WINDOW:
            total -= window.popleft()[1]
        flags.append(total >= ACTIVE_STEPS)
    return flags


def _measuring(rule: Rule, rows: list[dict]) -> list[int]:
    """Positions of the rows that measured any of the rule's metrics (most
    rows of a dense stream measure only some), found in one quick pass."""
    metrics = rule.metrics
    if len(metrics) == 1:
        (metric,) = metrics
        return [position for position, row in enumerate(rows) if row[metric] is not None]
    return [position for position, row in enumerate(rows) if any(row[metric] is not None for metric in metrics)]


def _check_rule(
    user_id: int, rule: Rule, rows: list[dict], active_flags: list[bool], episode: state.Episode
) -> list[Alert]:
    raised: list[Alert] = []
    if not rows:
        return raised
    active = episode.active
    since = episode.since
    run = _Run([])
    previous: dt.datetime | None = None
    for position in _measuring(rule, rows):
        row = rows[position]
        at = row["measured_at"]
        if since is not None and at <= since:
            continue
        values = rule.values(row)
        if values is None:
            continue
        if previous is not None and at - previous > rule.max_gap:
            run = _Run([])
        previous = at
        # The run grows while readings stand on the side that ends the current phase:
        # crossed (not while moving, for at-rest rules) when armed, recovered in an episode.
        if active:
            onward = rule.recovered(values)
        else:
            onward = rule.crossed(values) and not (rule.at_rest_only and active_flags[position])
        if not onward:
            run = _Run([])
            continue
        run.rows.append(row)
        if len(run.rows) < rule.min_readings:
            continue
        if not active and run.span_seconds() >= rule.min_seconds:
            alert = raise_soft_sos(
                user_id=user_id,
                rule=rule,
                snapshot=_snapshot(rows, position, rule),
                measured_at=at,
                seconds=run.span_seconds(),
                readings=len(run.rows),
            )
            if alert is not None:
                raised.append(alert)
                episode = state.Episode(alert=alert, active=True, since=at)
            active, run = True, _Run([])
        elif active and episode.alert is not None:
            clear_episode(episode.alert, measured_at=at)
            active, run = False, _Run([])
    return raised


def _to_replay(user_id: int, span: Span) -> tuple[list[Rule], dict[str, state.Episode] | None]:
    """The rules whose outcome the span's new readings may change (see ``crossing``), and where
    every condition stands at the span's last instant when that had to be read to tell."""
    if span.crossing is None:
        return list(RULES), None
    conditions = [rule.condition for rule in RULES]
    # Judged at the span's last instant: an episode that is over by then is
    # over at any later one too.
    current = state.episodes(user_id, conditions, span.last)
    return [rule for rule in RULES if rule.condition in span.crossing or current[rule.condition].active], current


def check_readings(user_id: int, spans: list[Span]) -> list[Alert]:
    """Judge the new readings of ``spans``; return the soft SOS alerts raised."""
    raised: list[Alert] = []
    for span in spans:
        rules, at_last = _to_replay(user_id, span)
        if not rules:
            continue
        device_rows = VitalReading.objects.filter(device_id=span.device_id).order_by("measured_at")
        earlier_bp = device_rows.filter(
            measured_at__gte=span.first - BP_LOOKBACK,
            measured_at__lt=span.first - LOOKBACK,
            systolic_bp__isnull=False,
        )
        recent = device_rows.filter(measured_at__gte=span.first - LOOKBACK, measured_at__lte=span.last + LOOKAHEAD)
        rows = [*earlier_bp.values(*_FIELDS), *recent.values(*_FIELDS)]
        if not rows:
            continue
        baseline = baselines.for_user(user_id, span.first - BP_LOOKBACK)
        active_flags = _activity(rows)
        # Where each condition stands after the newest row, read once per device for every rule
        # (already read when the newest row is the span's last, the usual case of a live watch).
        newest = rows[-1]["measured_at"]
        episodes = at_last if at_last is not None and newest == span.last else None
        if episodes is None:
            episodes = state.episodes(user_id, [rule.condition for rule in rules], newest)
        for rule in rules:
            personal = baselines.personalise(rule, baseline)
            raised += _check_rule(user_id, personal, rows, active_flags, episodes[rule.condition])
    return raised


__all__ = ["Span", "check_readings", "crossing"]
