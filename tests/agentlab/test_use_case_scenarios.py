"""Generated end-to-end cases per use case: written in the agent_scenarios format, with a setup that
matches the request and expectations per use case (agentlab.data.use_case_scenarios)."""

from __future__ import annotations

import datetime as dt
import json
import random
import re

import pytest
from django.core.management import CommandError, call_command

from agentlab.data import requests
from agentlab.data import use_case_scenarios as generated
from agentlab.data.bank import DISEASES
from agentlab.evaluation import scenarios
from agents.llm.scripted import ScriptedBackend
from health import demo_data
from tests.agentlab.test_evaluation import write_lines

DIRECTORY = {row.name for row in demo_data.SPECIALIZATIONS}


def _write(tmp_path, *args) -> list[scenarios.Case]:
    out = tmp_path / "cases.jsonl"
    call_command("generate_use_case_scenarios", "--out", str(out), *args)
    return scenarios.load_cases(out)


def test_the_command_writes_valid_cases_of_every_use_case(tmp_path, capsys):
    dev = _write(tmp_path, "--per-case", "3", "--split", "dev")
    printed = capsys.readouterr().out

    assert [case.category for case in dev] == [name for name in generated.USE_CASES for _ in range(3)]
    assert len({case.id for case in dev}) == len(dev) and not any(case.unseen for case in dev)
    assert all(case.expect or case.booked is not None or case.specializations for case in dev)
    # How many cases each use case got, never a request's text.
    assert "| appointments_cancel " in printed and "Wrote 36 dev cases" in printed
    assert not [case.message for case in dev if len(case.message) > 12 and case.message in printed]

    test = _write(tmp_path, "--per-case", "2", "--split", "test", "--desks-only")
    assert {case.category for case in test} == set(generated.DESK_USE_CASES) and all(case.unseen for case in test)
    assert "book_symptoms" not in generated.DESK_USE_CASES and "medicines_reminder" not in generated.DESK_USE_CASES


def test_the_cases_are_deterministic_by_seed_and_the_splits_come_from_their_own_families():
    first = generated.generate(4, "dev", seed=5)
    assert first == generated.generate(4, "dev", seed=5)
    assert [c["message"] for c in first] != [c["message"] for c in generated.generate(4, "dev", seed=6)]
    # A use case's cases do not depend on which others are generated with it.
    only = generated.generate(4, "dev", seed=5, use_cases=["my_health"])
    assert only == [c for c in first if c["category"] == "my_health"]
    for split in generated.SPLITS:
        for case in generated.generate(3, split):
            names = {f.name for f in requests.families(case["category"], split)}
            assert case["family"] in names and not case["family"].startswith("mixed")
    with pytest.raises(ValueError):
        generated.generate(0, "dev")
    with pytest.raises(ValueError):
        generated.generate(1, "both")


def test_the_setups_are_valid_and_match_the_expectations(tmp_path):
    path = tmp_path / "all.jsonl"
    lines = [json.dumps(c) for split in generated.SPLITS for c in generated.generate(12, split)]
    cases = scenarios.load_cases(write_lines(path, lines))  # every setup and expect key checked

    for case in cases:
        appointments = case.setup.get("appointments", [])
        assert {a["specialization"] for a in appointments} <= DIRECTORY, case.id
        assert all(a.get("weekday", "monday") in generated.WEEKDAYS for a in appointments)
        expect = case.expect
        if case.category in ("appointments_list", "appointments_cancel", "appointments_reschedule"):
            # The reply names the (first) appointment's specialization as the replies print it.
            assert expect["reply_mentions"] == [appointments[0]["specialization"].title()], case.id
            assert case.booked is False and expect["stored_symptoms"] is False
        if case.category == "appointments_list":
            assert len(appointments) == 2 and expect["cancelled"] == 0 and expect["rescheduled"] is False
        elif case.category == "appointments_cancel":
            assert expect["cancelled"] == 1 and case.consent is True and 1 <= len(appointments) <= 2
        elif case.category == "appointments_reschedule":
            assert expect["rescheduled"] is True and len(appointments) == 1
            assert appointments[0].get("weekday", "monday") in generated.CLINIC_DAYS or "in_days" in appointments[0]
        elif case.category == "help_now":
            assert expect == {"sos": True} and not case.setup
        elif case.category == "out_of_scope":
            assert expect == {"refused": True}
        elif case.category == "my_health":
            assert case.setup["vitals_days"] == 2 and expect["reply_mentions"] == ["watch"]
        elif case.category == "medicines_today":
            (medication,) = case.setup["medications"]
            assert expect["reply_mentions"] == [medication["name"]] and expect["refused"] is True
        elif case.category == "medicines_taken":
            (medication,) = case.setup["medications"]
            assert medication["sent"] == medication["times"] and len(medication["times"]) == 1
            assert expect == {"stored_symptoms": False, "taken": 1, "reply_mentions": ["taken"]}
            assert case.booked is False
        elif case.category == "medicines_photo":
            assert expect["refused"] is True and expect["stored_symptoms"] is False
        elif case.category == "medicines_reminder":
            reminder = expect["reminder"]
            assert reminder["name"] in generated.MEDICINES.values() and 1 <= reminder["times_per_day"] <= 3
            assert reminder.get("dose", None) in (None, "one tablet", "two puffs")
        else:  # the bookings
            assert set(case.specializations) <= DIRECTORY and case.booked is case.accept_appointment
    assert {case.category for case in cases} == set(generated.USE_CASES)
    assert {case.booked for case in cases if case.category == "book_constraint"} == {True, False}


def test_the_slot_tables_cover_every_slot_value_and_template():
    assert set(generated.SPECIALIZATION) == set(requests._SPECIALISTS)
    assert {name for name in generated.SPECIALIZATION.values() if name} <= DIRECTORY
    assert set(generated.HOURS) == set(requests._TIMES) >= generated.SLOT_STARTS
    assert set(generated.WHEN_HAS) == set(requests._WHEN) >= generated.WHEN_FREE
    assert set(generated.MEDICINES) == set(requests._MEDS)
    assert set(generated.TIMES_PER_DAY) == set(requests._FREQS)
    moves = {
        template
        for split in generated.SPLITS
        for family in generated.usable_families("appointments_reschedule", split)
        for template in family.templates
    }
    assert moves == set(generated.MOVES)


def _drawn(template: str, **slots: str) -> requests.Drawn:
    filled = re.sub(r"\{(\w+)\}", lambda m: slots[m.group(1)], template)
    return requests.Drawn(
        filled, filled, template, tuple((name, slots[name]) for name in re.findall(r"\{(\w+)\}", template))
    )


def test_the_setup_and_the_expectations_are_read_from_the_request():
    rng = random.Random(1)
    cancel = generated.BUILDERS["appointments_cancel"]
    built = cancel(_drawn("Could you please cancel my booking for {day} at {time}?", day="friday", time="2pm"), rng)
    assert built.setup["appointments"][0] | {"specialization": "x"} == {
        "specialization": "x",
        "weekday": "friday",
        "hour": 14,
    }
    named = cancel(_drawn("cancel my {spec} appointment", spec="skin doctor"), rng)
    assert named.setup["appointments"][0]["specialization"] == "dermatologist"
    assert len(named.setup["appointments"]) == 2 and named.expect["reply_mentions"] == ["Dermatologist"]
    # A day that is not the same on every run, a specialist the directory lacks, a doctor by name: drawn again.
    assert cancel(_drawn("cancel my appointment {when}", when="this week"), rng) is None
    assert cancel(_drawn("cancel my {spec} appointment", spec="physio"), rng) is None
    assert cancel(_drawn("cancel with Dr {name} on {day}", name="Patel", day="monday"), rng) is None

    move = generated.BUILDERS["appointments_reschedule"]
    template = "Move my {spec} appointment to {day} {part}"
    assert move(_drawn(template, spec="ENT", day="saturday", part="morning"), rng) is None
    assert move(_drawn(template, spec="ENT", day="friday", part="evening"), rng) is None
    moved = move(_drawn(template, spec="ENT", day="friday", part="morning"), rng)
    assert moved.setup["appointments"][0]["specialization"] == "ent"
    assert moved.setup["appointments"][0]["weekday"] in set(generated.CLINIC_DAYS) - {"friday"}
    assert move(_drawn("can I come at {time} instead", time="3:15"), rng) is None  # no slot starts then

    remind = generated.BUILDERS["medicines_reminder"]
    template = "My doctor prescribed {med} {dose} {freq}, can you add it?"
    assert remind(_drawn(template, med="metformin", dose="one tablet", freq="twice a day"), rng).expect["reminder"] == {
        "name": "Metformin",
        "times_per_day": 2,
        "dose": "one tablet",
    }
    assert (
        "dose" not in remind(_drawn(template, med="metformin", dose="500mg", freq="once a day"), rng).expect["reminder"]
    )
    assert remind(_drawn("stop the reminders for {med}", med="metformin"), rng) is None
    assert (
        remind(_drawn("remind {rel} to take {med} {freq}", rel="my dad", med="aspirin", freq="at night"), rng) is None
    )

    taken = generated.BUILDERS["medicines_taken"]

    def dose_of(built) -> tuple[str, list[str]]:
        (medication,) = built.setup["medications"]
        return medication["name"], medication["sent"]

    assert dose_of(taken(_drawn("I took the {part} dose", part="evening"), rng))[1] == ["19:00"]
    assert dose_of(taken(_drawn("had my bedtime tablets"), rng))[1] == ["21:00"]
    assert dose_of(taken(_drawn("I've taken my {med}", med="metformin"), rng)) == ("Metformin", ["08:00"])
    assert dose_of(taken(_drawn("took my {med} at {time}", med="aspirin", time="2pm"), rng)) == ("Aspirin", ["14:00"])

    disease = next(d for d in DISEASES if d.first_contact)
    complaint = requests.Drawn("my knee hurts", "my knee hurts", "formal", (("disease", disease.name),))
    symptoms = generated.BUILDERS["book_symptoms"](complaint, rng)
    assert symptoms.expect["specializations"] == [disease.examined_first_by] != [disease.specialization]
    assert generated.BUILDERS["book_symptoms"](_drawn("I keep getting headaches"), rng) is None


def test_a_weekday_setup_is_the_day_the_app_reads_it_as(tmp_path):
    wednesday = dt.date(2026, 11, 25)
    assert scenarios.days_ahead({"weekday": "wednesday"}, wednesday) == 0
    assert scenarios.days_ahead({"weekday": "friday"}, wednesday) == 2
    assert scenarios.days_ahead({"weekday": "monday"}, wednesday) == 5
    item = {"specialization": "gp", "hour": 9}
    for wrong, message in (
        ({}, "needs in_days or weekday"),
        ({"in_days": 1, "weekday": "monday"}, "needs in_days or weekday"),
        ({"weekday": "Funday"}, "must be one of monday"),
    ):
        path = write_lines(
            tmp_path / "c.jsonl", [json.dumps({"message": "hi", "setup": {"appointments": [item | wrong]}})]
        )
        with pytest.raises(scenarios.CaseError, match=message):
            scenarios.load_cases(path)


def test_the_command_refuses_bad_arguments(tmp_path):
    with pytest.raises(CommandError, match="--per-case"):
        call_command("generate_use_case_scenarios", "--per-case", "0", "--out", str(tmp_path / "x.jsonl"))
    with pytest.raises(CommandError, match="do not go together"):
        call_command(
            "generate_use_case_scenarios", "--desks-only", "--use-case", "help_now", "--out", str(tmp_path / "x.jsonl")
        )


# Desk-only cases: the guards and desks answer them, so a model that fails when called must never be.
END_TO_END = ("help_now-dev-001", "out_of_scope-dev-001", "appointments_cancel-dev-001", "my_health-dev-002")


@pytest.mark.django_db
def test_generated_desk_cases_pass_end_to_end_without_the_model(tmp_path):
    made = {
        c["id"]: c
        for c in generated.generate(
            2, "dev", use_cases=("help_now", "out_of_scope", "appointments_cancel", "my_health")
        )
    }
    chosen = [made[name] for name in END_TO_END]
    cancel = made["appointments_cancel-dev-001"]
    # Not tied to the weekday it runs on: its appointment is a number of days ahead.
    assert all("in_days" in a for a in cancel["setup"]["appointments"])
    refused = {**cancel, "id": "cancel-refused", "consent": False}  # "No." keeps it: cancelled 0, the check fails
    path = write_lines(tmp_path / "cases.jsonl", [json.dumps(case) for case in [*chosen, refused]])
    backend = ScriptedBackend()  # any model call fails the case
    out = tmp_path / "report.json"

    call_command("agent_scenarios", file=str(path), json_out=str(out), backend=backend, no_progress=True)

    report = json.loads(out.read_text())
    results = {case["id"]: case for case in report["cases"]}
    failed = {name: (r["status"], r["checks"], r["error"]) for name, r in results.items() if not r["passed"]}
    assert set(failed) == {"cancel-refused"}, failed
    assert failed["cancel-refused"][1]["cancelled"] is False
    assert backend.calls == []
    assert results["help_now-dev-001"]["sos"] is True
    assert results["appointments_cancel-dev-001"]["cancelled"] == 1
    assert results["my_health-dev-002"]["setup"]["vital_readings"] > 0
    assert set(report["per_category"]) == {"help_now", "out_of_scope", "appointments_cancel", "my_health"}


@pytest.mark.django_db
def test_the_hand_written_cases_are_valid_and_the_photo_requests_pass_without_the_model(tmp_path):
    from pathlib import Path

    hand = Path(scenarios.__file__).with_name("use_cases_hand.jsonl")
    cases = scenarios.load_cases(hand)
    assert len(cases) == 43 and {c.category for c in cases} >= {"appointments_list", "medicines_photo", "my_health"}
    lines = [line for line in hand.read_text().splitlines() if '"medicines_photo"' in line]
    path = write_lines(tmp_path / "cases.jsonl", lines)
    backend = ScriptedBackend()  # any model call fails the case
    out = tmp_path / "report.json"

    call_command("agent_scenarios", file=str(path), json_out=str(out), backend=backend, no_progress=True)

    report = json.loads(out.read_text())
    assert [c["passed"] for c in report["cases"]] == [True] * 4
    assert backend.calls == []
