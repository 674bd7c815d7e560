"""The browser's Watch panel drives this: a simulated watch per patient that
sends ``readings()`` of the chosen scenario in real time, about one a second.

Readings go in exactly as a real watch's do: validated by the public API's
serializer as if posted with the watch's device token, then stored, judged and
pushed by ``health.vitals.record_readings``. The monitor, soft SOS banners and
the live ``vitals`` websocket events therefore fire as for a real watch.

State lives in the database (``WatchFeed``): scenario, running, and how far
the current scenario's readings have been stored. ``tick`` stores whatever is
due by now and says when the next reading is due, so what drives it only has
to call it on time:

* In the web process (daphne, under ``make run`` and in the browser tests) an
  asyncio task on the server's event loop calls ``tick`` about once a second
  (``ensure_driver``); each tick runs in a worker thread, like a sync view.
  Stopping or switching takes effect at the next tick (within a second).
* A restart ends the task with the process, never leaving a feed running
  unseen; a feed still marked running is picked up again when its owner next
  opens the Watch page (``ensure_driver`` on GET). Missed readings are not
  replayed beyond ``MAX_CATCH_UP``: the watch was off meanwhile.
* Every feed stops itself ``WATCH_SIMULATOR_MAX_MINUTES`` (default 30) after it
  was last started or switched, so nothing runs on forever.

``WATCH_SIMULATOR_SPEED`` (a setting, default 1: real time) lets tests run the
scenarios faster; the readings' ``measured_at`` then runs ahead of the clock.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import itertools
import logging
import os
import random
from types import SimpleNamespace
from typing import Any

from asgiref.sync import SyncToAsync, sync_to_async
from django.conf import settings
from django.db import close_old_connections, transaction
from django.utils import timezone

from core.events import Event
from core.realtime import push_to_user
from health.api.vitals import VitalReadingSerializer
from health.models import Device, WatchFeed
from health.simulator import EXPECTED, SCENARIOS, readings
from health.vitals import record_readings

log = logging.getLogger(__name__)

SIMULATED_WATCH_NAME = "Simulated watch"
# What the panel's buttons say, and what each scenario shows.
SCENARIO_LABELS: dict[str, tuple[str, str]] = {
    "normal": ("Normal day", "Resting heart rate with short walks."),
    "exercise": ("Exercise", "A brisk walk, then a run: a high heart rate is fine while moving."),
    "sleep": ("Sleep", "Low heart rate and the sleep stages of the night."),
    "bradycardia": ("Bradycardia", "A very slow heart rate, below 40 bpm."),
    "tachycardia_at_rest": ("Fast heart at rest", "Above 120 bpm while sitting still."),
    "hypoxia": ("Hypoxia", "Blood oxygen falls below 90 % over two minutes."),
    "hypertensive_crisis": ("Very high blood pressure", "Around 190/120 mmHg."),
    "sensor_glitch": ("Loose strap", "Now and then a 0 bpm or odd SpO2 reading, which is ignored."),
}
assert set(SCENARIO_LABELS) == set(SCENARIOS), "label every scenario"

# Readings stored per tick at most; a feed further behind (its server was
# down) skips the gap instead of replaying it.
MAX_CATCH_UP = 120
# Ticks come at most this often, whatever the speed: a faster feed stores a
# few readings per tick instead of ticking more often.
MIN_TICK_SECONDS = 0.2
# Between ticks at most this long, so that a stop or a switch shows quickly.
MAX_TICK_SECONDS = 1.0
# After this many failed ticks in a row the driver gives up (the feed stays
# marked running and resumes when its owner opens the Watch page again).
MAX_FAILED_TICKS = 5


class FeedError(ValueError):
    """A request the feed cannot follow (an unknown scenario)."""


def speed() -> float:
    return max(0.01, float(getattr(settings, "WATCH_SIMULATOR_SPEED", 1.0)))


def max_duration() -> dt.timedelta:
    return dt.timedelta(minutes=float(getattr(settings, "WATCH_SIMULATOR_MAX_MINUTES", 30)))


def scenarios() -> list[dict[str, Any]]:
    return [
        {"name": name, "label": label, "description": description, "expected_alert": EXPECTED[name]}
        for name, (label, description) in SCENARIO_LABELS.items()
    ]


# --- State --------------------------------------------------------------------


def stops_at(feed: WatchFeed) -> dt.datetime | None:
    return feed.segment_started_at + max_duration() if feed.segment_started_at else None


def is_running(feed: WatchFeed | None, now: dt.datetime | None = None) -> bool:
    if feed is None or not feed.running:
        return False
    end = stops_at(feed)
    return end is None or (now or timezone.now()) < end


def _iso(when: dt.datetime | None) -> str | None:
    return when.isoformat().replace("+00:00", "Z") if when else None


def describe(feed: WatchFeed | None) -> dict[str, Any]:
    """The feed as the API and the ``watch`` websocket event show it (JSON-ready)."""
    running = is_running(feed)
    reason = ""
    if feed is not None and not running:
        reason = feed.stopped_reason or ("Stopped by itself after its time limit." if feed.running else "")
    return {
        "scenario": feed.scenario if feed else "normal",
        "running": running,
        "device": feed.device_id if feed else None,
        "started_at": _iso(feed.started_at) if feed else None,
        "stops_at": _iso(stops_at(feed)) if running else None,
        "readings": feed.readings_sent if feed else 0,
        "steps": feed.steps if feed else 0,
        "stopped_reason": reason,
        "speed": speed(),
        # Grows with every change: a page ignores a state older than the one it shows
        # (a tick's event may arrive after the answer to a Stop).
        "version": feed.updated_at.timestamp() if feed else 0,
    }


def _push_state(feed: WatchFeed) -> None:
    payload = describe(feed)
    user_id = feed.user_id
    transaction.on_commit(lambda: push_to_user(user_id, Event.WATCH, payload), robust=True)


def _simulated_watch(user) -> Device:
    """The user's active simulated watch, paired now if they have none."""
    device = (
        Device.objects.filter(user=user, kind=Device.Kind.SIMULATOR, revoked_at__isnull=True).order_by("id").first()
    )
    if device is None:
        device = Device(user=user, name=SIMULATED_WATCH_NAME, kind=Device.Kind.SIMULATOR)
        # Nobody sees this token: the feed stores its readings in-process. The
        # device is still a normal one, which the patient can revoke.
        device.issue_token()
        device.save()
    return device


def _new_segment(feed: WatchFeed, now: dt.datetime) -> None:
    feed.segment_started_at = now
    sim_start = now.replace(microsecond=0)
    if feed.last_measured_at is not None and feed.last_measured_at >= sim_start:
        # A sped-up feed measured ahead of the clock: keep its instants unique.
        sim_start = feed.last_measured_at.replace(microsecond=0) + dt.timedelta(seconds=1)
    feed.sim_start = sim_start
    feed.position = 0


def control(user, *, scenario: str | None = None, running: bool | None = None) -> WatchFeed:
    """Start, stop or switch ``user``'s feed (in the caller's transaction).

    A new scenario while running starts that scenario's readings from their
    beginning; while stopped it is kept for the next start. Starting pairs a
    simulated watch if the user has none. The driver is started once this
    commits (``ensure_driver``)."""
    if scenario is not None and scenario not in SCENARIOS:
        raise FeedError(f"Unknown scenario {scenario!r}; choose one of: {', '.join(SCENARIOS)}.")
    now = timezone.now()
    feed, _ = WatchFeed.objects.select_for_update().get_or_create(user=user)
    was_running = is_running(feed, now)
    if scenario is not None and scenario != feed.scenario:
        feed.scenario = scenario
        if was_running:
            _new_segment(feed, now)
    if running is True and not was_running:
        device = feed.device
        if device is None or not device.is_active:
            device = _simulated_watch(user)
        feed.device = device
        feed.running = True
        feed.seed = random.randrange(1_000_000)
        feed.started_at = now
        feed.readings_sent = feed.steps = 0
        feed.stopped_reason = ""
        _new_segment(feed, now)
    elif running is False and feed.running:
        feed.running = False
        feed.stopped_reason = "Stopped."
    feed.save()
    _push_state(feed)
    if feed.running:
        user_id = user.pk
        transaction.on_commit(lambda: ensure_driver(user_id), robust=True)
    return feed


# --- Ticks ----------------------------------------------------------------------


def _stop(feed: WatchFeed, reason: str) -> None:
    feed.running = False
    feed.stopped_reason = reason
    feed.save(update_fields=["running", "stopped_reason", "updated_at"])
    _push_state(feed)


def _validated(device: Device, batch: list[dict[str, Any]], now: dt.datetime) -> list[dict[str, Any]]:
    """``batch`` as the public API validates it when ``device`` posts it with its token, at the
    simulated watch's clock ``now``: the tick's, or ahead of it when ``WATCH_SIMULATOR_SPEED``
    fast-forwards the scenario (its readings are then the watch's present, not the future)."""
    request = SimpleNamespace(auth=device, user=device.user)
    serializer = VitalReadingSerializer(data=batch, many=True, context={"request": request, "now": now})
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


def tick(user_id: int, *, now: dt.datetime | None = None) -> float | None:
    """Store the readings of ``user_id``'s feed that are due by ``now``.

    Returns the seconds until the next tick is due, or None when the feed does
    not run (stopped, past its time limit, or its watch was revoked)."""
    now = now or timezone.now()
    with transaction.atomic():
        feed = (
            WatchFeed.objects.select_for_update(of=("self",))
            .select_related("device__user")
            .filter(user_id=user_id, running=True)
            .first()
        )
        if feed is None or feed.segment_started_at is None or feed.sim_start is None:
            return None
        if not is_running(feed, now):
            _stop(feed, "Stopped by itself after its time limit.")
            return None
        if feed.device is None or not feed.device.is_active:
            _stop(feed, "The simulated watch was removed.")
            return None
        rate = speed()
        elapsed = (now - feed.segment_started_at).total_seconds() * rate
        due = int(elapsed) + 1 if elapsed >= 0 else 0
        if due > feed.position:
            first = max(feed.position, due - MAX_CATCH_UP)
            stream = readings(feed.scenario, start=feed.sim_start, seconds=due, seed=feed.seed)
            batch = list(itertools.islice(stream, first, due))
            watch_now = max(now, feed.sim_start + dt.timedelta(seconds=due))
            result = record_readings(user=feed.device.user, readings=_validated(feed.device, batch, watch_now))
            feed.position = due
            feed.readings_sent += result.created
            feed.steps += sum(reading.steps or 0 for reading in result.new)
            feed.last_measured_at = feed.sim_start + dt.timedelta(seconds=due - 1)
            feed.last_tick_at = now
            feed.save()
            _push_state(feed)
        next_due = feed.segment_started_at + dt.timedelta(seconds=feed.position / rate)
    wait = (next_due - now).total_seconds()
    return min(MAX_TICK_SECONDS, max(MIN_TICK_SECONDS, wait))


# --- The driver: an asyncio task on the web server's event loop -----------------

# user id -> the task driving that user's feed in this process. Only touched on
# the event loop's thread.
_drivers: dict[int, asyncio.Task] = {}


def _tick_in_worker(user_id: int) -> float | None:
    close_old_connections()
    try:
        return tick(user_id)
    finally:
        close_old_connections()


async def _drive(user_id: int) -> None:
    failures = 0
    delay: float | None = 0.0
    try:
        while delay is not None:
            await asyncio.sleep(delay)
            try:
                delay = await sync_to_async(_tick_in_worker, thread_sensitive=False)(user_id)
                failures = 0
            except Exception:
                failures += 1
                log.exception("simulated watch of user %s: tick failed (%s in a row)", user_id, failures)
                delay = None if failures >= MAX_FAILED_TICKS else 2.0 * failures
    finally:
        if _drivers.get(user_id) is asyncio.current_task():
            del _drivers[user_id]


def _spawn(user_id: int) -> None:
    task = _drivers.get(user_id)
    if task is None or task.done():
        _drivers[user_id] = asyncio.get_running_loop().create_task(_drive(user_id), name=f"watch-feed-{user_id}")


def _server_loop() -> asyncio.AbstractEventLoop | None:
    """The ASGI server's event loop when called from a sync view it runs, else None
    (the test client, a management command, a Celery worker)."""
    local = SyncToAsync.threadlocal
    loop = getattr(local, "main_event_loop", None)
    if loop is None or getattr(local, "main_event_loop_pid", None) != os.getpid():
        return None
    return loop if loop.is_running() and not loop.is_closed() else None


def ensure_driver(user_id: int) -> bool:
    """Make sure a task in this web process ticks ``user_id``'s feed; False
    where there is no server loop to run it on (then ``tick`` must be called
    by whoever runs the feed, as the tests do)."""
    loop = _server_loop()
    if loop is None:
        return False
    loop.call_soon_threadsafe(_spawn, user_id)
    return True
