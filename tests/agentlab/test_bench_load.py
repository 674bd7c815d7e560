"""bench_load's arguments and table (the driver itself runs in tests/backend/test_make_run.py)."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from agentlab.load import Results, first_turns_table, table


@pytest.mark.parametrize(
    "args",
    [["--watches", "0"], ["--watches", "2", "--chats", "3"], ["--seconds", "0"], ["--chats", "-1"]],
)
def test_impossible_loads_are_refused_before_anything_starts(args):
    with pytest.raises(CommandError, match="at least one watch"):
        call_command("bench_load", *args)


def test_the_table_says_when_readings_went_missing():
    results = Results(seconds=10, sent=20, accepted=20, ingest_ms=[10.0, 12.0, 30.0], turn_ms=[900.0])
    results.error("vitals 503")
    printed = table(results, stored=19, watches=2, chats=1, database="SQLite + local Redis")
    assert "readings sent 20, accepted 20, stored 19   <-- NOT EQUAL" in printed
    assert "errors: vitals 503 x1" in printed
    assert "vitals ingestion" in printed and "      12 " in printed  # the median


def test_the_table_of_a_clean_run_says_nothing_is_missing():
    results = Results(seconds=10, sent=20, accepted=20, ingest_ms=[10.0] * 20, event_ms=[15.0] * 20)
    printed = table(results, stored=20, watches=2, chats=0, database="PostgreSQL + Redis")
    assert "readings sent 20, accepted 20, stored 20\n" in printed and "errors: none" in printed


def test_the_first_turn_table_says_which_answer_never_came():
    answered = Results(turn_ms=[14140.0, 5342.0])
    unanswered = Results(turn_ms=[6218.0], turns_unfinished=1)
    printed = first_turns_table(("a complaint", "a question"), [answered, unanswered], after=30)
    assert "asked 30 s after make run said ready" in printed
    assert "a complaint" in printed and "    14140      5342" in printed
    assert "     6218         -   <-- 1" in printed


def test_a_negative_wait_is_refused_before_anything_starts():
    with pytest.raises(CommandError, match="0 or more"):
        call_command("bench_first_turn", "--after", "-1")


def test_a_negative_saturation_is_refused_before_anything_starts():
    with pytest.raises(CommandError, match="--saturate needs"):
        call_command("bench_load", "--saturate", "-1")
