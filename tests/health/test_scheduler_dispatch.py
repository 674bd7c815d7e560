"""Reminders that fire: the dispatcher's tick with a set clock, as beat runs it every minute.

Each test schedules a medication at a set moment, then ticks the dispatcher at chosen moments and
reads back the records: dose events, notifications, the outbox and the websocket pushes.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from unittest import mock
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings
from django.db import connection

from core.events import Event
from health import tasks
from health.models import DoseEvent, InvalidTransition, Notification, OutboundMessage, Reminder
from health.scheduler import ahead, dispatch
from health.scheduler.adherence import adherence
from health.scheduler.dispatch import Dispatched, dispatch_due_doses
from health.scheduler.schedule import schedule_medication
from tests.factories import EmergencyContactFactory

S = DoseEvent.State
KOLKATA = ZoneInfo("Asia/Kolkata")
NEW_YORK = ZoneInfo("America/New_York")
UTC = dt.UTC
PHONE = "+919812345678"


@contextmanager
def at(when: dt.datetime) -> Iterator[dt.datetime]:
    with mock.patch("django.utils.timezone.now", return_value=when):
        yield when


def kolkata(day: int, hour: int, minute: int = 0, second: int = 0, month: int = 3) -> dt.datetime:
    return dt.datetime(2026, month, day, hour, minute, second, tzinfo=KOLKATA)


@pytest.fixture
def patient(alice):
    profile = alice.profile
    profile.timezone, profile.phone = "Asia/Kolkata", PHONE
    profile.save()
    return alice


def set_profile(user, **fields) -> None:
    for name, value in fields.items():
        setattr(user.profile, name, value)
    user.profile.save()


def metformin(user, created: dt.datetime, *, times=("08:00", "20:00"), days=None, start=None):
    """Scheduled at ``created`` (the reminders start then), from ``start`` (that local day)."""
    with at(created):
        return schedule_medication(
            user,
            name="Metformin",
            strength="500 mg",
            dose="1 tablet",
            times_per_day=len(times),
            clock_times=list(times),
            food_timing="after",
            duration_days=days,
            start_date=start or created.date(),
        )


@pytest.fixture
def pushes() -> Iterator[list[tuple[int, Event, dict]]]:
    sent: list[tuple[int, Event, dict]] = []
    with mock.patch.object(dispatch, "push_to_user", lambda user, event, data: sent.append((user, event, data))):
        yield sent


@pytest.fixture
def tick(django_capture_on_commit_callbacks, pushes) -> Callable[[dt.datetime], Dispatched]:
    """One beat tick at ``when``, its after-commit work (pushes, SMS delivery) run as a worker would."""

    def run(when: dt.datetime) -> Dispatched:
        with at(when), django_capture_on_commit_callbacks(execute=True):
            return dispatch_due_doses(now=when)

    return run


def doses(user) -> list[DoseEvent]:
    return list(DoseEvent.objects.filter(user=user).order_by("due_at"))


def titles(user) -> list[str]:
    return list(Notification.objects.filter(user=user, kind="dose").order_by("pk").values_list("title", flat=True))


def sms(user, kind=None) -> list[OutboundMessage]:
    rows = OutboundMessage.objects.filter(user=user).order_by("pk")
    return list(rows.filter(recipient_kind=kind) if kind else rows)


# --- due, sent once ---------------------------------------------------------------------------


def test_a_dose_is_reminded_once_when_due_with_a_notification_and_dose_event(patient, tick, pushes):
    metformin(patient, kolkata(10, 7))

    assert tick(kolkata(10, 7, 59)).total == 0
    assert doses(patient) == []
    result = tick(kolkata(10, 8, 0, 30))

    (dose,) = doses(patient)
    assert (result.created, result.sent) == (1, 1)
    assert (dose.state, dose.due_at, dose.due_on, dose.late) == (S.SENT, kolkata(10, 8), dt.date(2026, 3, 10), False)
    assert dose.sent_at == kolkata(10, 8, 0, 30)
    note = Notification.objects.get(user=patient)
    assert (note.kind, note.title) == ("dose", "Time for Metformin 500 mg")
    assert note.body == "Take 1 tablet after food, due at 08:00."
    assert note.data["dose"] == dose.pk and note.data["actions"] == ["taken", "snooze", "skip"]
    assert [event for _, event, _ in pushes] == [Event.NOTIFICATION, Event.DOSE]
    assert pushes[1][2] == {"id": dose.pk, "medication": dose.reminder.medication_id, "state": "sent",
                            "due_at": dose.due_at.isoformat()}  # fmt: skip

    assert tick(kolkata(10, 8, 1, 30)).total == 0
    assert tick(kolkata(10, 8, 1, 30)).total == 0
    assert len(titles(patient)) == 1 and len(pushes) == 2


def test_a_tick_that_read_the_same_due_dose_as_another_sends_nothing(patient, tick):
    """Two beats (or a redelivered task) at the same minute: the second finds the dose taken over."""
    metformin(patient, kolkata(10, 7))
    with at(kolkata(10, 8)):
        dispatch.create_due_doses(kolkata(10, 8))
        stale = dispatch._open_doses(dispatch.Q(state=S.DUE))
    tick(kolkata(10, 8))

    with mock.patch.object(dispatch, "_open_doses", return_value=stale), at(kolkata(10, 8)):
        second = Dispatched()
        dispatch.send_due(kolkata(10, 8), second)

    assert second.sent == 0
    assert len(titles(patient)) == 1


@pytest.mark.django_db(transaction=True)
def test_two_workers_running_the_same_tick_at_once_remind_once(patient):
    """Real threads, each with its own database connection, released together."""
    set_profile(patient, reminder_sms=True)
    metformin(patient, kolkata(10, 7))
    start = threading.Barrier(2)
    results: list[Dispatched] = []

    def worker() -> None:
        try:
            start.wait(timeout=10)
            results.append(dispatch_due_doses(now=kolkata(10, 8)))
        finally:
            connection.close()

    with at(kolkata(10, 8)), mock.patch.object(dispatch, "push_to_user"):
        threads = [threading.Thread(target=worker) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)

    assert len(results) == 2
    assert sum(result.sent for result in results) == 1
    assert len(doses(patient)) == 1 and len(titles(patient)) == 1
    assert len(sms(patient)) == 1


def test_the_same_dose_event_is_never_created_twice(patient, tick):
    metformin(patient, kolkata(10, 7))
    for _ in range(2):
        with at(kolkata(10, 8)):
            dispatch.create_due_doses(kolkata(10, 8))
            # A process that lost the reminder's mark (it read it before another tick moved it).
            dispatch.Reminder.objects.update(checked_until=kolkata(10, 7))

    assert len(doses(patient)) == 1


def test_a_medication_scheduled_after_its_time_starts_the_next_day_without_a_late_reminder(patient, tick):
    metformin(patient, kolkata(10, 10), times=("08:00",))

    assert tick(kolkata(10, 10, 1)).total == 0
    tick(kolkata(11, 8))

    assert [d.due_at for d in doses(patient)] == [kolkata(11, 8)]


def test_the_task_runs_one_tick_on_the_present_and_beat_runs_it_every_minute(patient, pushes):
    metformin(patient, kolkata(10, 7))

    with at(kolkata(10, 8, 0, 10)):
        assert tasks.dispatch_due_doses.delay().get() == 2  # created + sent

    assert doses(patient)[0].state == S.SENT
    entry = settings.CELERY_BEAT_SCHEDULE["dispatch-due-doses"]
    assert (entry["task"], entry["schedule"]) == ("health.tasks.dispatch_due_doses", 60.0)


# --- what the patient does ----------------------------------------------------------------------


@pytest.mark.parametrize("minutes", [10, 30, 60])
def test_a_snoozed_dose_is_reminded_again_once_when_the_snooze_ends(patient, tick, minutes):
    metformin(patient, kolkata(10, 7))
    tick(kolkata(10, 8))
    (dose,) = doses(patient)
    with at(kolkata(10, 8, 5)):
        dose.snooze(minutes)
    until = kolkata(10, 8, 5) + dt.timedelta(minutes=minutes)

    assert tick(until - dt.timedelta(seconds=1)).total == 0
    assert tick(until).resent == 1
    assert tick(until + dt.timedelta(minutes=1)).total == 0

    dose.refresh_from_db()
    assert (dose.state, dose.sent_at) == (S.SENT, until)
    assert titles(patient) == ["Time for Metformin 500 mg", "Snoozed reminder: Metformin 500 mg"]


def test_a_snooze_holds_off_the_re_alert_which_counts_from_the_snoozed_reminder(patient, tick):
    metformin(patient, kolkata(10, 7))
    tick(kolkata(10, 8))
    (dose,) = doses(patient)
    with at(kolkata(10, 8, 20)):
        dose.snooze(30)

    assert tick(kolkata(10, 8, 45)).total == 0  # 45 min after the first reminder, but snoozed
    tick(kolkata(10, 8, 50))  # re-sent
    assert tick(kolkata(10, 9, 19)).total == 0
    assert tick(kolkata(10, 9, 20)).realerted == 1


def test_snoozing_twice_reminds_again_after_each(patient, tick):
    metformin(patient, kolkata(10, 7))
    tick(kolkata(10, 8))
    (dose,) = doses(patient)
    with at(kolkata(10, 8, 1)):
        dose.snooze(10)
    tick(kolkata(10, 8, 11))
    with at(kolkata(10, 8, 12)):
        dose.snooze(10)
    tick(kolkata(10, 8, 22))
    tick(kolkata(10, 8, 23))

    assert titles(patient).count("Snoozed reminder: Metformin 500 mg") == 2


@pytest.mark.parametrize("act", ["take", "skip"])
def test_a_dose_taken_or_skipped_is_neither_re_alerted_nor_missed(patient, tick, act):
    metformin(patient, kolkata(10, 7))
    tick(kolkata(10, 8))
    (dose,) = doses(patient)
    with at(kolkata(10, 8, 10)):
        getattr(dose, act)()

    for hour, minute in [(8, 30), (9, 0), (9, 30), (11, 0)]:
        assert tick(kolkata(10, hour, minute)).total == 0
    dose.refresh_from_db()
    assert dose.state == (S.TAKEN if act == "take" else S.SKIPPED)
    assert (dose.realerted_at, dose.missed_at) == (None, None)
    assert len(titles(patient)) == 1


# --- not acted on -----------------------------------------------------------------------------


def test_an_unanswered_dose_is_re_alerted_once_then_missed(patient, tick):
    metformin(patient, kolkata(10, 7))
    tick(kolkata(10, 8))

    assert tick(kolkata(10, 8, 29)).total == 0
    assert tick(kolkata(10, 8, 30)).realerted == 1
    assert tick(kolkata(10, 8, 31)).total == 0
    assert tick(kolkata(10, 8, 59)).total == 0
    result = tick(kolkata(10, 9))
    assert tick(kolkata(10, 9, 1)).total == 0

    (dose,) = doses(patient)
    assert (result.missed, result.carers_told) == (1, 0)
    assert (dose.state, dose.realerted_at, dose.missed_at) == (S.MISSED, kolkata(10, 8, 30), kolkata(10, 9))
    assert titles(patient) == [
        "Time for Metformin 500 mg",
        "Still not taken: Metformin 500 mg",
        "Missed: Metformin 500 mg at 08:00",
    ]
    assert (
        Notification.objects.filter(user=patient)
        .first()
        .body.startswith("Your dose due at 08:00 was not marked as taken within 60 minutes of its reminder")
    )
    assert sms(patient) == []


def test_a_missed_dose_can_still_be_recorded_as_taken(patient, tick):
    metformin(patient, kolkata(10, 7))
    for moment in [kolkata(10, 8), kolkata(10, 8, 30), kolkata(10, 9)]:
        tick(moment)
    (dose,) = doses(patient)

    with at(kolkata(10, 9, 15)):
        dose.take()

    assert dose.state == S.TAKEN


@pytest.mark.parametrize(("opted_in", "is_carer", "texts"), [(True, True, 1), (True, False, 0), (False, True, 0)])
def test_the_carer_is_texted_once_about_a_missed_dose_only_when_the_patient_opted_in(
    patient, tick, opted_in, is_carer, texts
):
    set_profile(patient, tell_carer_of_missed_doses=opted_in)
    carer = EmergencyContactFactory(user=patient, name="Asha", phone="+919800000001", is_carer=is_carer)
    EmergencyContactFactory(user=patient, name="Ravi", phone="+919800000002", is_carer=False)
    metformin(patient, kolkata(10, 7))

    for moment in [kolkata(10, 8), kolkata(10, 8, 30), kolkata(10, 9), kolkata(10, 9, 1), kolkata(10, 10)]:
        tick(moment)

    sent = sms(patient, OutboundMessage.RecipientKind.EMERGENCY_CONTACT)
    assert [(m.recipient, m.recipient_name) for m in sent] == [(carer.phone, "Asha")] * texts
    if texts:
        assert "Metformin 500 mg due at 08:00" in sent[0].body and sent[0].body.startswith("Alice")
        # No SMS provider is configured here: the outbox says so instead of "sent".
        assert sent[0].status == OutboundMessage.Status.NOT_SENT
    assert (doses(patient)[0].carer_notified_at is not None) == bool(texts)


# --- SMS to the patient -------------------------------------------------------------------------


def test_reminders_go_by_sms_only_when_the_patient_opted_in(patient, tick):
    metformin(patient, kolkata(10, 7))
    tick(kolkata(10, 8))
    assert sms(patient) == []

    set_profile(patient, reminder_sms=True)
    tick(kolkata(10, 8, 30))  # the re-alert
    tick(kolkata(10, 20))

    texts = sms(patient, OutboundMessage.RecipientKind.PATIENT)
    assert [m.recipient for m in texts] == [PHONE, PHONE]
    assert texts[0].body.startswith("Still not taken: Metformin 500 mg.")
    assert texts[1].body == "Time for Metformin 500 mg. Take 1 tablet after food, due at 20:00."
    assert {m.status for m in texts} == {OutboundMessage.Status.NOT_SENT}


def test_no_reminder_sms_without_a_phone_number(patient, tick):
    set_profile(patient, reminder_sms=True, phone="")
    metformin(patient, kolkata(10, 7))

    tick(kolkata(10, 8))

    assert sms(patient) == [] and len(titles(patient)) == 1


# --- restarts and downtime ----------------------------------------------------------------------


def test_after_downtime_an_overdue_dose_is_sent_once_marked_late(patient, tick):
    metformin(patient, kolkata(10, 7))
    tick(kolkata(10, 7, 59))
    # Nothing ran from 07:59 to 10:00.
    result = tick(kolkata(10, 10))
    tick(kolkata(10, 10, 1))

    (dose,) = doses(patient)
    assert (result.sent, dose.state, dose.late, dose.sent_at) == (1, S.SENT, True, kolkata(10, 10))
    assert titles(patient) == ["Late reminder: Metformin 500 mg"]
    assert "This reminder is late: it did not go out at the due time." in (Notification.objects.get(user=patient).body)


def test_a_reminder_a_few_minutes_behind_is_not_late(patient, tick):
    metformin(patient, kolkata(10, 7))

    tick(kolkata(10, 8, 4))

    assert doses(patient)[0].late is False


def test_doses_beyond_the_catch_up_horizon_are_recorded_missed_without_any_reminder(patient, tick):
    metformin(patient, kolkata(10, 7))
    # Down from 07:00 on the 10th until 21:00 on the 11th.
    result = tick(kolkata(11, 21))

    assert [(d.due_at, d.state, d.sent_at is None) for d in doses(patient)] == [
        (kolkata(10, 8), S.MISSED, True),
        (kolkata(10, 20), S.MISSED, True),
        (kolkata(11, 8), S.MISSED, True),  # 13 h ago: beyond the 12 h horizon
        (kolkata(11, 20), S.SENT, False),
    ]
    assert (result.missed_quietly, result.sent, result.carers_told) == (3, 1, 0)
    assert titles(patient) == ["Late reminder: Metformin 500 mg"]


def test_a_late_dose_overtaken_by_the_next_dose_is_not_reminded(patient, tick, settings):
    settings.DOSE_CATCH_UP_HOURS = 24
    metformin(patient, kolkata(10, 7))

    tick(kolkata(10, 20, 10))

    assert [(d.due_at, d.state) for d in doses(patient)] == [(kolkata(10, 8), S.MISSED), (kolkata(10, 20), S.SENT)]
    assert titles(patient) == ["Late reminder: Metformin 500 mg"]


def test_after_downtime_a_reminded_dose_is_re_alerted_once_then_missed(patient, tick):
    metformin(patient, kolkata(10, 7))
    tick(kolkata(10, 8))
    # Down from 08:00 to 11:00: the re-alert is late, and the patient still gets time to answer it.
    assert tick(kolkata(10, 11)).realerted == 1
    assert tick(kolkata(10, 11, 29)).total == 0
    assert tick(kolkata(10, 11, 30)).missed == 1


def test_a_reminded_dose_left_beyond_the_horizon_is_missed_without_re_alert_or_carer(patient, tick):
    set_profile(patient, tell_carer_of_missed_doses=True)
    EmergencyContactFactory(user=patient, is_carer=True)
    metformin(patient, kolkata(10, 7), times=("08:00",))
    tick(kolkata(10, 8))

    result = tick(kolkata(10, 21))

    (dose,) = doses(patient)
    assert (result.missed_quietly, dose.state, dose.realerted_at) == (1, S.MISSED, None)
    assert sms(patient) == []


def test_a_snooze_that_ended_during_downtime_reminds_once_on_return(patient, tick):
    metformin(patient, kolkata(10, 7))
    tick(kolkata(10, 8))
    (dose,) = doses(patient)
    with at(kolkata(10, 8, 1)):
        dose.snooze(10)

    assert tick(kolkata(10, 9)).resent == 1
    assert tick(kolkata(10, 9, 1)).total == 0


# --- time zones and DST --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("zone", "utc"),
    [
        ("Asia/Kolkata", dt.datetime(2026, 1, 15, 2, 30, tzinfo=UTC)),
        ("America/New_York", dt.datetime(2026, 1, 15, 13, tzinfo=UTC)),
    ],
)
def test_doses_are_due_at_the_clock_time_in_the_patients_zone(patient, tick, zone, utc):
    set_profile(patient, timezone=zone)
    metformin(patient, utc - dt.timedelta(hours=2), times=("08:00",))

    assert tick(utc - dt.timedelta(seconds=1)).total == 0
    tick(utc)

    assert [d.due_at for d in doses(patient)] == [utc]


def test_a_time_skipped_by_spring_forward_is_due_the_gap_later(patient, tick):
    """New York, 8 March 2026: 02:00 EST jumps to 03:00 EDT, so 02:30 does not exist that day."""
    set_profile(patient, timezone="America/New_York")
    metformin(patient, dt.datetime(2026, 3, 7, 0, 0, tzinfo=NEW_YORK), times=("02:30",))

    for day in (7, 8, 9):
        tick(dt.datetime(2026, 3, day, 12, tzinfo=UTC))

    assert [d.due_at.astimezone(UTC) for d in doses(patient)] == [
        dt.datetime(2026, 3, 7, 7, 30, tzinfo=UTC),  # 02:30 EST
        dt.datetime(2026, 3, 8, 7, 30, tzinfo=UTC),  # 03:30 EDT
        dt.datetime(2026, 3, 9, 6, 30, tzinfo=UTC),  # 02:30 EDT
    ]
    assert [d.due_at.astimezone(NEW_YORK).strftime("%H:%M") for d in doses(patient)] == ["02:30", "03:30", "02:30"]


def test_a_time_repeated_by_fall_back_is_due_once_at_its_first_occurrence(patient, tick):
    """New York, 1 November 2026: 02:00 EDT falls back to 01:00 EST, so 01:30 happens twice."""
    set_profile(patient, timezone="America/New_York")
    metformin(patient, dt.datetime(2026, 10, 31, 12, tzinfo=NEW_YORK), times=("01:30",))

    moment = dt.datetime(2026, 11, 1, 4, 0, tzinfo=UTC)
    while moment <= dt.datetime(2026, 11, 1, 8, 0, tzinfo=UTC):  # both 01:30s, ticking every 15 minutes
        tick(moment)
        moment += dt.timedelta(minutes=15)

    assert [d.due_at.astimezone(UTC) for d in doses(patient)] == [dt.datetime(2026, 11, 1, 5, 30, tzinfo=UTC)]
    assert titles(patient).count("Time for Metformin 500 mg") == 1


def test_moving_to_another_zone_never_repeats_a_days_dose(patient, tick):
    metformin(patient, kolkata(10, 7), times=("20:00",))
    tick(kolkata(10, 20))  # 14:30 UTC on the 10th
    set_profile(patient, timezone="America/New_York")

    # 20:00 on the 10th in New York (00:00 UTC on the 11th): that local day already had its dose.
    tick(dt.datetime(2026, 3, 10, 20, tzinfo=NEW_YORK))
    tick(dt.datetime(2026, 3, 11, 20, tzinfo=NEW_YORK))

    assert [(d.due_on, d.due_at.astimezone(UTC)) for d in doses(patient)] == [
        (dt.date(2026, 3, 10), dt.datetime(2026, 3, 10, 14, 30, tzinfo=UTC)),
        (dt.date(2026, 3, 11), dt.datetime(2026, 3, 12, 0, 0, tzinfo=UTC)),
    ]


# --- dates and stopping -------------------------------------------------------------------------


def test_no_dose_after_the_end_date(patient, tick):
    medication = metformin(patient, kolkata(10, 7), times=("08:00",), days=2)
    assert medication.end_date == dt.date(2026, 3, 11)

    for day in (10, 11, 12, 13):
        tick(kolkata(day, 8))

    assert [d.due_on for d in doses(patient)] == [dt.date(2026, 3, 10), dt.date(2026, 3, 11)]


def test_no_dose_before_the_start_date(patient, tick):
    metformin(patient, kolkata(10, 7), times=("08:00",), start=dt.date(2026, 3, 12))

    for day in (10, 11, 12):
        tick(kolkata(day, 8))

    assert [d.due_on for d in doses(patient)] == [dt.date(2026, 3, 12)]


def test_a_stopped_medication_is_not_reminded_re_alerted_or_missed(patient, tick):
    medication = metformin(patient, kolkata(10, 7))
    tick(kolkata(10, 8))
    with at(kolkata(10, 8, 10)):
        medication.stop()

    for moment in [kolkata(10, 8, 30), kolkata(10, 9), kolkata(10, 20), kolkata(11, 8)]:
        assert tick(moment).total == 0
    assert [d.state for d in doses(patient)] == [S.SENT]


def test_a_medication_resumed_after_a_pause_owes_no_doses_for_the_pause(patient, tick):
    medication = metformin(patient, kolkata(10, 7), times=("08:00",))
    with at(kolkata(10, 7, 30)):
        medication.stop()
    tick(kolkata(10, 8))
    with at(kolkata(12, 9)):
        medication.active = True
        medication.save()

    tick(kolkata(12, 9, 1))
    tick(kolkata(13, 8))

    assert [d.due_on for d in doses(patient)] == [dt.date(2026, 3, 13)]


def test_a_disabled_reminder_is_not_dispatched(patient, tick):
    medication = metformin(patient, kolkata(10, 7))
    medication.reminders.filter(time_of_day=dt.time(8)).update(enabled=False)

    tick(kolkata(10, 8))
    tick(kolkata(10, 20))

    assert [d.due_at for d in doses(patient)] == [kolkata(10, 20)]


def test_new_times_take_effect_from_the_change(patient, tick):
    medication = metformin(patient, kolkata(10, 7))
    tick(kolkata(10, 8))
    with at(kolkata(10, 9)):
        medication.set_times(["09:30", "21:00"])

    for moment in [kolkata(10, 9, 30), kolkata(10, 20), kolkata(10, 21)]:
        tick(moment)

    assert [d.due_at for d in doses(patient)] == [kolkata(10, 8), kolkata(10, 9, 30), kolkata(10, 21)]


# --- taken early ------------------------------------------------------------------------------


def evening(user) -> Reminder:
    return Reminder.objects.get(medication__user=user, time_of_day=dt.time(20))


def only_reminder(user) -> Reminder:
    return Reminder.objects.get(medication__user=user)


def test_a_dose_taken_early_is_never_reminded_re_alerted_or_missed_and_counts_as_taken(patient, tick, settings):
    settings.DOSE_EARLY_MINUTES = 120
    metformin(patient, kolkata(10, 7))
    tick(kolkata(10, 8))
    with at(kolkata(10, 8, 5)):
        doses(patient)[0].take()
    with at(kolkata(10, 18, 30)):
        assert [d.reminder.time_of_day for d in ahead.upcoming(patient, kolkata(10, 18, 30))] == [dt.time(20)]
        taken = ahead.take_early(patient, evening(patient).pk, kolkata(10, 18, 30))

    assert (taken.state, taken.due_at, taken.due_on, taken.acted_at) == (
        S.TAKEN, kolkata(10, 20), dt.date(2026, 3, 10), kolkata(10, 18, 30),
    )  # fmt: skip
    with at(kolkata(10, 18, 31)):
        assert ahead.upcoming(patient, kolkata(10, 18, 31)) == []
    for moment in [kolkata(10, 20), kolkata(10, 20, 30), kolkata(10, 21), kolkata(10, 23)]:
        tick(moment)
    assert [d.state for d in doses(patient) if d.due_at == kolkata(10, 20)] == [S.TAKEN]
    assert titles(patient) == ["Time for Metformin 500 mg"]  # the 08:00 one only
    assert adherence(patient, days=1, today=dt.date(2026, 3, 10))["overall"]["taken"] == 2
    tick(kolkata(11, 20))
    assert titles(patient)[-1] == "Time for Metformin 500 mg"  # the next day's evening dose is reminded


def test_a_dose_too_far_ahead_or_not_the_patients_cannot_be_taken_early(patient, bob, tick, settings):
    settings.DOSE_EARLY_MINUTES = 120
    metformin(patient, kolkata(10, 7))
    with at(kolkata(10, 17, 59)):
        with pytest.raises(InvalidTransition, match="due at 20:00: a dose can be recorded as taken up to 120 minutes"):
            ahead.take_early(patient, evening(patient).pk, kolkata(10, 17, 59))
        with pytest.raises(InvalidTransition, match="no dose of that medicine left"):
            ahead.take_early(bob, evening(patient).pk, kolkata(10, 17, 59))
    assert doses(patient) == []
    with at(kolkata(10, 18, 1)):
        ahead.take_early(patient, evening(patient).pk, kolkata(10, 18, 1))
        with pytest.raises(InvalidTransition, match="already taken"):
            ahead.take_early(patient, evening(patient).pk, kolkata(10, 18, 2))
    assert [d.state for d in doses(patient)] == [S.TAKEN]


def test_a_dose_the_dispatcher_made_meanwhile_is_taken_as_usual(patient, tick):
    metformin(patient, kolkata(10, 7), times=("08:00",))
    tick(kolkata(10, 8))  # the reminder went off while the patient's page still offered "Taken early"

    with at(kolkata(10, 8, 5)):
        dose = ahead.take_early(patient, only_reminder(patient).pk, kolkata(10, 8, 5))

    (only,) = doses(patient)
    assert (dose.pk, only.state) == (only.pk, S.TAKEN)


def test_a_dose_past_its_time_the_dispatcher_has_not_made_yet_can_be_taken(patient, tick):
    metformin(patient, kolkata(10, 7), times=("08:00",))
    with at(kolkata(10, 8, 0, 20)):  # due 20 s ago; beat's tick of this minute has not run yet
        dose = ahead.take_early(patient, only_reminder(patient).pk, kolkata(10, 8, 0, 20))
    tick(kolkata(10, 8, 1))
    assert (dose.state, [d.state for d in doses(patient)], titles(patient)) == (S.TAKEN, [S.TAKEN], [])
