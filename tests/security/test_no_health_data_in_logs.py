"""No personal health data in logs: a whole day of the demo patient through the test client, with
every logger at the level an operator chasing a problem would set (LOG_LEVEL=DEBUG), and every
line written is searched for her name, address, phone numbers, her contacts, what she told the
assistant and the vitals her watch sent."""

from __future__ import annotations

import datetime as dt
import io
import logging
import re
from types import SimpleNamespace

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone
from PIL import Image

from agents.llm import scripted
from agents.llm.scripted import ScriptedBackend
from agents.models import Conversation
from health import demo_data as data
from health.management.demo import seed_demo
from health.models import Alert, DailyReport, OutboundMessage, Prescription, SymptomRecord, VitalReading
from health.scheduler import reading
from tests.agents.helpers import call, end, plan
from tests.summary import summarise

# Vitals no id, port or count in a log line would be equal to (the decimal one especially).
SPO2, HEART_RATE, SYSTOLIC, DIASTOLIC = 83.5, 163, 187, 119
CHAT = "My chest feels tight since this morning and my ankles are swollen"


class Everything(logging.Handler):
    """Keeps every record, formatted as the console would write it (traceback included)."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.lines: list[str] = []
        self.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@pytest.fixture
def every_log_line():
    """Root at DEBUG, as LOG_LEVEL=DEBUG sets it; loggers the settings quiet on purpose (SQL with
    its parameters, the SMS provider's URLs) stay as configured, and so does everything else."""
    handler = Everything()
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    # Loggers that do not propagate to the root would write elsewhere: listen to them too.
    lonely = [logger for logger in logging.root.manager.loggerDict.values()
              if isinstance(logger, logging.Logger) and not logger.propagate]  # fmt: skip
    for logger in lonely:
        logger.addHandler(handler)
    yield handler.lines
    for logger in lonely:
        logger.removeHandler(handler)
    root.removeHandler(handler)
    root.setLevel(level)


def personal_details(demo) -> dict[str, re.Pattern]:
    """What must never be in a log line, each as a pattern that also finds it reformatted."""
    profile = demo.profile
    values = {
        "first name": demo.first_name,
        "last name": demo.last_name,
        "email": demo.email,
        "home address": profile.home_address.split(",")[0],
        "home latitude": str(profile.home_latitude),
        "home longitude": str(profile.home_longitude),
        "chat text": "chest feels tight",
        "symptom": "ankles are swollen",
        "condition": profile.conditions[0],
        "allergy": profile.allergies[0],
    }
    patterns = {label: re.compile(re.escape(value), re.I) for label, value in values.items()}
    phones = [profile.phone] + [c.phone for c in demo.emergency_contacts.all()]
    for number, phone in enumerate(phones):
        # +14155550100, 4155550100, (415) 555-0100, 415-555-0100, 415 555 0100
        digits = phone[-10:]
        loose = r"\D{0,2}".join([digits[:3], digits[3:6], digits[6:]])
        patterns[f"phone {number}"] = re.compile(loose)
    for contact in demo.emergency_contacts.all():
        patterns[f"contact {contact.name}"] = re.compile(re.escape(contact.name.split()[0]), re.I)
    for label, value in {"SpO2": SPO2, "heart rate": HEART_RATE, "systolic": SYSTOLIC, "diastolic": DIASTOLIC}.items():
        patterns[label] = re.compile(rf"(?<![\d.]){re.escape(str(value))}(?![\d])")
    return patterns


# Celery's task ids are random UUIDs: "187f3f82-..." would read as a systolic of 187 now and then.
UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I)


def leaks(lines: list[str], patterns: dict[str, re.Pattern]) -> list[str]:
    return [
        f"{label}: {line}"
        for line in lines
        for label, pattern in patterns.items()
        if pattern.search(UUID.sub("<uuid>", line))
    ]


@pytest.fixture
def demo(db, settings, tmp_path):
    settings.DEMO = True
    settings.DATA_DIR = tmp_path
    settings.SOS_COUNTDOWN_SECONDS = 0
    settings.AGENT_BACKEND = "scripted"
    settings.AGENT_SOS_BUDGET_SECONDS = 0
    settings.TWILIO_ACCOUNT_SID = settings.TWILIO_AUTH_TOKEN = settings.TWILIO_FROM_NUMBER = ""
    seed_demo(days=1, environ={})
    yield get_user_model().objects.get(username=data.DEMO_USERNAME)
    scripted.install(None)


def a_day_of_the_demo_patient(demo, tmp_path, capture, monkeypatch) -> dict:
    """A wrong password then the right one, the watch's readings (a low SpO2 that raises a soft
    SOS) and a batch it gets refused, a chat that stores a symptom, a prescription photo read, a
    hard SOS with no SMS provider, today's report and the download of all her data. Returns what
    each step answered."""
    browser = Client()
    watch = Client(HTTP_AUTHORIZATION=f"Device {(tmp_path / data.DEVICE_TOKEN_FILE).read_text().strip()}")
    answers = {}
    with capture(execute=True):
        answers["wrong password"] = browser.post("/login/", {"username": "demo", "password": "maya1961"})
        answers["login"] = browser.post("/login/", {"username": "demo", "password": data.DEMO_PASSWORD})
    now = timezone.now().replace(microsecond=0)
    readings = [
        {
            "measured_at": (now - dt.timedelta(seconds=30 * i)).isoformat(),
            "spo2": SPO2,
            "heart_rate": HEART_RATE,
            "systolic_bp": SYSTOLIC,
            "diastolic_bp": DIASTOLIC,
        }
        for i in range(6, 0, -1)
    ]
    with capture(execute=True):
        answers["vitals"] = watch.post("/api/vitals/", readings, content_type="application/json")
        impossible = [{**readings[0], "heart_rate": 999}]
        answers["refused vitals"] = watch.post("/api/vitals/", impossible, content_type="application/json")
    scripted.install(
        ScriptedBackend(
            planner=[plan("The patient describes chest tightness and swelling.", "Store the symptoms."), end()],
            caller=[
                call(
                    "store_symptoms",
                    user_id=str(demo.pk),
                    symptoms="chest tightness, swollen ankles",
                    timestamp=f"{timezone.localdate():%Y-%m-%d}T09:00:00",
                )
            ],
        )
    )
    with capture(execute=True):
        answers["chat"] = browser.post("/api/conversations/", {"text": CHAT}, content_type="application/json")
    # A photo of a prescription with her name on it, read by the OCR worker's task (EasyOCR stood in
    # for by the text it would read: what is logged of the reading is what is tested).
    written = f"{demo.get_full_name()}\nTab Metformin 500 mg 1-0-1 after food x 30 days"
    monkeypatch.setattr(reading, "get_reader", lambda: None)
    monkeypatch.setattr(reading, "read_text", lambda image, settings: SimpleNamespace(text=written, lines=[], steps=[]))
    photo = io.BytesIO()
    Image.new("RGB", (600, 300), "white").save(photo, format="PNG")
    photo.seek(0)
    photo.name = "prescription.png"
    with capture(execute=True):
        answers["prescription"] = browser.post("/medications/upload/", {"image": photo})
    answers["prescription page"] = browser.get(answers["prescription"]["Location"])
    scripted.install(ScriptedBackend())  # the SOS: a model that fails, so the guard does it all
    with capture(execute=True):
        answers["sos"] = browser.post("/api/sos/", {}, content_type="application/json")
    with capture(execute=True):
        answers["sos page"] = browser.get("/sos/")
        answers["report"] = browser.post("/reports/today/")
        export = browser.get("/profile/export/")
        answers["export"] = (export.status_code, b"".join(export.streaming_content))
    return answers


def test_a_day_of_the_demo_patient_leaves_no_health_data_in_the_logs(
    demo, tmp_path, every_log_line, django_capture_on_commit_callbacks, monkeypatch
):
    answers = a_day_of_the_demo_patient(demo, tmp_path, django_capture_on_commit_callbacks, monkeypatch)

    # The scenario really happened, so the logs had something to leak.
    assert answers["wrong password"].status_code == 200
    assert answers["login"].status_code == 302
    assert answers["vitals"].status_code == 201
    assert VitalReading.objects.filter(user=demo, spo2=SPO2).count() == 6
    assert answers["refused vitals"].status_code == 400
    assert Alert.objects.filter(user=demo, kind=Alert.Kind.SOFT, condition="hypoxia").exists()
    assert answers["chat"].status_code == 201
    assert Conversation.objects.get(pk=answers["chat"].json()["id"]).status == "completed"
    assert SymptomRecord.objects.filter(user=demo).count() == len(data.PAST_SYMPTOMS) + 1
    assert answers["prescription"].status_code == 302
    prescription = Prescription.objects.get(user=demo)
    assert prescription.parse_status == "needs_review" and "metformin" in str(prescription.extracted).lower()
    assert answers["prescription page"].status_code == 200
    assert answers["sos"].status_code == 201
    hard = Alert.objects.get(user=demo, kind=Alert.Kind.HARD)
    sent = OutboundMessage.objects.filter(alert=hard)
    assert sent.count() == 3 and {m.status for m in sent} == {"not_sent"}
    assert any("Maya" in m.body for m in sent), "the SOS texts name her: the logs must not"
    assert answers["sos page"].status_code == 200
    assert answers["report"].status_code == 302 and DailyReport.objects.filter(user=demo).exists()
    assert answers["export"][0] == 200 and answers["export"][1].startswith(b"PK")
    lines = every_log_line
    assert len(lines) >= 20, lines

    details = personal_details(demo)
    found = leaks(lines, details)

    assert not found, "\n".join(found)
    summarise(f"log scan: {len(lines)} log lines, {len(details)} kinds of personal detail, none found")


def test_the_scan_finds_a_leak_when_there_is_one(demo):
    """The control: each kind of detail, logged the way a careless line would, is caught."""
    profile = demo.profile
    contact = demo.emergency_contacts.first()
    careless = [
        f"INFO x: texting {contact.name} at {contact.phone}",
        f"INFO x: patient {demo.get_full_name()} at {profile.home_address}",
        f"DEBUG x: reading spo2={SPO2} hr={HEART_RATE} bp={SYSTOLIC}/{DIASTOLIC}",
        f"INFO x: user said: {CHAT}",
        "INFO x: calling (415) 555-0100",
    ]

    found = leaks(careless, personal_details(demo))

    assert {line.split(": ", 1)[0] for line in found} >= {
        "first name", "last name", "home address", "SpO2", "heart rate", "systolic", "diastolic",
        "chat text", "symptom", "phone 0", "phone 1", f"contact {contact.name}",
    }  # fmt: skip
    clean = [
        "INFO health.sos: alert 12 opened",
        "INFO agents: conversation 3 completed in 1.63 s",
        f"INFO celery.app.trace: Task health.tasks.deliver_message[{SYSTOLIC}f3f82-8fd8-408a-8bb7-a4c7c5f0f311]",
    ]
    assert not leaks(clean, personal_details(demo))
