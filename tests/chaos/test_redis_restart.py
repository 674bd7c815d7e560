"""The broker (Redis) killed in the middle of a hard SOS's delivery and started again empty.

Real processes, as in tests/health/test_sos_worker_death.py: a Celery worker with beat (the SOS
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
from tests.health.test_sos_worker_death import (
    RECIPIENTS,
    each_got_the_alarm_then_the_stand_down,
    end_through_the_broker,
    held_sos_past_its_countdown,
)

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

        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            statuses = list(OutboundMessage.objects.filter(alert=alert).values_list("status", flat=True))
            if len(statuses) == 2 * len(RECIPIENTS) and set(statuses) == {"sent"}:
                break
            time.sleep(0.5)
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
