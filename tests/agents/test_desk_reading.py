"""How the desks read a message before their patterns (agents.desk_reading)."""

import pytest

from agents.desk_reading import prepared, shorthand_read, typos_read, without_opening

WORDS = ("appointment", "cancel", "can", "make", "come", "want", "when", "tuesday")


@pytest.mark.parametrize("text", ["i cant make it tomorrow", "i dont want it", "i wont come"])
def test_a_contraction_without_its_apostrophe_is_not_read_as_a_typo(text):
    """ "cant" is one letter from "can": read as a typo it would say the opposite."""
    assert typos_read(text, WORDS) == text


@pytest.mark.parametrize(
    ("typed", "read"),
    [("cancle my apointment", "cancel my appointment"), ("teusday", "tuesday"), ("wehn", "when")],
)
def test_a_typo_of_a_desk_word_is_read_as_the_word(typed, read):
    assert typos_read(typed, WORDS) == read


def test_a_word_spelled_right_is_kept_even_near_a_desk_word():
    assert typos_read("a cone", WORDS) == "a cone"


@pytest.mark.parametrize(
    ("text", "asked"),
    [
        ("Hi there. how did I sleep", "how did I sleep"),
        ("sorry to bother you but when is my next dose", "when is my next dose"),
        ("ok so, um, cancel it", "cancel it"),
        ("cancel it", "cancel it"),
    ],
)
def test_the_greeting_in_front_is_taken_off(text, asked):
    assert without_opening(text) == asked


def test_prepared_reads_typos_joins_spaces_and_drops_the_opening():
    assert prepared("hello   cancle  my\napointment", WORDS) == "cancel my appointment"


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("wat pills do i take 2day", "what pills do i take today"),
        ("wen is my nxt appt tmrw", "when is my next appt tomorrow"),
        ("r u able to move it b4 friday pls", "are you able to move it before friday please"),
        ("my meds fr tonite", "my meds for tonight"),
        ("can u move my apt to thurs", "can you move my appointment to thursday"),
        ("i wanna see a derm on weds", "i want to see a dermatologist on wednesday"),
        ("cancel my appointment with Dr. Chen", "cancel my appointment with doctor Chen"),
    ],
)
def test_texting_shorthand_is_written_out(typed, read):
    assert shorthand_read(typed) == read


@pytest.mark.parametrize(
    "text",
    [
        "your appointment",
        "turn it off",
        "a frame",
        "my ward",
        "u2 tickets",
        "Wattage",
        "I have gastro",
        "my endo flared",
    ],
)
def test_shorthand_is_read_only_as_whole_words(text):
    assert shorthand_read(text) == text


def test_a_bare_morning_greets_only_with_a_mark_after_it():
    from agents.desk_reading import without_opening

    assert without_opening("morning, when is my appointment") == "when is my appointment"
    assert without_opening("morning meds?") == "morning meds?"


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("ddid you book me in", "did you book me in"),
        ("could you confirm my time foor me", "could you confirm my time for me"),
        ("cancel teh appointment", "cancel the appointment"),
        ("another dya", "another day"),
        ("change my appt with the ENT", "change my appt with the ENT"),  # abbreviations stay
    ],
)
def test_a_letter_typed_twice_or_two_swapped_is_read_as_the_word(typed, read):
    from agents.desk_reading import typos_read

    assert typos_read(typed, ("appointment", "cancel")) == read
