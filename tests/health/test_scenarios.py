"""Every scenario of the watch simulator, streamed through the public API with
the watch's token in the batches the simulator sends, ends in the right
outcome: the matching soft SOS, or none at all."""

from __future__ import annotations

import datetime as dt

import pytest
from rest_framework.test import APIClient

from health.models import Alert, Notification, VitalReading
from health.simulator import EXPECTED, SCENARIOS, batches, readings

DAY = dt.datetime(2026, 3, 2, 10, 0, tzinfo=dt.UTC)
NIGHT = dt.datetime(2026, 3, 2, 1, 30, tzinfo=dt.UTC)


def stream(token: str, scenario: str, *, minutes: float = 10, seed: int = 0, start: dt.datetime = DAY) -> None:
    watch = APIClient()
    watch.credentials(HTTP_AUTHORIZATION=f"Device {token}")
    for batch in batches(readings(scenario, start=start, seconds=minutes * 60, seed=seed), 60):
        response = watch.post("/api/vitals/", batch, format="json")
        assert response.status_code == 201, response.json()


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_each_scenario_raises_exactly_its_own_soft_sos(alice, alice_device, scenario):
    _, token = alice_device

    stream(token, scenario, start=NIGHT if scenario == "sleep" else DAY)

    expected = EXPECTED[scenario]
    raised = list(Alert.objects.filter(user=alice).values_list("kind", "condition"))
    assert raised == ([("soft", expected)] if expected else [])
    assert VitalReading.objects.filter(user=alice).count() == 600


@pytest.mark.parametrize("seed", range(5))
def test_a_sensor_glitch_never_raises_an_alert_whatever_the_seed(alice, alice_device, seed):
    _, token = alice_device

    stream(token, "sensor_glitch", minutes=20, seed=seed)

    assert VitalReading.objects.filter(user=alice, heart_rate=0).exists()
    assert not Alert.objects.exists()
    assert not Notification.objects.exists()


def test_the_simulator_is_reproducible_and_stays_within_the_bounds():
    first = list(readings("exercise", start=DAY, seconds=300, seed=3))
    again = list(readings("exercise", start=DAY, seconds=300, seed=3))

    assert first == again
    assert all(0 <= r["heart_rate"] <= 250 for r in first)
    assert sum(r.get("steps", 0) for r in first) > 600  # a run: about 160 steps a minute
    assert sum("spo2" in r for r in first) == 30 and sum("systolic_bp" in r for r in first) == 5


def test_the_sleep_scenario_reports_sleep_stages():
    stages = {r["sleep_stage"] for r in readings("sleep", start=NIGHT, seconds=90 * 60, interval=30)}

    assert stages == {"light", "deep", "rem"}
