"""Per-user baselines, learned from the user's own resting history.

A trained athlete rests at 42 bpm and someone with COPD lives at 89 % SpO2;
fixed population thresholds would alarm them every day. The baseline is the
5th and 95th percentile of the user's resting readings (no steps counted)
over the last ``HISTORY`` before the readings being checked, once there are at
least ``MIN_SAMPLES`` of them. It moves a rule's trigger and clear levels
toward tolerance, within the hard limits documented in ``health.monitor.rules``.

Baselines change slowly, so one is computed once per user and hour of
measured time (from the most recent ``MAX_SAMPLES`` readings) and cached.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db.models import Q

from core import speedup_cache
from health.models import VitalReading
from health.monitor.rules import GLITCH_HEART_RATE_BELOW, Rule

HISTORY = dt.timedelta(days=14)
MIN_SAMPLES = 300
MAX_SAMPLES = 5000
CACHE_SECONDS = 3600

# Hard limits a baseline can never move a rule past.
BRADYCARDIA_FLOOR = 30
TACHYCARDIA_CEILING = 150
HYPOXIA_FLOOR = 85


@dataclass(frozen=True)
class Baseline:
    heart_rate_low: float | None = None
    heart_rate_high: float | None = None
    spo2_low: float | None = None


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def compute(user_id: int, before: dt.datetime) -> Baseline:
    """The user's resting baseline from readings measured before ``before``."""
    resting = (
        VitalReading.objects.filter(user_id=user_id, measured_at__lt=before, measured_at__gte=before - HISTORY)
        .filter(Q(steps__isnull=True) | Q(steps=0))
        .order_by("-measured_at")
    )
    rows = list(resting.values_list("heart_rate", "spo2")[:MAX_SAMPLES])
    heart = [hr for hr, _ in rows if hr is not None and hr >= GLITCH_HEART_RATE_BELOW]
    oxygen = [spo2 for _, spo2 in rows if spo2 is not None]
    enough_heart, enough_oxygen = len(heart) >= MIN_SAMPLES, len(oxygen) >= MIN_SAMPLES
    return Baseline(
        heart_rate_low=_percentile(heart, 0.05) if enough_heart else None,
        heart_rate_high=_percentile(heart, 0.95) if enough_heart else None,
        spo2_low=_percentile(oxygen, 0.05) if enough_oxygen else None,
    )


def for_user(user_id: int, before: dt.datetime) -> Baseline:
    """The user's baseline as of the hour of ``before`` (cached; computed on a miss)."""
    # Keyed by the hour being judged: a watch uploading last night's buffer
    # gets last night's baseline, and new history counts within the hour.
    key = f"health.monitor.baseline:{user_id}:{before:%Y%m%d%H}"
    # With Redis down the baseline is computed each time, and readings are still stored and judged.
    baseline = speedup_cache.get(key)
    if baseline is speedup_cache.UNREACHABLE:
        return compute(user_id, before)
    if baseline is None:
        baseline = compute(user_id, before)
        speedup_cache.put(key, baseline, CACHE_SECONDS)
    return baseline


def personalise(rule: Rule, baseline: Baseline) -> Rule:
    """``rule`` with its levels moved toward what is normal for this user, within the hard limits."""
    levels: dict[str, tuple[float, float]] = {}
    for limit in rule.limits:
        gap = limit.clear - limit.trigger
        trigger = limit.trigger
        if rule.condition == "bradycardia" and baseline.heart_rate_low is not None:
            trigger = max(BRADYCARDIA_FLOOR, min(limit.trigger, baseline.heart_rate_low - 5))
        elif rule.condition == "tachycardia_at_rest" and baseline.heart_rate_high is not None:
            trigger = min(TACHYCARDIA_CEILING, max(limit.trigger, baseline.heart_rate_high + 15))
        elif rule.condition == "hypoxia" and baseline.spo2_low is not None:
            trigger = max(HYPOXIA_FLOOR, min(limit.trigger, baseline.spo2_low - 3))
        if trigger != limit.trigger:
            levels[limit.metric] = (trigger, trigger + gap)
    return rule.personalised(levels) if levels else rule
