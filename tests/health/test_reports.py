"""The evening daily report: its numbers on a hand-checkable day, the narrative's fact check, the
evening tick (idempotent, a missed evening caught up once) with a set clock, the command and the PDF."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from unittest import mock
from zoneinfo import ZoneInfo

import pypdfium2
import pytest
from django.core.management import CommandError, call_command

from core.events import Event
from health import tasks
from health.models import Alert, DailyReport, DoseEvent, Notification, VitalReading
from health.reports import generate, hooks
from health.reports.due import due_reports
from health.reports.facts import ReportError
from health.reports.narrative import fact_check, template_narrative
from health.reports.pdf import report_pdf
from tests.factories import (
    AppointmentFactory,
    DeviceFactory,
    DoseEventFactory,
    MedicationFactory,
    ReminderFactory,
    SlotFactory,
    SpecialistFactory,
    SpecializationFactory,
    SymptomRecordFactory,
)

KOLKATA = ZoneInfo("Asia/Kolkata")
DAY = dt.date(2026, 3, 2)


@contextmanager
def at(when: dt.datetime) -> Iterator[dt.datetime]:
    with mock.patch("django.utils.timezone.now", return_value=when):
        yield when


def local(hour: int, minute: int = 0, second: int = 0, day: dt.date = DAY) -> dt.datetime:
    return dt.datetime(day.year, day.month, day.day, hour, minute, second, tzinfo=KOLKATA)


EVENING = local(21)


@pytest.fixture
def patient(alice):
    alice.profile.timezone = "Asia/Kolkata"
    alice.profile.save()
    alice.date_joined = local(8, day=DAY - dt.timedelta(days=30))
    alice.save()
    return alice


@pytest.fixture
def registered_hooks():
    """Whatever a test registers is unregistered after it (the agents app registers its own)."""
    saved = hooks._conversation_points, hooks._narrator
    yield hooks
    hooks._conversation_points, hooks._narrator = saved


def reading(device, when: dt.datetime, **values) -> VitalReading:
    return VitalReading.objects.create(user=device.user, device=device, measured_at=when, **values)


@pytest.fixture
def day_of_records(patient):
    """A day whose every figure can be checked by hand (see the expected values in the tests)."""
    watch = DeviceFactory(user=patient)
    # Night: 135.5 minutes asleep (deep 60, REM 30, light 45.5), 10 awake.
    reading(watch, local(1), sleep_stage="deep", sleep_minutes=60)
    reading(watch, local(2), sleep_stage="rem", sleep_minutes=30)
    reading(watch, local(3), sleep_stage="awake", sleep_minutes=10)
    reading(watch, local(4), sleep_stage="light", sleep_minutes=45.5)
    # Morning: heart rates 60, 70, 80, 120, 65 (mean 79); a 0 bpm glitch that counts for nothing.
    reading(watch, local(7, 0, 0), heart_rate=60, spo2=97, steps=0)
    reading(watch, local(7, 0, 30), heart_rate=0)
    reading(watch, local(7, 1, 0), heart_rate=70, spo2=91, steps=0)
    reading(watch, local(7, 1, 30), heart_rate=80, spo2=90.5, steps=0)
    reading(watch, local(7, 2, 10), spo2=88.5)
    reading(watch, local(7, 5), heart_rate=120, spo2=96, steps=150)
    reading(watch, local(7, 30), heart_rate=65, spo2=93)
    # Noon: blood pressure 120/80, 140/90, 130/85 (mean 130/85, highest 140/90), 50 steps.
    reading(watch, local(12, 0), systolic_bp=120, diastolic_bp=80)
    reading(watch, local(12, 1), systolic_bp=140, diastolic_bp=90)
    reading(watch, local(12, 2), systolic_bp=130, diastolic_bp=85, steps=50)
    # Just outside the day on either side: in no figure.
    reading(watch, local(23, 59, day=DAY - dt.timedelta(days=1)), heart_rate=200, spo2=60, steps=9000)
    reading(watch, local(0, 0, day=DAY + dt.timedelta(days=1)), heart_rate=30, spo2=70, steps=9000)

    with at(local(7, 2)):
        hypoxia = Alert.objects.create(user=patient, kind=Alert.Kind.SOFT, condition="hypoxia")
    hypoxia.acknowledge()
    with at(local(15)):
        Alert.objects.create(
            user=patient, kind=Alert.Kind.HARD, state=Alert.State.RESOLVED, end_reason=Alert.EndReason.FALSE_ALARM
        )
    with at(local(15, day=DAY - dt.timedelta(days=1))):
        Alert.objects.create(user=patient, kind=Alert.Kind.SOFT, condition="bradycardia")

    metformin = MedicationFactory(user=patient, name="Metformin", strength="500 mg", start_date=DAY)
    for hour, state in ((8, DoseEvent.State.TAKEN), (14, DoseEvent.State.MISSED), (20, DoseEvent.State.SKIPPED)):
        DoseEventFactory(
            reminder=ReminderFactory(medication=metformin, time_of_day=dt.time(hour)),
            due_at=local(hour),
            due_on=DAY,
            state=state,
        )

    cardiology = SpecializationFactory(name="cardiologist")
    slot = SlotFactory(
        specialist=SpecialistFactory(name="Dr. Rao", specialization=cardiology),
        starts_at=local(10, day=DAY + dt.timedelta(days=2)),
        ends_at=local(10, 30, day=DAY + dt.timedelta(days=2)),
    )
    with at(local(11)):
        AppointmentFactory(user=patient, slot=slot, state="confirmed")
    SymptomRecordFactory(
        user=patient, text="I have had chest pain since morning", symptoms=["chest pain"], recorded_at=local(10)
    )
    return patient


def build_day(user, *, now: dt.datetime = EVENING) -> DailyReport:
    with at(now):
        return generate.build(user, DAY)


def test_the_numbers_of_a_hand_checkable_day(day_of_records):
    facts = generate.as_facts(build_day(day_of_records))

    assert facts["heart_rate"] == {"min": 60, "mean": 79, "max": 120, "resting": 60, "readings": 5}
    assert facts["spo2"] == {"min": 88.5, "mean": 92.7, "minutes_below_92": 2, "readings": 6}
    assert facts["blood_pressure"] == {
        "systolic_mean": 130,
        "diastolic_mean": 85,
        "systolic_max": 140,
        "highest": {"systolic": 140, "diastolic": 90},
        "readings": 3,
    }
    assert facts["steps"] == 200
    assert facts["sleep_minutes"] == 135.5
    assert facts["sleep_stages"] == {"awake": 10, "light": 45.5, "deep": 60, "rem": 30}
    assert [(a["kind"], a["condition"], a["time"], a["outcome"]) for a in facts["alerts"]] == [
        ("soft", "hypoxia", "07:02", "Acknowledged"),
        ("hard", "", "15:00", "Resolved: It was a false alarm"),
    ]
    assert facts["alerts"][0]["started_at"] == "2026-03-02T07:02:00+05:30"
    assert {k: facts["doses"][k] for k in ("due", "taken", "missed", "skipped", "pending", "adherence")} == {
        "due": 3,
        "taken": 1,
        "missed": 1,
        "skipped": 1,
        "pending": 0,
        "adherence": 33,
    }
    assert facts["doses"]["by_medication"][0]["name"] == "Metformin"
    [appointment] = facts["appointments"]
    assert (appointment["specialist"], appointment["state"], appointment["booked_this_day"]) == (
        "Dr. Rao",
        "confirmed",
        True,
    )
    assert appointment["starts_at"] == "2026-03-04T10:00+05:30"
    assert facts["symptoms"] == [
        {"time": "10:00", "symptoms": ["chest pain"], "text": "I have had chest pain since morning"}
    ]
    assert facts["complete"] is False and facts["covers_until"] == "2026-03-02T21:00+05:30"


def test_the_template_narrative_says_the_days_figures(day_of_records):
    report = build_day(day_of_records, now=local(0, day=DAY + dt.timedelta(days=1)))

    assert report.narrative_source == DailyReport.NarrativeSource.TEMPLATE
    assert report.narrative.startswith("Heart rate 60\u2013120 bpm, 79 on average, resting 60.")
    assert "lowest 88.5 %, below 92 % in 2 minutes" in report.narrative
    assert "Blood pressure 130/85 mmHg on average, highest 140/90." in report.narrative
    assert "200 steps. 2 h 16 min asleep." in report.narrative
    assert "hypoxia at 07:02 (acknowledged)" in report.narrative
    assert "1 of 3 doses taken (33 %), 1 missed, 1 skipped." in report.narrative
    assert "Dr. Rao (cardiologist), Wed 4 Mar 2026, 10:00\u201310:30 (Asia/Kolkata), confirmed." in report.narrative
    assert fact_check(report.narrative, report.metrics) == []


def test_a_day_without_records_says_so_and_invents_no_zero(patient):
    facts = generate.as_facts(build_day(patient))

    assert facts["heart_rate"] == {"min": None, "mean": None, "max": None, "resting": None, "readings": 0}
    assert facts["spo2"] == {"min": None, "mean": None, "minutes_below_92": None, "readings": 0}
    assert facts["blood_pressure"]["systolic_mean"] is None and facts["blood_pressure"]["highest"] is None
    assert facts["steps"] is None and facts["sleep_minutes"] is None and facts["sleep_stages"] is None
    assert facts["doses"]["adherence"] is None
    assert facts["alerts"] == [] and facts["appointments"] == []
    assert "No vitals were recorded on this day." in facts["narrative"]
    assert not re.search(r"\b0\b", facts["narrative"])


@pytest.mark.parametrize(
    ("summary", "kept"),
    [
        ("A steady day: heart rate 60 to 120 bpm, resting 60, and 200 steps. One dose of Metformin was missed.", True),
        ("Your heart rate averaged 79 bpm and you walked 2,000 steps.", False),  # 2,000 is not 200
        ("Blood oxygen dipped to 85 % for a while.", False),  # 85 is a figure, but not of SpO2
        ("You missed your atorvastatin.", False),  # a medicine the patient does not take
        ("Dr. Smith will see you on Wednesday.", False),  # the appointment is with Dr. Rao
        ("Three alerts today.", False),  # there were two
    ],
)
def test_a_model_narrative_is_kept_only_when_the_facts_give_every_number_and_name(
    day_of_records, registered_hooks, settings, summary, kept
):
    settings.REPORT_MODEL_NARRATIVE = True
    registered_hooks.register(narrator=lambda facts: summary)

    report = build_day(day_of_records)

    if kept:
        assert (report.narrative, report.narrative_source) == (summary, DailyReport.NarrativeSource.MODEL)
    else:
        assert report.narrative_source == DailyReport.NarrativeSource.TEMPLATE
        assert report.narrative == template_narrative(report.metrics)


def test_a_failing_model_leaves_the_template_narrative(day_of_records, registered_hooks, settings):
    settings.REPORT_MODEL_NARRATIVE = True

    def broken(facts):
        raise RuntimeError("model crashed")

    registered_hooks.register(narrator=broken)

    assert build_day(day_of_records).narrative_source == DailyReport.NarrativeSource.TEMPLATE


def test_the_model_narrative_is_not_asked_for_when_the_setting_is_off(day_of_records, registered_hooks):
    narrator = mock.Mock(return_value="Heart rate 60 to 120 bpm.")
    registered_hooks.register(narrator=narrator)

    assert build_day(day_of_records).narrative_source == DailyReport.NarrativeSource.TEMPLATE
    narrator.assert_not_called()


def test_the_conversations_key_points_come_from_the_registered_provider(patient, registered_hooks):
    seen = []

    def points(user_id, start, end):
        seen.append((user_id, start, end))
        return ["Booked a cardiologist"]

    registered_hooks.register(conversation_points=points)

    facts = build_day(patient).metrics

    assert facts["conversations"] == ["Booked a cardiologist"]
    assert seen == [(patient.pk, local(0), EVENING)]


def test_building_twice_keeps_one_report_with_the_latest_figures(day_of_records):
    first = build_day(day_of_records)
    reading(DeviceFactory(user=day_of_records), local(21, 30), heart_rate=130)
    second = build_day(day_of_records, now=local(22))

    assert first.pk == second.pk
    assert DailyReport.objects.filter(user=day_of_records).count() == 1
    assert second.metrics["heart_rate"]["max"] == 130
    assert second.covers_until == local(22)


def test_a_day_that_has_not_started_is_refused_and_nothing_is_written(patient):
    with pytest.raises(ReportError, match="has not started yet in Asia/Kolkata"):
        build_day(patient, now=local(23, day=DAY - dt.timedelta(days=1)))
    assert not DailyReport.objects.exists()


# --- the evening tick -------------------------------------------------------------------------


def tick(now: dt.datetime) -> int:
    with at(now):
        return tasks.write_daily_reports()


def test_the_report_is_written_once_after_the_patients_report_time(patient):
    with at(local(19, 55)):
        assert (patient.pk, DAY) not in due_reports()

    assert tick(local(20, 5)) >= 1
    report = DailyReport.objects.get(user=patient, date=DAY)
    assert report.covers_until == local(20, 5)
    assert tick(local(20, 10)) == 0
    assert DailyReport.objects.filter(user=patient, date=DAY).count() == 1


def test_a_report_task_the_broker_lost_is_enqueued_again_by_the_next_tick(patient, monkeypatch):
    lost = []
    with monkeypatch.context() as broker_down:  # Redis restarted empty: the enqueued task is gone
        broker_down.setattr(tasks.write_daily_report, "delay", lambda *args: lost.append(args))
        assert tick(local(20, 5)) >= 1
    assert lost and not DailyReport.objects.filter(user=patient, date=DAY).exists()

    assert tick(local(20, 10)) >= 1  # still due: nothing was written

    assert DailyReport.objects.filter(user=patient, date=DAY).count() == 1
    assert tick(local(20, 15)) == 0


def test_the_report_time_is_the_patients_own(patient):
    patient.profile.report_time = dt.time(18, 30)
    patient.profile.save()

    with at(local(18, 25)):
        assert (patient.pk, DAY) not in due_reports()
    with at(local(18, 35)):
        assert (patient.pk, DAY) in due_reports()


def test_a_report_asked_for_in_the_afternoon_is_rewritten_in_the_evening(patient):
    build_day(patient, now=local(15))

    with at(local(20, 5)):
        assert (patient.pk, DAY) in due_reports()
    tick(local(20, 5))
    assert DailyReport.objects.get(user=patient, date=DAY).covers_until == local(20, 5)


def test_a_missed_evening_is_caught_up_once_the_next_morning(patient):
    yesterday = DAY - dt.timedelta(days=1)

    assert tick(local(9)) == 1  # the app was off all evening yesterday

    report = DailyReport.objects.get(user=patient)
    assert report.date == yesterday and report.metrics["complete"] is True
    assert report.covers_until == local(0)
    assert tick(local(9, 5)) == 0
    assert tick(local(20, 1)) == 1  # today's own evening
    assert set(DailyReport.objects.values_list("date", flat=True)) == {yesterday, DAY}


def test_older_evenings_and_evenings_before_the_account_are_not_caught_up(patient, bob):
    bob.date_joined = local(9)
    bob.save()

    with at(local(9)):
        due = due_reports()

    assert due == [(patient.pk, DAY - dt.timedelta(days=1))]


def test_inactive_users_get_no_report(patient):
    patient.is_active = False
    patient.save()

    assert tick(local(21)) == 0


# --- the command ------------------------------------------------------------------------------


def test_the_command_writes_the_facts_as_json(day_of_records, tmp_path):
    out = tmp_path / "report.json"
    with at(local(0, day=DAY + dt.timedelta(days=3))):
        call_command("daily_report", user="alice", date="2026-03-02", json=str(out), stderr=mock.Mock())

    facts = json.loads(out.read_text())
    assert facts["heart_rate"] == {"min": 60, "mean": 79, "max": 120, "resting": 60, "readings": 5}
    assert {k: facts["spo2"][k] for k in ("min", "mean", "minutes_below_92")} == {
        "min": 88.5,
        "mean": 92.7,
        "minutes_below_92": 2,
    }
    assert {k: facts["blood_pressure"][k] for k in ("systolic_mean", "diastolic_mean", "systolic_max")} == {
        "systolic_mean": 130,
        "diastolic_mean": 85,
        "systolic_max": 140,
    }
    assert (facts["steps"], facts["sleep_minutes"]) == (200, 135.5)
    assert (facts["alerts"][0]["kind"], facts["alerts"][0]["started_at"], facts["alerts"][0]["outcome"]) == (
        "soft",
        "2026-03-02T07:02:00+05:30",
        "Acknowledged",
    )
    assert {k: facts["doses"][k] for k in ("taken", "missed", "skipped", "adherence")} == {
        "taken": 1,
        "missed": 1,
        "skipped": 1,
        "adherence": 33,
    }
    assert facts["appointments"][0]["specialist"] == "Dr. Rao"
    assert facts["narrative"].startswith("Heart rate 60\u2013120 bpm")
    assert facts["complete"] is True


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"user": "alice", "date": "2026-13-40"}, "is not a date in the form YYYY-MM-DD"),
        ({"user": "nobody", "date": "2026-03-02"}, "No user named 'nobody'"),
        ({"user": "alice", "date": "2026-03-09"}, "has not started yet"),
    ],
)
def test_the_command_refuses_bad_input_and_writes_nothing(patient, tmp_path, arguments, message):
    out = tmp_path / "report.json"
    with at(EVENING), pytest.raises(CommandError, match=message):
        call_command("daily_report", json=str(out), **arguments)

    assert not out.exists()
    assert not DailyReport.objects.exists()


# --- the PDF ----------------------------------------------------------------------------------


def pdf_text(data: bytes) -> str:
    document = pypdfium2.PdfDocument(data)
    return "\n".join(page.get_textpage().get_text_range() for page in document)


def test_the_pdf_shows_the_days_figures_for_a_doctor(day_of_records):
    report = build_day(day_of_records, now=local(0, day=DAY + dt.timedelta(days=1)))

    data = report_pdf(report)

    assert data.startswith(b"%PDF-")
    text = " ".join(pdf_text(data).split())
    assert "Daily health report" in text and "Monday 2 March 2026" in text
    assert "Alice" in text and "Asia/Kolkata" in text
    for figure in ("60", "79", "120", "88.5", "92.7", "130/85", "140/90", "200", "Metformin", "Dr. Rao"):
        assert figure in text
    assert "hypoxia" in text and "Acknowledged" in text


def test_the_pdf_of_a_day_without_readings_says_so(patient):
    text = " ".join(pdf_text(report_pdf(build_day(patient))).split())

    assert "No readings" in text


def test_beat_runs_the_report_tick_every_five_minutes(settings):
    entry = settings.CELERY_BEAT_SCHEDULE["write-daily-reports"]

    assert entry["task"] == "health.tasks.write_daily_reports" and entry["schedule"] == 300.0


def test_a_day_the_clocks_spring_forward_is_23_hours_of_readings(alice):
    alice.profile.timezone = "America/New_York"
    alice.profile.save()
    new_york = ZoneInfo("America/New_York")
    watch = DeviceFactory(user=alice)
    for hour, heart_rate in ((0, 50), (1, 55), (3, 60), (23, 65)):  # 02:00-03:00 does not exist that day
        reading(watch, dt.datetime(2026, 3, 8, hour, 30, tzinfo=new_york), heart_rate=heart_rate)
    reading(watch, dt.datetime(2026, 3, 9, 0, 30, tzinfo=new_york), heart_rate=200)

    with at(dt.datetime(2026, 3, 9, 8, tzinfo=new_york)):
        report = generate.build(alice, dt.date(2026, 3, 8))

    assert report.metrics["heart_rate"]["readings"] == 4 and report.metrics["heart_rate"]["max"] == 65
    assert report.metrics["complete"] is True
    midnight = dt.datetime(2026, 3, 8, tzinfo=new_york)
    assert report.covers_until.astimezone(dt.UTC) - midnight.astimezone(dt.UTC) == dt.timedelta(hours=23)


def test_the_evening_report_is_announced_once_and_pushed_to_open_pages(patient, django_capture_on_commit_callbacks):
    with at(local(0, 5)):
        generate.build(patient, DAY - dt.timedelta(days=1))  # yesterday's is written: only today's is due
    build_day(patient, now=local(15))  # asked for in the afternoon: no notification
    assert not Notification.objects.filter(kind="report").exists()

    with mock.patch("health.reports.generate.push_to_user") as push:
        with django_capture_on_commit_callbacks(execute=True):
            tick(local(20, 5))
        tick(local(20, 10))
        with at(local(21)):
            tasks.write_daily_report(patient.pk, DAY.isoformat())  # a redelivered task

    [notification] = Notification.objects.filter(user=patient, kind="report")
    assert notification.title == "Your daily report for Monday 2 March"
    assert notification.body.startswith("Up to 20:05. No vitals were recorded on this day.")
    assert notification.body.endswith("See it with charts under Reports.")
    assert notification.data == {"report": DailyReport.objects.get(user=patient, date=DAY).pk, "date": "2026-03-02"}
    push.assert_called_once()
    assert push.call_args.args[:2] == (patient.pk, Event.NOTIFICATION)


def test_a_caught_up_evening_says_it_was_written_late(patient):
    tick(local(9))

    [notification] = Notification.objects.filter(user=patient, kind="report")
    assert notification.title == "Your report for Sunday 1 March (written late)"
