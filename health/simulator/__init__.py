"""A smartwatch in software: realistic vitals per scenario, as the public API takes them.

``readings(scenario, start=..., seconds=..., interval=..., seed=...)`` is pure:
the same arguments give the same readings, so tests ingest exactly what the
``simulate_watch`` command streams. Every reading carries a heart rate; SpO2
comes every ``SPO2_EVERY`` seconds and blood pressure every ``BP_EVERY``
seconds (as a watch samples them), steps whenever the wearer moves, and a
sleep stage while asleep.

The heart rate has structure, not just noise: a circadian swing (lowest
around 4 am, highest in the afternoon), activity (walking bouts in the normal
day, a run in ``exercise``, with the heart rate following the step cadence),
and correlated beat-to-beat noise. ``EXPECTED`` says which soft SOS each
scenario must raise (None: none).
"""

from __future__ import annotations

import datetime as dt
import math
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

SCENARIOS = (
    "normal",
    "bradycardia",
    "tachycardia_at_rest",
    "hypoxia",
    "hypertensive_crisis",
    "exercise",
    "sleep",
    "sensor_glitch",
)
EXPECTED: dict[str, str | None] = {
    "normal": None,
    "bradycardia": "bradycardia",
    "tachycardia_at_rest": "tachycardia_at_rest",
    "hypoxia": "hypoxia",
    "hypertensive_crisis": "hypertensive_crisis",
    "exercise": None,
    "sleep": None,
    "sensor_glitch": None,
}
SPO2_EVERY = 10.0
BP_EVERY = 60.0
# One sleep cycle (light -> deep -> light -> REM) lasts about 90 minutes.
SLEEP_CYCLE = (("light", 25), ("deep", 30), ("light", 15), ("rem", 20))


@dataclass
class _Wearer:
    """The slowly changing state of the person wearing the watch."""

    rng: random.Random
    noise: float = 0.0  # AR(1) heart-rate noise, bpm
    walking: bool = False
    step_carry: float = 0.0

    def next_noise(self, scale: float = 2.0) -> float:
        # Correlated noise: a real heart rate drifts, it does not jump.
        self.noise = 0.9 * self.noise + self.rng.gauss(0, scale * math.sqrt(1 - 0.81))
        return self.noise

    def steps(self, cadence: float, interval: float) -> int:
        """Whole steps in ``interval`` seconds at ``cadence`` steps/min (fractions carry over)."""
        self.step_carry += cadence * interval / 60
        whole = int(self.step_carry)
        self.step_carry -= whole
        return whole


def circadian(at: dt.datetime) -> float:
    """Heart-rate offset by time of day: about -6 bpm at 4 am, +6 bpm at 4 pm."""
    hours = at.hour + at.minute / 60
    return -6 * math.cos(2 * math.pi * (hours - 4) / 24)


def sleep_stage(elapsed: float) -> str:
    minute = (elapsed / 60) % sum(length for _, length in SLEEP_CYCLE)
    for stage, length in SLEEP_CYCLE:
        if minute < length:
            return stage
        minute -= length
    return "light"


def _clip(value: float, low: float, high: float) -> float:
    return max(low, min(high, value))


def _sample(scenario: str, wearer: _Wearer, at: dt.datetime, elapsed: float, interval: float) -> dict[str, Any]:
    rng = wearer.rng
    cadence = 0.0
    stage = ""
    if scenario in ("normal", "sensor_glitch", "hypertensive_crisis"):
        # Walking bouts of a few minutes, a few times an hour.
        if wearer.walking and rng.random() < interval / 180:
            wearer.walking = False
        elif not wearer.walking and rng.random() < interval / 900:
            wearer.walking = True
        cadence = rng.uniform(95, 115) if wearer.walking else 0.0
        heart = 68 + circadian(at) + (0.25 * cadence) + wearer.next_noise()
        heart = _clip(heart, 52, 112)
        spo2 = _clip(rng.gauss(97.5, 0.8), 95, 100)
    elif scenario == "bradycardia":
        heart = _clip(35 + wearer.next_noise(1.5), 31, 38)
        spo2 = _clip(rng.gauss(96, 0.8), 93, 99)
    elif scenario == "tachycardia_at_rest":
        heart = _clip(134 + wearer.next_noise(3), 124, 150)
        spo2 = _clip(rng.gauss(96.5, 0.8), 94, 99)
    elif scenario == "hypoxia":
        heart = _clip(88 + wearer.next_noise(), 78, 100)
        # Falls from ~95 % to ~86 % over the first two minutes, then stays low.
        target = 95 - 9 * min(1.0, elapsed / 120)
        spo2 = _clip(rng.gauss(target, 0.7), 82, 88.5 if elapsed >= 120 else 97)
    elif scenario == "exercise":
        # A one-minute brisk walk, then a steady run.
        cadence = rng.uniform(110, 120) if elapsed < 60 else rng.uniform(150, 168)
        effort = min(1.0, elapsed / 180)
        heart = _clip(95 + 65 * effort + wearer.next_noise(3), 90, 172)
        spo2 = _clip(rng.gauss(97, 0.8), 94, 100)
    elif scenario == "sleep":
        stage = sleep_stage(elapsed)
        dip = {"deep": -6, "light": -2, "rem": 3, "awake": 5}[stage]
        heart = _clip(56 + dip + wearer.next_noise(1.5), 46, 66)
        spo2 = _clip(rng.gauss(95.5, 0.9), 93, 99)
    else:
        raise ValueError(f"unknown scenario {scenario!r}; choose one of {', '.join(SCENARIOS)}")

    reading: dict[str, Any] = {"measured_at": at.isoformat().replace("+00:00", "Z"), "heart_rate": round(heart)}
    if scenario == "sensor_glitch":
        # Loose strap: a lone 0 bpm now and then, and a lone implausible SpO2.
        if rng.random() < interval / 30:
            reading["heart_rate"] = 0
        if rng.random() < interval / 120:
            spo2 = rng.uniform(80, 86)
    if cadence:
        reading["steps"] = wearer.steps(cadence, interval)
    if stage:
        reading["sleep_stage"] = stage
        reading["sleep_minutes"] = round(interval / 60, 3)
    if _due(elapsed, interval, SPO2_EVERY):
        reading["spo2"] = round(spo2, 1)
    if _due(elapsed, interval, BP_EVERY):
        if scenario == "hypertensive_crisis":
            systolic, diastolic = rng.gauss(192, 5), rng.gauss(122, 3)
        elif scenario == "sleep":
            systolic, diastolic = rng.gauss(108, 4), rng.gauss(68, 3)
        else:
            systolic, diastolic = rng.gauss(118, 5) + 0.1 * cadence, rng.gauss(76, 3)
        reading["systolic_bp"], reading["diastolic_bp"] = round(systolic), round(diastolic)
    return reading


def _due(elapsed: float, interval: float, every: float) -> bool:
    """Whether a periodic measurement falls into this reading's interval."""
    return math.floor(elapsed / every) != math.floor((elapsed - interval) / every) or elapsed == 0


def readings(
    scenario: str, *, start: dt.datetime, seconds: float, interval: float = 1.0, seed: int = 0
) -> Iterator[dict[str, Any]]:
    """The readings a watch in ``scenario`` sends over ``seconds`` from ``start``
    (one every ``interval`` seconds), as JSON-ready dicts for /api/vitals/."""
    if scenario not in SCENARIOS:
        raise ValueError(f"unknown scenario {scenario!r}; choose one of {', '.join(SCENARIOS)}")
    if interval <= 0:
        raise ValueError("interval must be positive")
    wearer = _Wearer(rng=random.Random(f"{scenario}:{seed}"))
    start = start.astimezone(dt.UTC).replace(microsecond=0)
    count = int(seconds / interval)
    for index in range(count):
        elapsed = index * interval
        yield _sample(scenario, wearer, start + dt.timedelta(seconds=elapsed), elapsed, interval)


def batches(items: Iterator[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    """``items`` in lists of at most ``size`` (what one POST carries)."""
    batch: list[dict[str, Any]] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch
