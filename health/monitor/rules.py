"""The monitor's rules: which vitals raise a soft SOS, and when they count as recovered.

A rule is more than a threshold. A reading must cross the *trigger* level for
at least ``min_readings`` readings spanning ``min_seconds`` (persistence: one
bad sample is noise); the episode ends only after as many readings on the
*clear* side (hysteresis: a value hovering at the threshold does not flap).
Readings further apart than ``max_gap`` do not form a run. Heart-rate rules
marked ``at_rest_only`` ignore readings taken while the same device counted
steps recently (activity gating: 150 bpm while running is fine). The
thresholds move with the user's own baseline (``health.monitor.baselines``)
within fixed clinical limits, never beyond them.

| condition           | trigger                        | clear                        | persistence       | source |
| ------------------- | ------------------------------ | ---------------------------- | ----------------- | ------ |
| hypoxia             | SpO2 < 90 %                    | SpO2 >= 92 %                 | 3 readings, 60 s  | [1][2] |
| bradycardia         | HR < 40 bpm                    | HR >= 45 bpm                 | 5 readings, 60 s  | [3]    |
| tachycardia_at_rest | HR > 120 bpm, no recent steps  | HR < 110 bpm                 | 5 readings, 120 s | [4]    |
| hypertensive_crisis | systolic >= 180 or dia >= 120  | systolic < 160 and dia < 100 | 2 readings        | [5]    |

[1] WHO, Pulse Oximetry Training Manual (2011): SpO2 below 90 % needs urgent care.
[2] BTS guideline for oxygen use (O'Driscoll et al., Thorax 2017): target 94-98 %, 88-92 % in COPD.
[3] 2018 ACC/AHA/HRS bradycardia guideline (Kusumoto et al.): awake sinus rates below 40 bpm are
    abnormal; trained athletes may rest in the 40s (hence personal baselines).
[4] 2015 ACC/AHA/HRS SVT guideline (Page et al.): tachycardia is > 100 bpm at rest; 120 bpm is the
    seed paper's resting limit and a common wearable alert level, with fewer false alarms.
[5] 2017 ACC/AHA high blood pressure guideline (Whelton et al.) section 11: hypertensive crisis
    (>= 180 and/or >= 120 mmHg), to be confirmed by a repeat measurement.

Personal baselines (``health.monitor.baselines``) only ever make a rule more
tolerant of what is normal *for this user*, and never past a hard limit:
bradycardia down to 30 bpm for a user who rests in the low 40s, tachycardia up
to 150 bpm, hypoxia down to 85 % for a user whose SpO2 habitually sits at
88-90 % (COPD). Blood pressure limits are absolute.

A heart rate under 20 bpm is what a watch reports when it loses skin contact:
it is ignored, never read as bradycardia.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field, replace
from typing import Any

GLITCH_HEART_RATE_BELOW = 20
# Steps the same device counted within ACTIVITY_WINDOW before a reading that
# make it "active": 300 steps in 10 minutes is a slow walk; recovery after
# exercise keeps the heart rate high for minutes, hence the long window.
ACTIVITY_WINDOW = dt.timedelta(minutes=10)
ACTIVE_STEPS = 300


@dataclass(frozen=True)
class Limit:
    """One metric of a rule: ``direction`` "below" or "above" its trigger level."""

    metric: str
    direction: str
    trigger: float
    clear: float

    def crossed(self, value: float, trigger: float) -> bool:
        return value < trigger if self.direction == "below" else value >= trigger

    def recovered(self, value: float, clear: float) -> bool:
        return value >= clear if self.direction == "below" else value < clear


@dataclass(frozen=True)
class Rule:
    condition: str
    label: str
    limits: tuple[Limit, ...]
    min_readings: int
    min_seconds: float
    max_gap: dt.timedelta = dt.timedelta(minutes=5)
    at_rest_only: bool = False
    advice: str = ""
    specialist: str = "general physician"
    # Trigger levels this user's baseline moved, by metric (see ``personalised``).
    levels: dict[str, tuple[float, float]] = field(default_factory=dict)

    @property
    def metrics(self) -> tuple[str, ...]:
        return tuple(limit.metric for limit in self.limits)

    def measures(self, reading: dict[str, Any]) -> bool:
        """Whether the reading has a value for any of this rule's metrics (a quick pre-filter)."""
        return any(reading[limit.metric] is not None for limit in self.limits)

    def levels_of(self, limit: Limit) -> tuple[float, float]:
        """``limit``'s trigger and clear levels for this rule: the user's, where their baseline moved them."""
        return self.levels.get(limit.metric, (limit.trigger, limit.clear))

    def values(self, reading: dict[str, Any]) -> dict[str, float] | None:
        """The reading's values for this rule's metrics, None when it measured none of them."""
        found: dict[str, float] = {}
        for limit in self.limits:
            metric = limit.metric
            value = reading.get(metric)
            if value is None or (metric == "heart_rate" and value < GLITCH_HEART_RATE_BELOW):
                continue
            found[metric] = value
        return found or None

    def crossed(self, values: dict[str, float]) -> bool:
        return any(
            limit.crossed(values[limit.metric], self.levels_of(limit)[0])
            for limit in self.limits
            if limit.metric in values
        )

    def recovered(self, values: dict[str, float]) -> bool:
        return all(
            limit.recovered(values[limit.metric], self.levels_of(limit)[1])
            for limit in self.limits
            if limit.metric in values
        )

    def personalised(self, levels: dict[str, tuple[float, float]]) -> Rule:
        """This rule with trigger and clear levels moved for one user."""
        return replace(self, levels=levels)


HYPOXIA = Rule(
    condition="hypoxia",
    label="Low blood oxygen",
    limits=(Limit("spo2", "below", 90, 92),),
    min_readings=3,
    min_seconds=60,
    advice="Sit upright, breathe slowly and re-measure with the watch snug on your wrist.",
    specialist="pulmonologist",
)
BRADYCARDIA = Rule(
    condition="bradycardia",
    label="Very slow heart rate",
    limits=(Limit("heart_rate", "below", 40, 45),),
    min_readings=5,
    min_seconds=60,
    advice="Sit or lie down and rest, then re-measure.",
    specialist="cardiologist",
)
TACHYCARDIA_AT_REST = Rule(
    condition="tachycardia_at_rest",
    label="Fast heart rate at rest",
    limits=(Limit("heart_rate", "above", 120, 110),),
    min_readings=5,
    min_seconds=120,
    at_rest_only=True,
    advice="Stop what you are doing, sit down, breathe slowly for five minutes and re-measure.",
    specialist="cardiologist",
)
HYPERTENSIVE_CRISIS = Rule(
    condition="hypertensive_crisis",
    label="Very high blood pressure",
    limits=(Limit("systolic_bp", "above", 180, 160), Limit("diastolic_bp", "above", 120, 100)),
    min_readings=2,
    min_seconds=0,
    max_gap=dt.timedelta(minutes=30),
    advice="Sit quietly for five minutes and measure your blood pressure again.",
    specialist="cardiologist",
)

RULES: tuple[Rule, ...] = (HYPOXIA, BRADYCARDIA, TACHYCARDIA_AT_REST, HYPERTENSIVE_CRISIS)
RULES_BY_CONDITION = {rule.condition: rule for rule in RULES}
