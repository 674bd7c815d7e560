"""When the patient wants to be seen, read from their words (agents/tools/preferences.py)."""

import datetime as dt

import pytest

from agents.tools.preferences import Preference, clock_time, describe, preference_from

WEDNESDAY = dt.date(2026, 11, 25)


@pytest.mark.parametrize(
    ("text", "day", "part", "at"),
    [
        ("book me a cardiologist at 2pm on friday", dt.date(2026, 11, 27), None, dt.time(14)),
        ("I'd like an appointment at 9.30 tomorrow", dt.date(2026, 11, 26), None, dt.time(9, 30)),
        ("a dermatologist on monday morning please", dt.date(2026, 11, 30), "morning", None),
        ("can I see a GP around 3 o'clock", None, None, dt.time(15)),
    ],
)
def test_a_day_a_part_and_a_clock_time_are_read_from_a_scheduling_sentence(text, day, part, at):
    found = preference_from([text], WEDNESDAY)
    assert (found.day, found.part, found.at) == (day, part, at)


@pytest.mark.parametrize(
    "text",
    [
        "I've had a headache since 2pm, can I see a doctor",
        "my chest hurt from 9am until lunch, book me a doctor",
        "I throw up every morning",
    ],
)
def test_when_a_symptom_began_is_no_wish_for_a_time(text):
    assert not preference_from([text], WEDNESDAY)


@pytest.mark.parametrize(
    ("text", "now", "day"),
    [
        # said on a Wednesday afternoon: this Wednesday's morning is over, so it is next week's
        ("can I move it to wednesday morning", dt.time(14), dt.date(2026, 12, 2)),
        # its afternoon is not over yet, nor is the morning at 9
        ("can I move it to wednesday afternoon", dt.time(14), WEDNESDAY),
        ("can I move it to wednesday morning", dt.time(9), WEDNESDAY),
        # a day without a part, and "today", stay today
        ("can I move it to wednesday", dt.time(18), WEDNESDAY),
        ("any appointment this morning or today", dt.time(14), WEDNESDAY),
    ],
)
def test_a_part_of_today_that_is_over_means_next_weeks(text, now, day):
    assert preference_from(["", text], WEDNESDAY, now).day == day


def test_a_clock_time_fits_only_a_slot_starting_then():
    wish = Preference(at=dt.time(14))
    assert wish.fits(dt.datetime(2026, 11, 27, 14, 0))
    assert not wish.fits(dt.datetime(2026, 11, 27, 14, 30))
    assert describe(Preference(day=dt.date(2026, 11, 27), at=dt.time(14))) == "Friday 27 Nov at 14:00"


@pytest.mark.parametrize(("text", "expected"), [("at 3", dt.time(15)), ("at 10", dt.time(10)), ("12am", dt.time(0))])
def test_a_bare_early_hour_is_the_afternoon(text, expected):
    assert clock_time(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "I'm free on 2026-12-03, 08:00-18:00.",
        "any time 10am to 2pm works",
        "free between 9 and 12",
        "between 10:00 and 12:30 please",
        "I can do 10:00 \u2013 16:00",
    ],
)
def test_a_window_is_no_single_time(text):
    assert clock_time(text) is None
    assert preference_from([text], WEDNESDAY).at is None


@pytest.mark.parametrize(
    ("text", "expected"), [("can you move it to 14:30", dt.time(14, 30)), ("at 10:00 on monday", dt.time(10))]
)
def test_a_time_after_to_is_still_a_time_when_no_window_starts_before_it(text, expected):
    assert clock_time(text) == expected
