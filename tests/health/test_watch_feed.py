"""The browser's simulated watch (/api/watch/simulator/, health.simulator.feed):
started, switched and stopped per user, its readings stored through the same
ingestion as a real watch's, so the monitor raises the scenario's soft SOS.

Ticks are called here with an explicit clock; in the web server an asyncio
task calls them about once a second (tests/browser/test_watch.py)."""

from __future__ import annotations

import datetime as dt

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from core.realtime import user_group
from health.models import Alert, Device, VitalReading, WatchFeed
from health.simulator import SCENARIOS, readings
from health.simulator import feed as watch_feed

URL = "/api/watch/simulator/"


def later(feed: WatchFeed, seconds: float) -> dt.datetime:
    return feed.segment_started_at + dt.timedelta(seconds=seconds)


def stored(user) -> list[dict]:
    fields = ("measured_at", "heart_rate", "spo2", "systolic_bp", "diastolic_bp", "steps", "sleep_stage")
    return list(VitalReading.objects.filter(user=user).order_by("measured_at").values(*fields))


def expected(scenario: str, feed: WatchFeed, count: int) -> list[dict]:
    """What the public API would store for the first ``count`` readings of the scenario."""
    rows = []
    for reading in readings(scenario, start=feed.sim_start, seconds=count, seed=feed.seed):
        rows.append(
            {
                "measured_at": dt.datetime.fromisoformat(reading["measured_at"].replace("Z", "+00:00")),
                "heart_rate": reading["heart_rate"],
                "spo2": reading.get("spo2"),
                "systolic_bp": reading.get("systolic_bp"),
                "diastolic_bp": reading.get("diastolic_bp"),
                "steps": reading.get("steps"),
                "sleep_stage": reading.get("sleep_stage", ""),
            }
        )
    return rows


@pytest.fixture
def bob_api(bob):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_login(bob)
    return client


def test_a_new_patient_sees_a_stopped_feed_and_every_scenario(alice_api, alice):
    body = alice_api.get(URL).json()

    assert body["running"] is False and body["scenario"] == "normal" and body["device"] is None
    assert [s["name"] for s in body["scenarios"]] == list(watch_feed.SCENARIO_LABELS)
    assert {s["name"] for s in body["scenarios"]} == set(SCENARIOS)
    assert {s["name"]: s["expected_alert"] for s in body["scenarios"]}["hypoxia"] == "hypoxia"
    # Looking creates nothing.
    assert not WatchFeed.objects.exists() and not Device.objects.filter(user=alice).exists()


def test_starting_pairs_a_simulated_watch_and_ticks_store_its_readings(alice_api, alice):
    response = alice_api.post(URL, {"running": True}, format="json")

    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["running"] is True and body["scenario"] == "normal"
    device = Device.objects.get(user=alice)
    assert (device.name, device.kind, device.is_active) == ("Simulated watch", Device.Kind.SIMULATOR, True)
    assert body["device"] == device.pk
    feed = WatchFeed.objects.get(user=alice)
    assert body["stops_at"] == (feed.segment_started_at + dt.timedelta(minutes=30)).isoformat().replace("+00:00", "Z")

    # One reading a second: at 4.5 s the readings of seconds 0..4 are due.
    wait = watch_feed.tick(alice.pk, now=later(feed, 4.5))

    assert stored(alice) == expected("normal", feed, 5)
    assert set(VitalReading.objects.values_list("device_id", flat=True)) == {device.pk}
    assert 0 < wait <= 1.0
    # Nothing new is due yet: the next tick stores nothing.
    watch_feed.tick(alice.pk, now=later(feed, 4.9))
    assert len(stored(alice)) == 5
    watch_feed.tick(alice.pk, now=later(feed, 6.0))
    assert stored(alice) == expected("normal", feed, 7)
    assert alice_api.get(URL).json()["readings"] == 7


@pytest.fixture
def memory_layer(settings):
    """The in-process channel layer, whatever REDIS_URL says: this test reads the feed's events
    synchronously; the Redis layer's delivery is covered by the browser test of the Watch page."""
    from channels.layers import channel_layers

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


def test_readings_are_pushed_live_like_a_real_watchs(
    alice_api, alice, django_capture_on_commit_callbacks, memory_layer
):
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(user_group(alice.pk), channel)
    with django_capture_on_commit_callbacks(execute=True):
        alice_api.post(URL, {"running": True, "scenario": "exercise"}, format="json")
    feed = WatchFeed.objects.get(user=alice)
    started = async_to_sync(layer.receive)(channel)
    assert (started["event"], started["data"]["running"], started["data"]["readings"]) == ("watch", True, 0)

    with django_capture_on_commit_callbacks(execute=True):
        watch_feed.tick(alice.pk, now=later(feed, 2.2))

    # Both events arrive; their order (and an extra state event) is up to the channel layer.
    received: dict[str, dict] = {}
    for _ in range(4):
        message = async_to_sync(layer.receive)(channel)
        received[message["event"]] = message
        if "vitals" in received and received.get("watch", {}).get("data", {}).get("readings") == 3:
            break
    vitals, state = received["vitals"], received["watch"]
    assert vitals["data"]["count"] == 3 and vitals["data"]["device"] == feed.device_id
    assert vitals["data"]["latest"]["heart_rate"] == expected("exercise", feed, 3)[-1]["heart_rate"]
    assert state["event"] == "watch"
    assert state["data"]["running"] is True and state["data"]["readings"] == 3 and state["data"]["steps"] > 0


def test_switching_starts_the_new_scenario_from_its_beginning_and_stopping_ends_the_readings(alice_api, alice):
    alice_api.post(URL, {"running": True}, format="json")
    feed = WatchFeed.objects.get(user=alice)
    watch_feed.tick(alice.pk, now=later(feed, 3.0))
    before = stored(alice)

    body = alice_api.post(URL, {"scenario": "hypoxia"}, format="json").json()

    assert body["scenario"] == "hypoxia" and body["running"] is True
    feed.refresh_from_db()
    assert feed.position == 0 and feed.sim_start > before[-1]["measured_at"]
    watch_feed.tick(alice.pk, now=later(feed, 11.5))
    assert stored(alice) == before + expected("hypoxia", feed, 12)

    body = alice_api.post(URL, {"running": False}, format="json").json()

    assert body["running"] is False and body["stopped_reason"] == "Stopped."
    assert watch_feed.tick(alice.pk, now=later(feed, 60)) is None
    assert len(stored(alice)) == len(before) + 12
    # Stopped, a new scenario waits for the next start, which reuses the watch.
    alice_api.post(URL, {"scenario": "sleep"}, format="json")
    feed.refresh_from_db()
    assert (feed.scenario, feed.running) == ("sleep", False)
    alice_api.post(URL, {"running": True}, format="json")
    assert Device.objects.filter(user=alice).count() == 1
    feed.refresh_from_db()
    watch_feed.tick(alice.pk, now=later(feed, 0.5))
    assert stored(alice)[-1]["sleep_stage"] == "light"


@pytest.mark.parametrize(
    ("payload", "field", "text"),
    [
        ({"scenario": "zombie"}, "scenario", 'Unknown scenario "zombie"; choose one of: normal, bradycardia'),
        ({"running": "maybe"}, "running", "Must be a valid boolean."),
        ({}, "non_field_errors", "Send a scenario, running (true or false), or both."),
    ],
)
def test_a_bad_request_is_refused_with_a_clear_message_and_changes_nothing(alice_api, alice, payload, field, text):
    response = alice_api.post(URL, payload, format="json")

    assert response.status_code == 400
    assert text in " ".join(response.json()[field])
    assert not WatchFeed.objects.exists() and not Device.objects.exists()


def test_another_patient_cannot_touch_alices_feed(alice_api, alice, bob_api, bob, alice_device):
    alice_api.post(URL, {"running": True, "scenario": "hypoxia"}, format="json")
    alice_feed = WatchFeed.objects.get(user=alice)

    assert bob_api.get(URL).json()["running"] is False
    body = bob_api.post(URL, {"running": False, "scenario": "sleep"}, format="json").json()

    assert body["scenario"] == "sleep"
    alice_feed.refresh_from_db()
    assert (alice_feed.scenario, alice_feed.running) == ("hypoxia", True)
    # Bob's start is his own feed, on his own simulated watch.
    bob_api.post(URL, {"running": True}, format="json")
    assert WatchFeed.objects.get(user=bob).device.user == bob
    # A device token (alice's watch) may only post readings.
    from rest_framework.test import APIClient

    _, token = alice_device
    watch = APIClient()
    watch.credentials(HTTP_AUTHORIZATION=f"Device {token}")
    assert watch.post(URL, {"running": False}, format="json").status_code == 403
    alice_feed.refresh_from_db()
    assert alice_feed.running is True


def test_a_hypoxia_feed_opens_a_soft_sos(alice_api, alice):
    alice_api.post(URL, {"running": True, "scenario": "hypoxia"}, format="json")
    feed = WatchFeed.objects.get(user=alice)

    for second in range(0, 241, 5):  # four minutes of ticks
        watch_feed.tick(alice.pk, now=later(feed, second))

    [alert] = Alert.objects.filter(user=alice, kind=Alert.Kind.SOFT)
    assert alert.condition == "hypoxia" and alert.is_active
    assert alert.vitals_snapshot["spo2"] < 90


def test_a_normal_feed_raises_nothing(alice_api, alice):
    alice_api.post(URL, {"running": True}, format="json")
    feed = WatchFeed.objects.get(user=alice)

    for second in range(0, 241, 5):
        watch_feed.tick(alice.pk, now=later(feed, second))

    assert len(stored(alice)) == 241
    assert not Alert.objects.filter(user=alice).exists()


def test_a_feed_stops_by_itself_after_its_time_limit(alice_api, alice, settings):
    settings.WATCH_SIMULATOR_MAX_MINUTES = 2
    alice_api.post(URL, {"running": True}, format="json")
    feed = WatchFeed.objects.get(user=alice)
    watch_feed.tick(alice.pk, now=later(feed, 60))

    assert watch_feed.tick(alice.pk, now=later(feed, 121)) is None

    feed.refresh_from_db()
    assert feed.running is False and feed.stopped_reason == "Stopped by itself after its time limit."
    assert len(stored(alice)) == 61


def test_a_server_that_was_down_does_not_replay_the_gap(alice_api, alice):
    alice_api.post(URL, {"running": True}, format="json")
    feed = WatchFeed.objects.get(user=alice)

    watch_feed.tick(alice.pk, now=later(feed, 600))

    assert len(stored(alice)) == watch_feed.MAX_CATCH_UP
    assert stored(alice)[-1] == expected("normal", feed, 601)[-1]


def test_revoking_the_simulated_watch_stops_the_feed(alice_api, alice):
    alice_api.post(URL, {"running": True}, format="json")
    feed = WatchFeed.objects.get(user=alice)
    assert alice_api.delete(f"/api/devices/{feed.device_id}/").status_code == 204

    assert watch_feed.tick(alice.pk, now=later(feed, 5)) is None

    feed.refresh_from_db()
    assert feed.running is False and not stored(alice)
    # The next start pairs a new simulated watch.
    alice_api.post(URL, {"running": True}, format="json")
    feed.refresh_from_db()
    assert feed.device.is_active and Device.objects.filter(user=alice).count() == 2


def test_the_speed_setting_runs_scenarios_faster(alice_api, alice, settings):
    settings.WATCH_SIMULATOR_SPEED = 20
    alice_api.post(URL, {"running": True, "scenario": "hypoxia"}, format="json")
    feed = WatchFeed.objects.get(user=alice)

    wait = watch_feed.tick(alice.pk, now=later(feed, 2.0))

    assert stored(alice) == expected("hypoxia", feed, 41)
    assert wait == watch_feed.MIN_TICK_SECONDS
    assert alice_api.get(URL).json()["speed"] == 20


def test_a_fast_forwarded_scenario_is_the_watchs_present_not_the_future(alice_api, alice, settings):
    # At 20x, a minute of ticks is 20 minutes of the scenario: readings far past the wall clock's
    # five-minute skew allowance, which the API refuses from a real device.
    settings.WATCH_SIMULATOR_SPEED = 20
    alice_api.post(URL, {"running": True}, format="json")
    feed = WatchFeed.objects.get(user=alice)

    for seconds in range(5, 65, 5):  # every 5 s: 100 readings a tick, under the catch-up cap
        watch_feed.tick(alice.pk, now=later(feed, seconds))

    feed.refresh_from_db()
    assert feed.running and len(stored(alice)) == 1201
    assert VitalReading.objects.filter(user=alice).latest("measured_at").measured_at > later(feed, 60.0) + dt.timedelta(
        minutes=15
    )


def test_outside_a_web_server_nothing_drives_the_feed_in_the_background(alice):
    assert watch_feed.ensure_driver(alice.pk) is False


def test_a_feed_past_its_time_limit_shows_as_stopped_before_any_tick(alice_api, alice, settings):
    first = alice_api.post(URL, {"running": True}, format="json").json()
    settings.WATCH_SIMULATOR_MAX_MINUTES = 0

    body = alice_api.get(URL).json()

    assert body["running"] is False and body["stops_at"] is None
    assert body["stopped_reason"] == "Stopped by itself after its time limit."
    # Every change makes a newer version, so a page can drop stale events.
    settings.WATCH_SIMULATOR_MAX_MINUTES = 30
    second = alice_api.post(URL, {"scenario": "sleep"}, format="json").json()
    third = alice_api.post(URL, {"running": False}, format="json").json()
    assert first["version"] < second["version"] < third["version"]
