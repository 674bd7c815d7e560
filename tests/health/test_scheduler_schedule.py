"""Scheduling a confirmed medication: the one path for the prescription review and the chat tool."""

from __future__ import annotations

import datetime as dt
from unittest import mock
from zoneinfo import ZoneInfo

import pytest

from health.models import Medication, Reminder
from health.scheduler import extract
from health.scheduler.schedule import ScheduleError, default_times, parse_times, schedule_medication, update_times
from tests.factories import PrescriptionFactory

KOLKATA = ZoneInfo("Asia/Kolkata")


@pytest.fixture
def patient(alice):
    alice.profile.timezone = "Asia/Kolkata"
    alice.profile.save()
    return alice


def reminder_times(medication: Medication) -> list[tuple[str, bool]]:
    return [(f"{r.time_of_day:%H:%M}", r.enabled) for r in medication.reminders.order_by("time_of_day")]


@pytest.mark.parametrize(
    ("count", "times"),
    [
        (1, ["08:00"]),
        (2, ["08:00", "20:00"]),
        (3, ["08:00", "14:00", "20:00"]),
        (4, ["08:00", "12:00", "16:00", "20:00"]),
        (6, ["02:00", "06:00", "10:00", "14:00", "18:00", "22:00"]),
        (5, ["01:12", "06:00", "10:48", "15:36", "20:24"]),
    ],
)
def test_default_times_by_doses_a_day(count, times):
    assert default_times(count) == times


def test_prescription_reading_uses_the_same_default_times():
    (item,) = extract.extract_medications("Tab Metformin 500 mg BD x 30 days")
    assert item["times"] == default_times(2)


@pytest.mark.parametrize("count", [0, 13])
def test_default_times_refuse_counts_outside_1_to_12(count):
    with pytest.raises(ValueError, match="between 1 and 12"):
        default_times(count)


def test_a_medication_with_times_gets_one_reminder_per_time_and_its_end_date(patient):
    medication = schedule_medication(
        patient,
        name=" Metformin ",
        strength="500 mg",
        dose="1 tablet",
        times_per_day=2,
        clock_times=["20:00", "8:00"],
        default_times=True,
        food_timing="after",
        duration_days=30,
        start_date=dt.date(2026, 3, 10),
        instructions="Swallow whole",
    )

    medication.refresh_from_db()
    assert (medication.name, medication.strength, medication.dose, medication.food_timing) == (
        "Metformin",
        "500 mg",
        "1 tablet",
        "after",
    )
    assert (medication.clock_times, medication.default_times, medication.times_per_day) == (
        ["08:00", "20:00"],
        True,
        2,
    )
    # 30 days from the 10th of March: the 10th is day 1, the 8th of April day 30.
    assert (medication.start_date, medication.end_date) == (dt.date(2026, 3, 10), dt.date(2026, 4, 8))
    assert reminder_times(medication) == [("08:00", True), ("20:00", True)]


def test_no_times_given_takes_the_defaults_marked_as_such(patient):
    medication = schedule_medication(
        patient, name="Amoxicillin", times_per_day=3, clock_times=None, food_timing=None, duration_days=5
    )

    assert (medication.clock_times, medication.default_times) == (["08:00", "14:00", "20:00"], True)
    assert medication.food_timing == Medication.FoodTiming.ANY


def test_an_empty_list_of_times_is_as_needed_with_no_reminders(patient):
    medication = schedule_medication(patient, name="Paracetamol", times_per_day=1, clock_times=[], default_times=True)

    assert (medication.clock_times, medication.default_times, medication.end_date) == ([], False, None)
    assert not medication.reminders.exists()


def test_the_start_date_defaults_to_the_patients_local_today(patient):
    # 20:00 UTC on the 10th is already the 11th in Kolkata.
    with mock.patch("django.utils.timezone.now", return_value=dt.datetime(2026, 3, 10, 20, tzinfo=dt.UTC)):
        medication = schedule_medication(patient, name="Metformin", times_per_day=1, clock_times=None, duration_days=1)

    assert (medication.start_date, medication.end_date) == (dt.date(2026, 3, 11), dt.date(2026, 3, 11))


def test_a_medication_can_come_from_the_patients_own_prescription(patient):
    prescription = PrescriptionFactory(user=patient)

    medication = schedule_medication(patient, name="Metformin", times_per_day=1, prescription=prescription)

    assert medication.prescription == prescription


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"name": "  "}, "Give the medicine's name."),
        ({"name": "x" * 121}, "The medicine's name is too long"),
        ({"strength": "x" * 41}, "The strength is too long"),
        ({"times_per_day": 0}, "between 1 and 12"),
        ({"times_per_day": 13}, "between 1 and 12"),
        ({"clock_times": ["08:00", "25:00"], "times_per_day": 2}, '"25:00" is not a time'),
        ({"clock_times": ["08:00", "8:00"], "times_per_day": 2}, "Each time may appear once."),
        ({"clock_times": ["08:00"], "times_per_day": 2}, "Give 2 time(s), one for each dose a day."),
        ({"clock_times": None, "times_per_day": None}, "Say how many times a day"),
        ({"food_timing": "sometimes"}, "Food timing must be one of"),
        ({"duration_days": 0}, "between 1 and 3650"),
        ({"duration_days": 3651}, "between 1 and 3650"),
    ],
)
def test_an_unacceptable_value_is_refused_in_words_and_nothing_is_stored(patient, changes, message):
    values = {"name": "Metformin", "times_per_day": 1, "clock_times": ["08:00"], **changes}

    with pytest.raises(ScheduleError, match=message.replace("(", r"\(").replace(")", r"\)")):
        schedule_medication(patient, **values)

    assert not Medication.objects.exists() and not Reminder.objects.exists()


def test_someone_elses_prescription_is_refused(patient, bob):
    with pytest.raises(ScheduleError, match="not this patient's"):
        schedule_medication(patient, name="Metformin", times_per_day=1, prescription=PrescriptionFactory(user=bob))

    assert not Medication.objects.exists()


def test_a_schedule_error_is_a_value_error():
    assert issubclass(ScheduleError, ValueError)


def test_parse_times_reads_what_a_person_types():
    assert parse_times(" 20:30, 8.00;13:05 ") == ["08:00", "13:05", "20:30"]
    assert parse_times("") == []


def test_updating_the_times_makes_them_the_patients_own(patient):
    medication = schedule_medication(patient, name="Metformin", times_per_day=2, clock_times=None)

    update_times(medication, "09:00, 21:30")

    medication.refresh_from_db()
    assert (medication.clock_times, medication.times_per_day, medication.default_times) == (
        ["09:00", "21:30"],
        2,
        False,
    )
    # The old reminders stay, switched off, with their dose history.
    assert reminder_times(medication) == [("08:00", False), ("09:00", True), ("20:00", False), ("21:30", True)]


def test_updating_with_a_bad_time_changes_nothing(patient):
    medication = schedule_medication(patient, name="Metformin", times_per_day=2, clock_times=None)

    with pytest.raises(ScheduleError):
        update_times(medication, "09:00, noon")

    medication.refresh_from_db()
    assert medication.clock_times == ["08:00", "20:00"]
