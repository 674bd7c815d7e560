"""The broker (Redis) killed in the middle of a hard SOS's delivery and started again empty.

Real processes, as in tests/chaos/test_sos_worker_killed.py: a Celery worker with beat (the SOS
sweep), and a stand-in SMS provider at Twilio's HTTP boundary. The provider holds the first SOS text;
while it waits, Redis is SIGKILLed and started again on the same port with nothing persisted, so
every queued and prefetched delivery task is gone. The worker and beat reconnect on their own; the
outbox rows are the record of truth, and the SOS sweep sends what nobody is working on. Then the
patient ends the SOS as a false alarm through the (new) broker.

Every start message must reach the provider exactly once, within seconds of Redis coming back, and
no "FALSE ALARM" may reach anyone before the alarm it stands down.
"""

from __future__ import annotations

import time

import pytest

from health.models import OutboundMessage
from tests.chaos.processes import kill_group
from tests.chaos.processes import start_celery_worker as start_worker
from tests.chaos.test_sos_worker_killed import (
    RECIPIENTS,
    each_got_the_alarm_then_the_stand_down,
    end_through_the_broker,
    held_sos_past_its_countdown,
    wait_until_every_message_is_sent,
)
from tests.summary import summarise

WORST_DELAY_TARGET = 20.0  # the SOS sweep runs every 5 s and takes up a message idle for 4 s

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def redis_url(broker) -> str:
    return broker.url


def test_redis_killed_mid_sos_and_back_empty_loses_no_message_and_keeps_the_order(
    alice,
    alice_contacts,
    ambulances,
    provider,
    app_env,
    broker,
    tmp_path,
):
    alert = held_sos_past_its_countdown(alice, provider)
    log = tmp_path / "worker.log"
    worker = start_worker(app_env, log)
    ender = None
    try:
        assert provider.held.wait(90), "no SOS text reached the provider:\n" + log.read_text()[-3000:]
        broker.kill()
        time.sleep(2)  # the worker and beat see the broker gone
        broker.start()
        back_at = time.monotonic()
        provider.release.set()
        ender = end_through_the_broker(app_env, alert.pk)

        wait_until_every_message_is_sent(alert)
        assert ender.wait(60) == 0
        assert worker.poll() is None, "the worker must survive the broker's restart:\n" + log.read_text()[-3000:]
    finally:
        kill_group(worker)
        if ender is not None and ender.poll() is None:
            ender.kill()

    tail = log.read_text()[-4000:]
    worst = each_got_the_alarm_then_the_stand_down(
        alert, provider, since=back_at, title="after Redis was SIGKILLed and came back empty (seconds after)", log=tail
    )
    print(f"worst delay of an alarm: {worst:.1f} s (target <= {WORST_DELAY_TARGET:.0f} s)")
    assert worst <= WORST_DELAY_TARGET, tail


def test_an_sos_ended_while_redis_is_down_tells_everyone_once_it_is_back(
    alice,
    alice_contacts,
    ambulances,
    provider,
    app_env,
    broker,
    tmp_path,
):
    """The patient presses "It was a false alarm" while the broker is down: the end is recorded and
    the patient answered (its enqueue fails, logged); Redis comes back empty, and the SOS sweep runs
    the end nobody enqueued, so the ambulance and every contact hear the stand-down once.

    A worker that loses Redis while it holds unacknowledged tasks can exit (kombu's redis transport
    fails to restore them on a dead connection: "Unrecoverable error ... 'hostname'"); ``make run``'s
    supervisor (scripts/run_local.py) starts it again, and so does this test, counting the restarts."""
    alert = held_sos_past_its_countdown(alice, provider)
    log = tmp_path / "worker.log"
    # The sweep takes up an end nobody runs after a model call's deadline plus 20 s (stalled_run_after).
    env = {**app_env, "AGENT_CALL_TIMEOUT_SECONDS": "1"}
    worker = start_worker(env, log)
    restarts = 0

    def supervise() -> None:
        nonlocal worker, restarts
        if worker.poll() is not None and broker_up:
            restarts += 1
            worker = start_worker(env, log)

    started = time.monotonic()
    broker_up = True
    try:
        assert provider.held.wait(90), "no SOS text reached the provider:\n" + log.read_text()[-3000:]
        provider.release.set()

        def alarms_sent() -> int:
            return OutboundMessage.objects.filter(alert=alert, phase="start", status="sent").count()

        deadline = time.monotonic() + 60
        while alarms_sent() < len(RECIPIENTS) and time.monotonic() < deadline:
            time.sleep(0.3)
        assert alarms_sent() == len(RECIPIENTS), log.read_text()[-3000:]

        broker.kill()
        broker_up = False
        pressed = time.monotonic()
        ender = end_through_the_broker(app_env, alert.pk)
        _, errors = ender.communicate(timeout=30)
        assert ender.returncode == 0, f"ending an SOS with the broker down failed:\n{errors[-3000:]}"
        answered = time.monotonic() - pressed
        alert.refresh_from_db()
        assert alert.end_reason == "false_alarm"

        broker.start()
        broker_up = True
        back_at = time.monotonic()
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            supervise()
            if OutboundMessage.objects.filter(alert=alert, phase="end", status="sent").count() == len(RECIPIENTS):
                break
            time.sleep(0.5)
        stood_down = time.monotonic() - back_at
        time.sleep(3)  # a stand-down that would go twice has had time to
    finally:
        kill_group(worker)

    tail = log.read_text()[-4000:]
    each_got_the_alarm_then_the_stand_down(
        alert, provider, since=started, title="ended while Redis was down (seconds after the worker started)", log=tail
    )
    alert.refresh_from_db()
    assert alert.state == "resolved", (alert.state, tail)
    summarise(
        f"chaos (Redis down, SOS ended): answered in {answered:.1f} s; every stand-down sent {stood_down:.0f} s after "
        f"Redis came back; worker restarts by the supervisor: {restarts}"
    )
    # Answering the patient must not hang on a broker that is down.
    assert answered < 10, answered
