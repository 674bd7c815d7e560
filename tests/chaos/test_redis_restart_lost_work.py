"""The broker (Redis) down while the patient writes a chat message and uploads a prescription, then
started again empty: nothing the patient asked for is lost.

Real processes: a Celery worker with beat on both queues (``celery``, ``ocr``), and the web side's
own code (``start_chat``, ``receive_upload``) in a subprocess, as the web process runs it. With
Redis down, the web side records the message and the photo and answers; its enqueues fail (logged).
Redis comes back with nothing in it. The sweeps on beat's schedule then find the work nobody is
doing: the chat's run (``agents.resume``) and the prescription's reading
(``health.scheduler.review.requeue_stalled_readings``), and a dose that fell due meanwhile is
reminded once by the dose tick. About a minute and a half.
"""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
import time

import pytest
from django.utils import timezone

from agents.models import Conversation
from health.models import DoseEvent, Notification, Prescription
from tests.agents.helpers import told
from tests.chaos.processes import ROOT, app_environment, kill_group, start_celery_worker, wait_for
from tests.factories import DoseEventFactory, MedicationFactory, ReminderFactory
from tests.health.test_prescription_reading import photo
from tests.summary import summarise

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

WEB_SIDE = """
import json, sys, time
import django
django.setup()
from django.contrib.auth import get_user_model
from agents import services
from health.scheduler import review
user = get_user_model().objects.get(pk=int(sys.argv[1]))
began = time.monotonic()
chat = services.start_chat(user, "what doses do I have today?")
with open(sys.argv[2], "rb") as handle:
    prescription = review.receive_upload(user, handle.read())
print(json.dumps({"chat": chat.pk, "chat_status": chat.status, "prescription": prescription.pk,
                  "prescription_status": prescription.parse_status, "seconds": time.monotonic() - began}))
"""


@pytest.fixture
def due_dose(alice):
    due = timezone.now() - dt.timedelta(minutes=1)
    reminder = ReminderFactory(medication=MedicationFactory(user=alice, name="Metformin"))
    return DoseEventFactory(reminder=reminder, due_at=due, due_on=due.date())


def test_what_the_patient_asked_for_while_redis_was_down_is_done_once_it_is_back(alice, due_dose, broker, tmp_path):
    env = app_environment(
        tmp_path,
        broker.url,
        # No model: the chat's question is one the medicines desk answers from the records.
        AGENT_BACKEND="openai",
        AGENT_OPENAI_BASE_URL="",
        # A run is quiet after this plus 30 s (agents.resume); a queued reading stalls after 5 s.
        AGENT_CALL_TIMEOUT_SECONDS="1",
        OCR_QUEUE_STALLED_SECONDS="5",
    )
    image = tmp_path / "prescription.png"
    image.write_bytes(photo(["Tab. Metformin 500 mg BD x 30 days"]))
    log = tmp_path / "worker.log"
    worker = start_celery_worker(env, log, queues=("celery", "ocr"))
    try:
        wait_for(lambda: "ready." in log.read_text(), 90, "the worker did not start", log)
        broker.kill()
        web = subprocess.run(
            [sys.executable, "-c", WEB_SIDE, str(alice.pk), str(image)],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert web.returncode == 0, web.stderr[-3000:]
        recorded = json.loads(web.stdout.strip().splitlines()[-1])
        # Recorded and answered with the truth: the chat is still to be run, the photo still to be read.
        assert (recorded["chat_status"], recorded["prescription_status"]) == ("running", "pending")

        broker.start()
        back_at = time.monotonic()
        chat = Conversation.objects.get(pk=recorded["chat"])
        prescription = Prescription.objects.get(pk=recorded["prescription"])

        def all_done() -> bool:
            chat.refresh_from_db()
            prescription.refresh_from_db()
            reminded = Notification.objects.filter(kind="dose", data__dose=due_dose.pk).exists()
            return chat.status != "running" and prescription.parse_status != "pending" and reminded

        wait_for(all_done, 150, "the chat, the reading and the reminder were not all done", log)
        done_after = time.monotonic() - back_at
        time.sleep(3)  # anything that would come twice has had time to
        assert worker.poll() is None, "the worker must survive the broker's restart:\n" + log.read_text()[-3000:]
    finally:
        kill_group(worker)

    chat.refresh_from_db()
    prescription.refresh_from_db()
    assert chat.status in ("completed", "waiting_input"), (chat.status, chat.error)
    assert "metformin" in told(chat).lower()
    assert prescription.parse_status == "needs_review", prescription.parse_error
    assert [item["name"] for item in prescription.extracted] == ["metformin"]
    assert Notification.objects.filter(kind="dose", data__dose=due_dose.pk).count() == 1
    assert DoseEvent.objects.get(pk=due_dose.pk).sent_at is not None
    lines = log.read_text().splitlines()
    readings = sum("read_prescription[" in line and "succeeded" in line for line in lines)
    runs = sum("run_conversation[" in line and "succeeded" in line for line in lines)
    summarise(
        f"chaos (Redis down, back empty): the web side recorded both and answered in {recorded['seconds']:.1f} s; "
        f"within {done_after:.0f} s of Redis's return the chat was resumed ({runs} run), the prescription read "
        f"({readings} reading) and the dose reminded once"
    )
    # Answering a patient must not hang on a broker that is down (an enqueue fails fast, logged).
    assert recorded["seconds"] < 10, recorded
