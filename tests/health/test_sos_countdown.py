"""The hard SOS countdown is honoured with and without a Celery worker.

With a worker, the press enqueues the countdown task with the countdown.
Without one (eager Celery: no broker, no beat), the task would run at once
and refuse to open the alert early, so a timer in the process runs it when
the countdown is over. The request never waits for the countdown.
"""

from __future__ import annotations

import time
from unittest import mock

import pytest

from health import sos
from health.models import Alert, OutboundMessage
from health.tasks import hard_sos_countdown_elapsed

COUNTDOWN = 10
START_ROWS = [
    ("ambulance", "+14155560001"),
    ("emergency_contact", "+14155550101"),
    ("emergency_contact", "+14155550102"),
]


def outbox(alert_id: int) -> list[tuple[str, str]]:
    return sorted((m.recipient_kind, m.recipient) for m in OutboundMessage.objects.filter(alert_id=alert_id))


class FakeTimer:
    """threading.Timer, started and cancelled by the code, fired by the test."""

    made: list[FakeTimer] = []

    def __init__(self, interval, function, args=()):
        self.interval, self.function, self.args = interval, function, args
        self.started = self.cancelled = False
        FakeTimer.made.append(self)

    def start(self):
        self.started = True

    def cancel(self):
        self.cancelled = True

    def fire(self):
        if not self.cancelled:
            self.function(*self.args)


@pytest.fixture
def fake_timers():
    FakeTimer.made = []
    with mock.patch("health.sos.hard.threading.Timer", FakeTimer):
        yield FakeTimer.made


def press(client, clock, django_capture_on_commit_callbacks, at: float = 0) -> int:
    with clock(at), django_capture_on_commit_callbacks(execute=True):
        response = client.post("/api/sos/", {}, format="json")
    assert response.status_code == 201
    return response.json()["id"]


@pytest.fixture
def worker_mode():
    """As with a broker and a worker: tasks are sent, not run inline."""
    conf = hard_sos_countdown_elapsed.app.conf
    eager = conf.task_always_eager
    conf.task_always_eager = False
    with mock.patch.object(hard_sos_countdown_elapsed, "apply_async") as apply_async:
        yield apply_async
    conf.task_always_eager = eager


def test_eager_mode_starts_the_sos_when_the_countdown_is_over(
    alice, alice_api, alice_contacts, ambulances, clock, settings, fake_timers, django_capture_on_commit_callbacks
):
    settings.SOS_COUNTDOWN_SECONDS = COUNTDOWN
    assert hard_sos_countdown_elapsed.app.conf.task_always_eager

    alert_id = press(alice_api, clock, django_capture_on_commit_callbacks)

    [timer] = fake_timers
    assert timer.started and timer.interval == pytest.approx(COUNTDOWN, abs=0.1)
    assert Alert.objects.get(pk=alert_id).state == "countdown"
    assert OutboundMessage.objects.count() == 0

    with clock(COUNTDOWN + 0.1), django_capture_on_commit_callbacks(execute=True):
        timer.fire()

    assert Alert.objects.get(pk=alert_id).state == "open"
    assert outbox(alert_id) == START_ROWS


def test_eager_mode_a_timer_that_wakes_early_waits_for_the_rest(
    alice, alice_api, alice_contacts, ambulances, clock, settings, fake_timers, django_capture_on_commit_callbacks
):
    settings.SOS_COUNTDOWN_SECONDS = COUNTDOWN
    alert_id = press(alice_api, clock, django_capture_on_commit_callbacks)

    with clock(COUNTDOWN - 2):
        fake_timers[0].fire()

    assert Alert.objects.get(pk=alert_id).state == "countdown"
    assert fake_timers[1].started and fake_timers[1].interval == pytest.approx(2, abs=0.1)
    with clock(COUNTDOWN + 1):
        fake_timers[1].fire()
    assert outbox(alert_id) == START_ROWS


def test_eager_mode_cancelling_within_the_countdown_stops_the_timer_and_sends_nothing(
    alice, alice_api, alice_contacts, ambulances, clock, settings, fake_timers, django_capture_on_commit_callbacks
):
    settings.SOS_COUNTDOWN_SECONDS = COUNTDOWN
    alert_id = press(alice_api, clock, django_capture_on_commit_callbacks)

    with clock(COUNTDOWN - 3), django_capture_on_commit_callbacks(execute=True):
        response = alice_api.post(f"/api/alerts/{alert_id}/cancel/")
    assert response.status_code == 200

    [timer] = fake_timers
    assert timer.cancelled
    with clock(COUNTDOWN + 1):
        timer.function(*timer.args)  # even a timer that fired anyway does nothing

    assert Alert.objects.get(pk=alert_id).state == "cancelled"
    assert OutboundMessage.objects.count() == 0


def test_eager_mode_a_zero_countdown_starts_at_once_without_a_timer(
    alice, alice_api, alice_contacts, ambulances, clock, settings, fake_timers, django_capture_on_commit_callbacks
):
    settings.SOS_COUNTDOWN_SECONDS = 0

    alert_id = press(alice_api, clock, django_capture_on_commit_callbacks)

    assert fake_timers == []
    assert Alert.objects.get(pk=alert_id).state == "open"
    assert outbox(alert_id) == START_ROWS


def test_with_a_worker_the_press_enqueues_the_countdown_task_with_its_countdown(
    alice, alice_api, alice_contacts, ambulances, clock, settings, fake_timers, worker_mode,
    django_capture_on_commit_callbacks,
):  # fmt: skip
    settings.SOS_COUNTDOWN_SECONDS = COUNTDOWN

    alert_id = press(alice_api, clock, django_capture_on_commit_callbacks)

    assert fake_timers == []
    worker_mode.assert_called_once()
    args, kwargs = worker_mode.call_args
    assert args == ((alert_id,),) and kwargs["countdown"] == pytest.approx(COUNTDOWN, abs=0.1)
    assert OutboundMessage.objects.count() == 0


def test_with_a_worker_a_zero_countdown_enqueues_the_task_at_once(
    alice, alice_api, alice_contacts, ambulances, clock, settings, fake_timers, worker_mode,
    django_capture_on_commit_callbacks,
):  # fmt: skip
    settings.SOS_COUNTDOWN_SECONDS = 0

    alert_id = press(alice_api, clock, django_capture_on_commit_callbacks)

    worker_mode.assert_called_once_with((alert_id,), countdown=0.0)


@pytest.mark.django_db(transaction=True)
def test_eager_mode_a_real_timer_thread_sends_the_sos_after_the_countdown(
    alice, alice_api, alice_contacts, ambulances, settings
):
    """No fakes: the press answers at once, the timer thread opens the alert a second later."""
    settings.SOS_COUNTDOWN_SECONDS = 1

    began = time.monotonic()
    response = alice_api.post("/api/sos/", {}, format="json")
    answered = time.monotonic() - began
    alert_id = response.json()["id"]

    assert response.status_code == 201 and answered < 1
    assert Alert.objects.get(pk=alert_id).state == "countdown"
    timer = sos.pending_countdown_timer(alert_id)
    assert timer is not None
    timer.join(timeout=30)

    assert not timer.is_alive()
    assert Alert.objects.get(pk=alert_id).state == "open"
    assert outbox(alert_id) == START_ROWS
