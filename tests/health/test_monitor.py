"""The vitals monitor, driven through the ingestion API: persistence, activity
gating, personal baselines, hysteresis, deduplication, glitches, and what the
user receives when a soft SOS is raised."""

from __future__ import annotations

import datetime as dt

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from rest_framework.test import APIClient

from agents.models import Conversation
from core.realtime import user_group
from health.models import Alert, Notification, VitalReading
from health.monitor import state
from health.simulator import batches, readings
from tests.factories import DeviceFactory

T0 = dt.datetime(2026, 3, 2, 10, 0, tzinfo=dt.UTC)


def at(seconds: float) -> str:
    return (T0 + dt.timedelta(seconds=seconds)).isoformat().replace("+00:00", "Z")


def series(metric: str, values: list[float], *, start: float = 0, every: float = 10, **extra) -> list[dict]:
    return [{"measured_at": at(start + i * every), metric: v, **extra} for i, v in enumerate(values)]


@pytest.fixture
def watch(alice_device) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Device {alice_device[1]}")
    return client


def post(watch: APIClient, items: list[dict]) -> None:
    for batch in batches(iter(items), 500):
        response = watch.post("/api/vitals/", batch, format="json")
        assert response.status_code in (200, 201), response.json()


def soft_alerts(user, condition: str | None = None) -> list[Alert]:
    alerts = Alert.objects.filter(user=user, kind="soft").order_by("pk")
    return list(alerts.filter(condition=condition) if condition else alerts)


def test_a_single_zero_bpm_reading_among_normal_ones_never_triggers(alice, watch):
    items = series("heart_rate", [72] * 30 + [0] + [71] * 30, every=1)

    post(watch, items)

    assert VitalReading.objects.filter(heart_rate=0).count() == 1
    assert soft_alerts(alice) == []


def test_minutes_of_zero_bpm_from_a_loose_strap_are_not_bradycardia(alice, watch):
    post(watch, series("heart_rate", [0] * 300, every=1))

    assert soft_alerts(alice) == []


def test_a_brief_dip_does_not_persist_long_enough_to_raise_an_alert(alice, watch):
    post(watch, series("spo2", [97, 97, 86, 85, 97, 97, 96, 97]))

    assert soft_alerts(alice) == []


def test_low_spo2_for_a_minute_raises_one_hypoxia_alert(alice, watch):
    post(watch, series("spo2", [97, 96] + [86] * 7))

    [alert] = soft_alerts(alice)
    assert alert.condition == "hypoxia" and alert.state == "open"
    assert alert.vitals_snapshot == {"spo2": 86}


def test_a_fast_heart_rate_while_running_is_fine_but_the_same_rate_at_rest_is_not(alice, bob, watch):
    run = list(readings("exercise", start=T0, seconds=600))
    assert max(r["heart_rate"] for r in run) > 140

    post(watch, run)
    assert soft_alerts(alice) == []

    # The same heart rates, from a watch that counted no steps: at rest.
    device = DeviceFactory.build(user=bob)
    token = device.issue_token()
    device.save()
    bobs_watch = APIClient()
    bobs_watch.credentials(HTTP_AUTHORIZATION=f"Device {token}")
    post(bobs_watch, [{k: v for k, v in r.items() if k != "steps"} for r in run])
    assert [a.condition for a in soft_alerts(bob)] == ["tachycardia_at_rest"]


def test_steps_from_another_device_do_not_excuse_a_fast_heart_rate(alice, watch):
    phone = DeviceFactory.build(user=alice, kind="phone")
    phone_token = phone.issue_token()
    phone.save()
    pocket = APIClient()
    pocket.credentials(HTTP_AUTHORIZATION=f"Device {phone_token}")
    post(pocket, series("steps", [25] * 60, every=10))

    post(watch, series("heart_rate", [135] * 200, every=1))

    assert [a.condition for a in soft_alerts(alice)] == ["tachycardia_at_rest"]


def test_a_long_episode_raises_one_alert_not_one_per_reading(alice, watch):
    post(watch, list(readings("hypoxia", start=T0, seconds=1800)))

    assert len(soft_alerts(alice, "hypoxia")) == 1


def test_recovery_clears_at_a_different_level_than_the_trigger(alice, watch):
    post(watch, series("spo2", [86] * 8))
    [alert] = soft_alerts(alice)

    # Between the trigger (90 %) and the clear level (92 %): still the same episode.
    post(watch, series("spo2", [91] * 10, start=100))
    alert.refresh_from_db()
    assert alert.state == "open"
    assert len(soft_alerts(alice)) == 1

    post(watch, series("spo2", [94] * 4, start=300))
    alert.refresh_from_db()
    assert alert.state == "resolved"
    assert alert.events.filter(kind="cleared").count() == 1

    post(watch, series("spo2", [85] * 8, start=400))
    assert [a.state for a in soft_alerts(alice)] == ["resolved", "open"]


def test_the_episode_of_one_condition_follows_its_alert_from_raised_to_cleared(alice, watch):
    """GIVEN low SpO2 that raises a soft SOS, then recovery
    WHEN state.episode is asked for hypoxia (and bradycardia, never raised)
    THEN it names the alert, active until the clear, and agrees with state.episodes."""
    later = T0 + dt.timedelta(minutes=10)
    assert state.episode(alice.pk, "hypoxia", later) == state.Episode(alert=None, active=False, since=None)

    post(watch, series("spo2", [86] * 8))
    [alert] = soft_alerts(alice)
    raised = state.episode(alice.pk, "hypoxia", later)
    assert (raised.alert, raised.active, raised.since) == (alert, True, T0 + dt.timedelta(seconds=60))

    post(watch, series("spo2", [94] * 4, start=300))
    cleared = state.episode(alice.pk, "hypoxia", later)
    assert (cleared.alert, cleared.active, cleared.since) == (alert, False, T0 + dt.timedelta(seconds=320))
    assert state.episodes(alice.pk, ["hypoxia", "bradycardia"], later) == {
        "hypoxia": cleared,
        "bradycardia": state.Episode(alert=None, active=False, since=None),
    }


def test_an_acknowledged_or_cancelled_alert_is_not_raised_again_while_the_vitals_stay_low(alice, alice_api, watch):
    post(watch, series("spo2", [86] * 8))
    [alert] = soft_alerts(alice)

    alice_api.post(f"/api/alerts/{alert.pk}/acknowledge/")
    post(watch, series("spo2", [86] * 20, start=100))
    alice_api.post(f"/api/alerts/{alert.pk}/cancel/")
    post(watch, series("spo2", [86] * 20, start=400))

    assert len(soft_alerts(alice)) == 1


def test_readings_arriving_out_of_order_are_judged_in_measured_order(alice, watch):
    items = series("spo2", [97] * 3 + [86] * 8 + [97] * 3)

    for item in reversed(items):
        watch.post("/api/vitals/", item, format="json")

    assert [a.condition for a in soft_alerts(alice)] == ["hypoxia"]


def test_a_user_who_usually_rests_in_the_low_forties_is_not_alarmed_at_38_bpm(alice, bob, watch):
    history = series("heart_rate", [41, 43, 44, 45, 46, 48] * 100, start=-14 * 3600, every=60)
    post(watch, history)
    post(watch, series("heart_rate", [38] * 120, every=1))

    assert soft_alerts(alice) == []

    device = DeviceFactory.build(user=bob)
    token = device.issue_token()
    device.save()
    newcomer = APIClient()
    newcomer.credentials(HTTP_AUTHORIZATION=f"Device {token}")
    post(newcomer, series("heart_rate", [38] * 120, every=1))
    assert [a.condition for a in soft_alerts(bob)] == ["bradycardia"]


def test_a_hypertensive_crisis_needs_a_repeat_measurement(alice, watch):
    post(watch, [{"measured_at": at(0), "systolic_bp": 195, "diastolic_bp": 110}])
    post(watch, series("heart_rate", [80] * 120, start=60, every=10))
    assert soft_alerts(alice) == []

    # Twenty minutes later, with a dense heart-rate stream in between.
    post(watch, [{"measured_at": at(1205), "systolic_bp": 188, "diastolic_bp": 124}])
    [alert] = soft_alerts(alice)
    assert alert.condition == "hypertensive_crisis"
    assert alert.vitals_snapshot == {"heart_rate": 80, "systolic_bp": 188, "diastolic_bp": 124}


def test_a_soft_sos_notifies_the_user_once_with_a_vitals_report_in_the_right_units_and_what_to_do(
    alice, watch, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        post(watch, series("heart_rate", [72] * 3, every=1) + series("spo2", [86] * 8, start=5))

    [alert] = soft_alerts(alice)
    [report] = Notification.objects.filter(user=alice)
    assert report.data["alert"] == alert.pk
    assert (report.kind, report.level, report.title) == ("alert", "warning", "Alert: low blood oxygen")
    assert report.body.splitlines()[:5] == [
        "Low blood oxygen for 60 s (7 readings).",
        "",
        "Your vitals:",
        "SpO₂: 86 %",
        "Heart rate: 72 bpm",
    ]
    for advice in ("re-measure", "book an appointment with a pulmonologist", "call emergency services"):
        assert advice in report.body
    assert report.data["actions"] == ["acknowledge", "escalate"]
    # The Action Manager's soft SOS flow ran after commit (seed paper D.4): its notify_user step
    # sent the same text and found the user already notified, so no second notification.
    conversation = Conversation.objects.get(user=alice, kind="soft_sos")
    assert conversation.status == "completed"
    assert conversation.title == "Alert: low blood oxygen"
    [sent] = [s.payload["parameters"] for s in conversation.steps.filter(role="caller")]
    assert sent["message"] == report.body


def test_blood_pressure_is_reported_in_mmhg_as_one_reading(alice, watch, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        post(watch, [{"measured_at": at(0), "systolic_bp": 195, "diastolic_bp": 110, "heart_rate": 88}])
        post(watch, [{"measured_at": at(600), "systolic_bp": 188, "diastolic_bp": 124}])

    [report] = Notification.objects.filter(user=alice)
    assert report.title == "Alert: very high blood pressure"
    assert "Heart rate: 88 bpm\nBlood pressure: 188/124 mmHg\n" in report.body


def test_new_readings_are_pushed_live_to_the_users_tabs(alice, watch, django_capture_on_commit_callbacks):
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(user_group(alice.pk), channel)

    with django_capture_on_commit_callbacks(execute=True):
        post(watch, [{"measured_at": at(0), "heart_rate": 70}, {"measured_at": at(1), "heart_rate": 74, "spo2": 98}])

    message = async_to_sync(layer.receive)(channel)
    assert message["event"] == "vitals"
    assert message["data"]["latest"] == {"heart_rate": 74, "spo2": 98.0}
    assert message["data"]["count"] == 2


def post_one_by_one(watch: APIClient, items: list[dict]) -> None:
    for item in items:
        response = watch.post("/api/vitals/", item, format="json")
        assert response.status_code in (200, 201), response.json()


def test_a_watch_posting_one_reading_a_second_raises_and_clears_as_a_batch_would(alice, watch):
    """One reading per request is how a watch streams live: each request sees one
    reading, yet the run it belongs to is judged whole, and recovery (normal
    readings, judged only because an episode is open) clears the alert."""
    post_one_by_one(watch, series("spo2", [97] * 5 + [86] * 8 + [91] * 3, every=10))
    [alert] = soft_alerts(alice)
    assert alert.condition == "hypoxia" and alert.state == "open"

    post_one_by_one(watch, series("spo2", [95] * 4, start=200, every=10))

    alert.refresh_from_db()
    assert alert.state == "resolved"
    assert alert.events.filter(kind="cleared").count() == 1


def test_a_late_normal_reading_still_breaks_the_run_it_falls_in(alice, watch):
    """Normal readings are not replayed when they arrive, but they are stored: the
    next crossing reading's replay sees them and the run restarts after them."""
    post_one_by_one(watch, series("spo2", [86] * 6, every=10))  # 0..50 s: short of a minute
    post_one_by_one(watch, [{"measured_at": at(25), "spo2": 97}])  # a late normal reading inside it
    post_one_by_one(watch, series("spo2", [86], start=60))  # without the 97, 0..60 s would be a minute

    assert soft_alerts(alice) == []


def test_normal_readings_outside_an_episode_are_not_replayed(alice, watch):
    """The replay reads the device's last quarter of an hour back; a reading that
    crosses no trigger while nothing is in an episode cannot raise anything."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    post_one_by_one(watch, series("heart_rate", [70] * 20, every=1))

    def readings_read_back(item: dict) -> int:
        with CaptureQueriesContext(connection) as queries:
            post_one_by_one(watch, [item])
        return sum('"steps"' in query["sql"] and query["sql"].lstrip().startswith("SELECT") for query in queries)

    assert readings_read_back({"measured_at": at(30), "heart_rate": 71}) == 0
    assert readings_read_back({"measured_at": at(31), "heart_rate": 35}) > 0
