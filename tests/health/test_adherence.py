"""Adherence: taken / due per medication and per day, read from the dose records."""

from __future__ import annotations

import datetime as dt
from unittest import mock
from zoneinfo import ZoneInfo

import pytest

from health.models import DoseEvent
from health.scheduler.adherence import adherence
from tests.factories import DoseEventFactory, MedicationFactory, ReminderFactory

S = DoseEvent.State
KOLKATA = ZoneInfo("Asia/Kolkata")
DAY = dt.date(2026, 3, 10)


@pytest.fixture
def patient(alice):
    alice.profile.timezone = "Asia/Kolkata"
    alice.profile.save()
    return alice


@pytest.fixture
def reminders(patient):
    metformin = MedicationFactory(user=patient, name="Metformin", strength="500 mg")
    amoxicillin = MedicationFactory(user=patient, name="amoxicillin", strength="250 mg")
    return {
        "metformin": (ReminderFactory(medication=metformin, time_of_day=dt.time(8)), metformin),
        "amoxicillin": (ReminderFactory(medication=amoxicillin, time_of_day=dt.time(14)), amoxicillin),
    }


def dose(reminders, which: str, day: dt.date, state: str, *, record_day: bool = True) -> DoseEvent:
    reminder, _ = reminders[which]
    due_at = dt.datetime.combine(day, reminder.time_of_day, tzinfo=KOLKATA)
    return DoseEventFactory(reminder=reminder, due_at=due_at, due_on=day if record_day else None, state=state)


def counts(row: dict) -> tuple:
    return row["due"], row["taken"], row["skipped"], row["missed"], row["pending"], row["percent"]


def test_taken_over_due_per_medication_and_per_day(patient, reminders):
    yesterday = DAY - dt.timedelta(days=1)
    dose(reminders, "metformin", yesterday, S.TAKEN)
    dose(reminders, "metformin", DAY, S.MISSED)
    dose(reminders, "amoxicillin", yesterday, S.TAKEN)
    dose(reminders, "amoxicillin", DAY, S.SKIPPED)
    dose(reminders, "amoxicillin", DAY - dt.timedelta(days=2), S.TAKEN)

    report = adherence(patient, days=2, today=DAY)

    assert (report["start"], report["end"], report["days"]) == (yesterday, DAY, 2)
    assert counts(report["overall"]) == (4, 2, 1, 1, 0, 50)
    assert [(row["name"], row["strength"], counts(row)) for row in report["by_medication"]] == [
        ("amoxicillin", "250 mg", (2, 1, 1, 0, 0, 50)),
        ("Metformin", "500 mg", (2, 1, 0, 1, 0, 50)),
    ]
    assert report["by_medication"][1]["id"] == reminders["metformin"][1].pk
    assert [(row["date"], counts(row)) for row in report["by_day"]] == [
        (yesterday, (2, 2, 0, 0, 0, 100)),
        (DAY, (2, 0, 1, 1, 0, 0)),
    ]


@pytest.mark.parametrize("state", [S.DUE, S.SENT, S.SNOOZED])
def test_a_dose_the_patient_can_still_take_is_pending_and_left_out_of_the_percentage(patient, reminders, state):
    dose(reminders, "metformin", DAY, S.TAKEN)
    dose(reminders, "amoxicillin", DAY, state)

    report = adherence(patient, days=1, today=DAY)

    assert counts(report["overall"]) == (1, 1, 0, 0, 1, 100)


def test_a_dose_taken_after_it_was_marked_missed_counts_as_taken(patient, reminders):
    late = dose(reminders, "metformin", DAY, S.MISSED)
    late.take()

    assert counts(adherence(patient, days=1, today=DAY)["overall"]) == (1, 1, 0, 0, 0, 100)


def test_days_with_nothing_due_are_listed_with_no_percentage(patient, reminders):
    report = adherence(patient, days=3, today=DAY)

    assert [row["date"] for row in report["by_day"]] == [DAY - dt.timedelta(days=2), DAY - dt.timedelta(days=1), DAY]
    assert {counts(row) for row in report["by_day"]} == {(0, 0, 0, 0, 0, None)}
    assert report["by_medication"] == [] and report["overall"]["percent"] is None


def test_only_the_patients_own_doses_in_the_period_count(patient, reminders, bob):
    dose(reminders, "metformin", DAY + dt.timedelta(days=1), S.TAKEN)
    dose(reminders, "metformin", DAY - dt.timedelta(days=7), S.MISSED)
    others = ReminderFactory(medication=MedicationFactory(user=bob))
    DoseEventFactory(reminder=others, due_at=dt.datetime(2026, 3, 10, 8, tzinfo=KOLKATA), due_on=DAY, state=S.MISSED)

    assert counts(adherence(patient, days=7, today=DAY)["overall"]) == (0, 0, 0, 0, 0, None)


def test_a_dose_belongs_to_its_recorded_local_day_or_else_the_local_date_of_its_due_time(patient, reminders):
    # 00:30 in Kolkata on the 10th is still the 9th in UTC.
    reminder, _ = reminders["metformin"]
    DoseEventFactory(reminder=reminder, due_at=dt.datetime(2026, 3, 10, 0, 30, tzinfo=KOLKATA), state=S.TAKEN)
    dose(reminders, "amoxicillin", DAY, S.MISSED, record_day=False)

    report = adherence(patient, days=2, today=DAY)

    assert [(row["date"], row["due"]) for row in report["by_day"]] == [(DAY - dt.timedelta(days=1), 0), (DAY, 2)]


def test_today_is_the_patients_local_today_by_default(patient, reminders):
    dose(reminders, "metformin", DAY, S.TAKEN)

    # 20:00 UTC on the 9th is already the 10th in Kolkata.
    with mock.patch("django.utils.timezone.now", return_value=dt.datetime(2026, 3, 9, 20, tzinfo=dt.UTC)):
        report = adherence(patient, days=1)

    assert (report["end"], report["overall"]["taken"]) == (DAY, 1)


def test_at_least_one_day(patient):
    with pytest.raises(ValueError, match="at least 1"):
        adherence(patient, days=0)
