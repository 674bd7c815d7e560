"""The health desk (agents/health_desk.py, agents/tools/my_health.py): "how was my day?", "how did I
sleep?", "my heart rate this week" are answered from the recorded readings without the model, with
every number computed from them; a complaint still goes to the model."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from agents import health_desk
from agents.llm.scripted import ScriptedBackend
from agents.services import start_chat
from health.models import SymptomRecord
from tests.agents.helpers import BERLIN, end, harmful_model, states
from tests.factories import DeviceFactory, VitalReadingFactory

READS = [
    ("How was my day?", "day", "today"),
    ("how did i sleep last night", "sleep", "last_night"),
    ("how did I sleep?", "sleep", "today"),
    ("What was my heart rate this week?", "heart_rate", "week"),
    ("How were my vitals today", "vitals", "today"),
    ("what's my blood pressure been like lately", "blood_pressure", "week"),
    ("how many steps did I do yesterday", "steps", "yesterday"),
    ("show me my oxygen", "spo2", "today"),
    ("how was my week", "day", "week"),
    ("how did mum sleep last night", "sleep", "last_night"),
    ("hw was my dya?", "day", "today"),
    ("has my watch picked up anything unusual?", "day", "today"),
    ("how has my heart been this week", "heart_rate", "week"),
    ("can I see my health report", "day", "today"),
    ("what was my temperature yesterday?", "temperature", "yesterday"),
    ("how is my blood sugar", "blood_sugar", "today"),
    ("hows my health today", "day", "today"),
    ("what time did I wake up this morning", "sleep", "today"),
    ("when did dad go to bed last night", "sleep", "last_night"),
]

NOT_THE_DESK = [
    "Sitting down is painful and my skin is red, hot and tender. It's really affecting my sleep. Can you help?",
    "Who should I see if I only sleep a couple of hours and my thoughts race?",
    "I can't sleep",
    "my heart rate is racing and I feel dizzy",
    "book me a cardiologist for my blood pressure",
    "remind me to take my blood pressure pills",
    "how are you",
    "I have a fever and a sore throat since yesterday",
    "my blood pressure is 190 over 120",
    "can you remind me to take my pills when I wake up",
    "I woke up with a sore throat, can I see a doctor",
]


@pytest.mark.parametrize(("text", "topic", "period"), READS)
def test_questions_about_the_record_are_read(text, topic, period):
    assert health_desk.read(text) == health_desk.HealthRequest(topic, period)


@pytest.mark.parametrize("text", NOT_THE_DESK)
def test_complaints_statements_and_requests_go_to_the_model(text):
    assert health_desk.read(text) is None


def _answer(conversation) -> str:
    (message,) = [
        s["value"]["result"]["message"]
        for s in states(conversation)
        if s["from"] == "observation" and isinstance(s["value"].get("result"), dict)
    ]
    return message


@pytest.fixture
def readings_yesterday(alice):
    """Three readings yesterday at 10:00 (a whole past day: the test does not depend on the hour): 60,
    70 and 80 bpm."""
    device = DeviceFactory(user=alice)
    yesterday = timezone.now().astimezone(BERLIN).date() - dt.timedelta(days=1)
    first = dt.datetime.combine(yesterday, dt.time(10), tzinfo=BERLIN)
    for minute, (rate, spo2, steps, bp) in enumerate(
        [(60, 97.0, 100, (118, 76)), (70, 95.0, 0, None), (80, 99.0, 250, (126, 84))]
    ):
        VitalReadingFactory(
            device=device,
            measured_at=first + dt.timedelta(minutes=minute),
            heart_rate=rate,
            spo2=spo2,
            steps=steps,
            systolic_bp=bp[0] if bp else None,
            diastolic_bp=bp[1] if bp else None,
        )
    return device


def test_how_was_my_day_is_answered_with_numbers_computed_from_the_readings(alice, readings_yesterday):
    backend = harmful_model()

    conversation = start_chat(alice, "How was my day yesterday?", backend=backend)

    assert conversation.status == "completed"
    assert backend.calls == []
    said = _answer(conversation)
    assert "Heart rate 70 bpm on average (lowest 60, highest 80" in said
    assert "Blood oxygen (SpO2) 97 % on average, lowest 95 %" in said
    assert "Blood pressure 122/80 mmHg on average, highest 126/84 mmHg (2 readings)" in said
    assert "350 steps" in said
    assert "No sleep recorded" in said and "No alerts were raised" in said
    assert not SymptomRecord.objects.filter(user=alice).exists()
    trajectory = states(conversation)
    assert trajectory[2]["value"]["reason"].startswith(health_desk.DESK)
    assert trajectory[-1]["value"]["action"] == "<END>"


def test_a_question_about_one_measure_answers_only_that(alice, readings_yesterday):
    said = _answer(start_chat(alice, "what was my heart rate yesterday?", backend=harmful_model()))

    assert said.startswith("Your watch's readings yesterday")
    assert "Heart rate 70 bpm" in said and "SpO2" not in said and "steps" not in said


def test_a_measure_the_watch_does_not_take_is_said_so_with_what_it_did_record(alice, readings_yesterday):
    said = _answer(start_chat(alice, "what was my temperature yesterday?", backend=harmful_model()))

    assert said.startswith("Your watch does not measure your temperature, so I have no temperature readings")
    assert "Heart rate 70 bpm" in said
    first = said.split("Your watch's readings")[0]
    assert not any(ch in first for ch in "0123456789"), "no temperature is made up"


def test_a_temperature_said_as_a_problem_is_a_complaint():
    assert health_desk.read("my temperature is 39 and I feel awful") is None
    assert health_desk.read("I have a temperature") is None


def test_no_readings_are_said_to_be_none_never_zero(alice):
    said = _answer(start_chat(alice, "How was my day?", backend=harmful_model()))

    assert said.startswith("No readings from your watch were recorded today (until ")
    assert "0" not in said.split("(until")[0]
    assert " 0 " not in said


def test_last_nights_sleep_adds_the_stages_the_watch_reported(alice):
    device = DeviceFactory(user=alice)
    today = timezone.now().astimezone(BERLIN).date()
    night = dt.datetime.combine(today - dt.timedelta(days=1), dt.time(23), tzinfo=BERLIN)
    for minute, (stage, minutes) in enumerate([("light", 200.0), ("deep", 90.0), ("rem", 100.0), ("awake", 20.0)]):
        VitalReadingFactory(
            device=device, measured_at=night + dt.timedelta(minutes=minute), sleep_stage=stage, sleep_minutes=minutes
        )

    said = _answer(start_chat(alice, "how did i sleep last night", backend=harmful_model()))

    assert "Asleep 6 h 30 min" in said
    assert "deep 1 h 30 min" in said and "awake" not in said


def test_a_complaint_goes_to_the_model(alice, readings_yesterday):
    backend = ScriptedBackend(planner=[end("Nothing to do.")])

    start_chat(alice, "my heart rate is racing and I feel dizzy", backend=backend)

    assert len(backend.calls) == 1
