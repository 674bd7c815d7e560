"""A Celery worker SIGKILLed in the middle of a hard SOS's delivery, probed from outside.

Real processes: a Redis broker, a Celery worker with beat (the SOS sweep),
and a stand-in SMS provider at Twilio's HTTP boundary that the worker reaches
through the official Twilio client. The provider holds the first SOS text
unanswered; the test kills the whole worker (every process of it) while it
waits, the patient ends the SOS as a false alarm (through the broker, as the
web app does), and a new worker starts (as ``make run``'s supervisor does).

Every start message must reach the provider within seconds of the kill, and
no "FALSE ALARM" may reach anyone before the alarm it stands down.
"""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
import time

import pytest
from django.utils import timezone

from health.models import Alert, OutboundMessage
from tests.chaos.processes import ROOT, app_environment, kill_group
from tests.chaos.processes import start_celery_worker as start_worker
from tests.factories import AlertFactory
from tests.local_redis import redis_database
from tests.messaging.standin_provider import StandInProvider
from tests.summary import summarise

ACCOUNT_SID = "AC" + "0" * 31 + "7"
FROM_NUMBER = "+15005550006"
WORST_DELAY_TARGET = 15.0
RECIPIENTS = ("+14155560001", "+14155550101", "+14155550102")

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def redis_url(tmp_path):
    """A Redis database of the test's own: the shared server (CI's second run) or a local one."""
    with redis_database(tmp_path, 13) as url:
        yield url


@pytest.fixture
def provider():
    standin = StandInProvider(account_sid=ACCOUNT_SID).start()
    yield standin
    standin.stop()


@pytest.fixture
def app_env(tmp_path, redis_url, provider) -> dict[str, str]:
    return app_environment(
        tmp_path,
        redis_url,
        TWILIO_ACCOUNT_SID=ACCOUNT_SID,
        TWILIO_AUTH_TOKEN="test-auth-token",
        TWILIO_FROM_NUMBER=FROM_NUMBER,
        TWILIO_API_URL=provider.url,
        # No model: the SOS guard runs the fixed sequence (the model is not what is tested here).
        AGENT_BACKEND="openai",
        AGENT_OPENAI_BASE_URL="",
    )


def end_through_the_broker(env: dict[str, str], alert_id: int) -> subprocess.Popen:
    """The patient presses "It was a false alarm": the web app records it and enqueues the end."""
    code = (
        "import django; django.setup()\n"
        "from health import sos\nfrom health.models import Alert\n"
        f"sos.request_end(Alert.objects.get(pk={alert_id}), 'false_alarm')\n"
    )
    return subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)


def held_sos_past_its_countdown(user, provider) -> Alert:
    """A hard SOS whose countdown has just run out (the worker's beat sweep starts it), with the
    provider set to hold the first SOS text it receives unanswered."""
    provider.hold_when = lambda form: True
    return AlertFactory(
        user=user,
        kind=Alert.Kind.HARD,
        state=Alert.State.COUNTDOWN,
        condition="",
        countdown_ends_at=timezone.now() - dt.timedelta(seconds=1),
    )


def test_a_worker_killed_mid_delivery_delays_no_sos_message_and_no_end_overtakes_its_start(
    alice, alice_contacts, ambulances, provider, app_env, tmp_path
):
    # The first SOS text the provider sees is held: the worker dies waiting for the answer.
    alert = held_sos_past_its_countdown(alice, provider)
    workers = [start_worker(app_env, tmp_path / "worker-1.log")]
    ender = None
    try:
        assert provider.held.wait(90), (
            "no SOS text reached the provider:\n" + (tmp_path / "worker-1.log").read_text()[-3000:]
        )
        kill_group(workers[0])
        killed_at = time.monotonic()
        provider.release.set()
        ender = end_through_the_broker(app_env, alert.pk)
        workers.append(start_worker(app_env, tmp_path / "worker-2.log"))

        wait_until_every_message_is_sent(alert)
        assert ender.wait(60) == 0
    finally:
        for worker in workers:
            kill_group(worker)
        if ender is not None and ender.poll() is None:
            ender.kill()

    log = (tmp_path / "worker-2.log").read_text()[-4000:]
    worst = each_got_the_alarm_then_the_stand_down(
        alert, provider, since=killed_at, title="after the worker was SIGKILLed (seconds after the kill)", log=log
    )
    summarise(f"chaos (worker SIGKILLed mid-SOS): every alarm once, before its stand-down; worst delay {worst:.1f} s")
    assert worst <= WORST_DELAY_TARGET, log


def wait_until_every_message_is_sent(alert, seconds: float = 120) -> None:
    """Poll until every start and end message of ``alert`` is recorded sent (or ``seconds`` pass: the
    checks after it then say what is missing)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        statuses = list(OutboundMessage.objects.filter(alert=alert).values_list("status", flat=True))
        if len(statuses) == 2 * len(RECIPIENTS) and set(statuses) == {"sent"}:
            return
        time.sleep(0.5)


def each_got_the_alarm_then_the_stand_down(alert, provider, *, since: float, title: str, log: str) -> float:
    """Every start and end message of ``alert`` sent once, each recipient's alarm before its "FALSE
    ALARM"; prints each recipient's delays after ``since`` and returns the worst alarm delay."""
    rows = list(OutboundMessage.objects.filter(alert=alert).order_by("pk"))
    assert [(m.phase, m.status) for m in rows].count(("start", "sent")) == len(RECIPIENTS), log
    assert [(m.phase, m.status) for m in rows].count(("end", "sent")) == len(RECIPIENTS), log

    delays = []
    for recipient in RECIPIENTS:
        got = [m for m in provider.accepted if m.to == recipient]
        # Exactly one alarm and one stand-down each, the alarm first.
        assert len(got) == 2, [(m.to, m.body[:30]) for m in provider.accepted]
        alarm, stand_down = got
        assert not alarm.body.startswith("FALSE ALARM") and stand_down.body.startswith("FALSE ALARM"), got
        delays.append((recipient, alarm.at - since, stand_down.at - since))

    print(f"\nSOS delivery {title}")
    print(f"{'recipient':<16} {'alarm':>7} {'false alarm':>12}")
    for recipient, alarm, stand_down in delays:
        print(f"{recipient:<16} {alarm:>7.1f} {stand_down:>12.1f}")
    return max(alarm for _, alarm, _ in delays)
