"""The two phone slips read back (agents/slips.py), as the desks and the help-now guard use them."""

from agents import slips
from agents.desk_reading import typos_read
from agents.help_now import emergency


def test_a_letter_typed_twice_and_two_letters_swapped_are_undone():
    assert slips.undoubled("bluue") == {"blue"}
    assert slips.undoubled("killl") == {"kill"}
    assert slips.unswapped("oen") == {"eon", "one"}
    assert slips.undoubled("blue") == set()


def test_a_left_out_letter_and_a_neighbouring_key_are_undone():
    assert "rash" in slips.restored("rsh")
    assert "pain" in slips.unslipped("paim"), "m is next to n"
    assert "paik" in slips.unslipped("paim") and "pail" not in slips.unslipped("paim"), "l is not next to m"


def test_only_one_reading_is_taken():
    assert slips.only({"one"}) == "one"
    assert slips.only({"feel", "fell"}) is None
    assert slips.only(set()) is None


def test_the_desks_and_the_guard_read_the_same_slips():
    assert typos_read("cancel my appointmnet wiht the gp", ("appointment",)) == "cancel my appointment with the gp"
    assert emergency("hello, my baby is turning bluue") is not None
    assert emergency("dad can't move oen side of his body") is not None
