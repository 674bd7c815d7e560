"""The scenario cases format: ``setup`` made before the first message, and the ``expect`` keys
beyond specializations and booked, each checked after the run (agentlab.evaluation.scenarios)."""

from __future__ import annotations

import datetime as dt
import json
import re
from zoneinfo import ZoneInfo

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from agentlab.evaluation import scenario_workers, scenarios
from agents.llm.scripted import ScriptedBackend
from health.models import Appointment, DoseEvent, Medication, Slot, VitalReading
from tests.agentlab.test_evaluation import LOS_ANGELES, ScenarioBackend, write_lines
from tests.agents.helpers import call, end, plan
from tests.factories import SlotFactory, SpecialistFactory, SpecializationFactory


@pytest.fixture
def directory(db):
    """A general physician with a slot tomorrow at 10:00 (the scenario user's time zone) and a
    dermatologist, with no slots of their own."""
    gp = SpecializationFactory(name="general physician", synonyms=["gp", "general practitioner"])
    skin = SpecializationFactory(name="dermatologist", synonyms=["skin doctor"])
    specialist = SpecialistFactory(name="Dr. Diego Arroyo", specialization=gp)
    SpecialistFactory(name="Dr. Skin", specialization=skin)
    local = (timezone.now().astimezone(LOS_ANGELES) + dt.timedelta(days=1)).replace(
        hour=10, minute=0, second=0, microsecond=0
    )
    return SlotFactory(specialist=specialist, starts_at=local, ends_at=local + dt.timedelta(minutes=30))


def act_at_start(monkeypatch, act) -> list:
    """Run ``act`` as each case's conversation starts (after the setup, in the case's savepoint, in
    the runner's thread: the model runs in a thread of its own, which sees none of it); what it
    returned, one per case."""
    acted = []
    start_chat = scenarios.start_chat

    def starting(user, message, **kwargs):
        acted.append(act())
        return start_chat(user, message, **kwargs)

    monkeypatch.setattr(scenarios, "start_chat", starting)
    return acted


def run(tmp_path, cases: list[dict], backend) -> dict:
    path = write_lines(tmp_path / "cases.jsonl", [json.dumps(case) for case in cases])
    out = tmp_path / "report.json"
    call_command("agent_scenarios", file=str(path), json_out=str(out), backend=backend, no_progress=True)
    return json.loads(out.read_text())


def local(when: str) -> dt.datetime:
    return dt.datetime.fromisoformat(when).astimezone(LOS_ANGELES)


def negated(expect: dict) -> dict:
    """``expect`` with every value turned into one the same run cannot meet."""
    opposite = {key: not value for key, value in expect.items() if isinstance(value, bool)}
    if "cancelled" in expect:
        opposite["cancelled"] = expect["cancelled"] + 1
    if "reply_mentions" in expect:
        opposite["reply_mentions"] = ["words the assistant never said"]
    return opposite


# --- setup -----------------------------------------------------------------------------------


def test_the_setup_is_made_before_the_first_message_and_kept_out_of_the_checks(tmp_path, directory, monkeypatch):
    setup = {
        "appointments": [
            {"specialization": "GP", "in_days": 1, "hour": 10},
            {"specialization": "skin doctor", "in_days": 2, "hour": 15},
        ],
        "medications": [{"name": "Metformin", "times": ["20:00", "08:00"]}],
        "vitals_days": 1,
    }

    def look():
        appointments = Appointment.objects.select_related("slot", "specialist__specialization").order_by("pk")
        medication = Medication.objects.get()
        readings = VitalReading.objects.all()
        return {
            "appointments": [
                (a.state, a.specialist.specialization.name, local(a.slot.starts_at.isoformat())) for a in appointments
            ],
            "medication": (medication.name, sorted(str(r.time_of_day)[:5] for r in medication.reminders.all())),
            "readings": readings.count(),
            "span": (readings.order_by("measured_at").first().measured_at, readings.first().measured_at),
        }

    acted = act_at_start(monkeypatch, look)
    backend = ScenarioBackend(planner=[end()])
    expect = {"booked": False, "cancelled": 0, "rescheduled": False, "reminder": {"name": "metformin"}}
    report = run(tmp_path, [{"id": "history", "message": "How am I doing?", "setup": setup, "expect": expect}], backend)

    seen = acted[0]
    today = timezone.localdate(timezone.now(), LOS_ANGELES)
    (gp_state, gp, gp_at), (skin_state, skin, skin_at) = seen["appointments"]
    assert gp_state == skin_state == Appointment.State.CONFIRMED
    assert gp == "general physician" and gp_at == local(directory.starts_at.isoformat())
    assert skin == "dermatologist" and (skin_at.date(), skin_at.hour) == (today + dt.timedelta(days=2), 15)
    assert seen["medication"] == ("Metformin", ["08:00", "20:00"])
    # One reading every 10 minutes over the last day, none in the future.
    assert seen["readings"] == 24 * 6
    first, last = seen["span"]
    assert dt.timedelta(hours=23) < last - first < dt.timedelta(days=1) and last <= timezone.now()

    case = report["cases"][0]
    assert case["status"] != scenarios.SETUP_FAILED
    assert [a["specialization"] for a in case["setup"]["appointments"]] == ["general physician", "dermatologist"]
    assert case["setup"]["medications"] == ["Metformin"] and case["setup"]["vital_readings"] == 144
    # The setup's appointments and medication are not the run's: nothing booked, no reminder made.
    assert case["booked"] is False and case["appointments"] == [] and case["medications"] == []
    assert case["checks"] == {"booked": True, "cancelled": True, "rescheduled": True, "reminder": False}
    assert case["passed"] is False
    # Nothing persisted.
    assert not Appointment.objects.exists() and not Medication.objects.exists()
    assert not VitalReading.objects.exists()
    assert Slot.objects.free().filter(pk=directory.pk).exists()


def test_a_setup_that_cannot_be_made_fails_its_case_and_the_run_goes_on(tmp_path, directory):
    backend = ScenarioBackend(planner=[end()])
    cases = [
        {
            "id": "nobody",
            "message": "Hello.",
            "setup": {"appointments": [{"specialization": "astrologer", "in_days": 1, "hour": 9}]},
        },
        {"id": "fine", "message": "Hello.", "setup": {"medications": [{"name": "Metformin", "times": ["08:00"]}]}},
    ]
    report = run(tmp_path, cases, backend)

    failed, fine = report["cases"]
    assert failed["status"] == scenarios.SETUP_FAILED and failed["passed"] is False
    assert "astrologer" in failed["error"] and failed["steps"] == 0
    assert fine["status"] != scenarios.SETUP_FAILED and fine["setup"]["medications"] == ["Metformin"]
    assert report["totals"]["setup_failed"] == 1
    assert not Appointment.objects.exists() and not Medication.objects.exists()


# --- the expect keys ----------------------------------------------------------------------------


def booking_script(slot, runs: int) -> ScenarioBackend:
    start = slot.starts_at.astimezone(LOS_ANGELES)
    when = f"{start:%H:%M}-{start + dt.timedelta(minutes=30):%H:%M}, {start:%d/%m/%Y}"
    return ScenarioBackend(
        planner=[
            plan("A cough.", "Find a general physician."),
            plan("Dr. Diego Arroyo is free.", "Suggest the appointment to the user."),
            plan("The user agreed.", "Confirm the appointment."),
            plan("Booked.", "Tell the user."),
            end(),
        ]
        * runs,
        caller=[
            call("get_available_specialists", symptoms="cough", specialization="GP"),
            call("get_input_from_user", user_id="{user_id}", questions="Dr. Diego Arroyo is free. Shall I book it?"),
            call(
                "confirm_appointment",
                user_id="{user_id}",
                specialist_id=str(slot.specialist_id),
                appointment_time_date=when,
            ),
            call("notify_user", user_id="{user_id}", message="Your visit with Dr. Diego Arroyo is booked."),
        ]
        * runs,
    )


def test_a_booking_run_against_every_key_it_can_meet_and_their_opposites(tmp_path, directory):
    booking = {
        "message": "I have had a cough for a week.",
        "accept_appointment": True,
        # A setup appointment two days on, so that cancelled and rescheduled are about something.
        "setup": {"appointments": [{"specialization": "general physician", "in_days": 2, "hour": 11}]},
    }
    expect = {
        "booked": True,
        "cancelled": 0,
        "rescheduled": False,
        "sos": False,
        "stored_symptoms": False,
        "refused": False,
        "reply_mentions": ["DIEGO ARROYO"],
    }
    report = run(
        tmp_path,
        [{**booking, "id": "met", "expect": expect}, {**booking, "id": "unmet", "expect": negated(expect)}],
        booking_script(directory, runs=2),
    )

    met, unmet = report["cases"]
    assert met["booked"] is True and met["status"] == "completed"
    assert met["checks"] == dict.fromkeys(expect, True) and met["passed"] is True
    assert unmet["checks"] == dict.fromkeys(expect, False) and unmet["passed"] is False
    # The final reply is what came after the user's last answer: not the question before it.
    assert "Shall I book it" not in met["reply"] and "Diego Arroyo" in met["reply"]


def test_cancelled_and_rescheduled_are_read_from_the_setup_appointments(tmp_path, directory, monkeypatch):
    setup = {
        "appointments": [
            {"specialization": "general physician", "in_days": 1, "hour": 10},
            {"specialization": "dermatologist", "in_days": 3, "hour": 14},
        ]
    }

    def cancel_one_move_the_other():
        # What a cancelling and a rescheduling tool would do; the checks, not the tools, are tested here.
        first, second = Appointment.objects.order_by("pk")
        first.cancel()
        # A slot of its own: the specialist the setup found may have no other free one (a weekend).
        later = second.slot.starts_at + dt.timedelta(hours=1, minutes=7)
        second.reschedule(SlotFactory(specialist=second.specialist, starts_at=later).pk)

    act_at_start(monkeypatch, cancel_one_move_the_other)
    expect = {"cancelled": 1, "rescheduled": True}
    cases = [
        {"id": "met", "message": "Hello.", "setup": setup, "expect": expect},
        {"id": "unmet", "message": "Hello.", "setup": setup, "expect": negated(expect)},
    ]
    met, unmet = run(tmp_path, cases, ScenarioBackend(planner=[end()] * 2))["cases"]

    assert met["cancelled"] == 1 and met["rescheduled"] is True
    assert met["checks"] == {"cancelled": True, "rescheduled": True} and met["passed"] is True
    assert unmet["checks"] == {"cancelled": False, "rescheduled": False} and unmet["passed"] is False


def reminder_script(runs: int) -> ScenarioBackend:
    return ScenarioBackend(
        planner=[plan("A reminder.", "Set the medication reminder."), end()] * runs,
        caller=[
            call(
                "set_medication_reminder",
                user_id="{user_id}",
                medicine_name="Metformin",
                times=["08:00", "20:00"],
                dose="1 tablet",
            )
        ]
        * runs,
    )


@pytest.mark.parametrize(
    ("reminder", "held"),
    [
        ({"name": "METFORMIN", "times_per_day": 2, "dose": "1 Tablet"}, True),
        ({"name": "metformin"}, True),
        ({"name": "aspirin", "times_per_day": 2, "dose": "1 tablet"}, False),
        ({"name": "metformin", "times_per_day": 3}, False),
        ({"name": "metformin", "dose": None}, False),
    ],
)
def test_the_reminder_key_checks_name_times_and_dose(tmp_path, directory, reminder, held):
    case = {
        "id": "remind",
        "message": "Remind me to take 1 tablet of Metformin at 08:00 and 20:00 every day.",
        "expect": {"reminder": reminder, "refused": False, "reply_mentions": ["metformin"]},
    }
    result = run(tmp_path, [case], reminder_script(1))["cases"][0]

    assert [m["name"] for m in result["medications"]] == ["Metformin"], result["trajectory"]
    assert result["checks"] == {"reminder": held, "refused": True, "reply_mentions": True}
    assert result["passed"] is held


def test_a_setup_medication_is_no_reminder_of_the_run(tmp_path, directory):
    case = {
        "id": "old",
        "message": "Hello.",
        "setup": {"medications": [{"name": "Metformin", "times": ["08:00", "20:00"]}]},
        "expect": {"reminder": {"name": "metformin", "times_per_day": 2}, "refused": True},
    }
    result = run(tmp_path, [case], ScenarioBackend(planner=[end()]))["cases"][0]
    assert result["checks"] == {"reminder": False, "refused": True}


def test_a_sent_dose_is_marked_taken_after_the_yes_and_counted(tmp_path, directory):
    # 00:00 has passed whenever the test runs; the desk answers without the model.
    setup = {"medications": [{"name": "Metformin", "times": ["00:00", "23:59"], "sent": ["00:00"]}]}
    message = "I've taken my metformin"
    cases = [
        {"id": "yes", "message": message, "setup": setup, "expect": {"taken": 1, "reply_mentions": ["taken"]}},
        {"id": "no", "message": message, "setup": setup, "consent": False, "expect": {"taken": 1}},
    ]
    yes, no = run(tmp_path, cases, ScriptedBackend())["cases"]

    assert yes["setup"]["doses_sent"] == 1 and yes["model_calls"] == 0
    assert yes["taken"] == 1 and yes["checks"] == {"taken": True, "reply_mentions": True}, yes["error"]
    assert no["taken"] == 0 and no["checks"] == {"taken": False}


def _metformin_taken_at_eight(tmp_path):
    """A case whose setup has today's 08:00 metformin reminder gone out, and the patient says it was taken."""
    case = {
        "id": "taken",
        "message": "I've taken my metformin",
        "setup": {"medications": [{"name": "Metformin", "times": ["08:00"], "sent": ["08:00"]}]},
        "expect": {"taken": 1},
    }
    [loaded] = scenarios.load_cases(write_lines(tmp_path / "cases.jsonl", [json.dumps(case)]))
    return loaded


def test_a_sent_dose_still_to_come_today_is_left_to_take_early_or_fails_the_setup(tmp_path, alice, settings):
    # The setup's clock at 05:00 and 07:00 in the patient's zone: an 08:00 dose is still to come,
    # whenever the test runs; at 07:00 it is within the early window, and has no row yet.
    settings.DOSE_EARLY_MINUTES = 120
    alice.profile.timezone = "America/Los_Angeles"
    alice.profile.save()
    loaded = _metformin_taken_at_eight(tmp_path)
    five = timezone.now().astimezone(LOS_ANGELES).replace(hour=5, minute=0, second=0, microsecond=0)

    with pytest.raises(scenarios.SetupError, match="the 08:00 dose is not due yet today"):
        scenarios.make_setup(loaded, alice, now=five)
    made = scenarios.make_setup(loaded, alice, now=five.replace(hour=7))
    assert made["doses_sent"] == 0 and not DoseEvent.objects.filter(user=alice).exists()


def test_an_emergency_starts_the_sos_and_the_reply_says_so(tmp_path, directory):
    message = "Call an ambulance, my husband collapsed and is not breathing!"
    expect = {"sos": True, "refused": False, "stored_symptoms": False}
    cases = [
        {"id": "met", "message": message, "expect": expect},
        {"id": "unmet", "message": message, "expect": negated(expect)},
    ]
    report = run(tmp_path, cases, ScriptedBackend())  # the help-now guard acts without the model

    met, unmet = report["cases"]
    assert met["sos"] is True and met["model_calls"] == 0 and met["reply"]
    assert met["checks"] == dict.fromkeys(expect, True)
    assert unmet["checks"] == dict.fromkeys(expect, False)


def test_an_out_of_scope_request_is_refused_and_the_reply_checked(tmp_path, directory):
    message = "Please prescribe me some antibiotics."
    cases = [
        {"id": "met", "message": message, "expect": {"refused": True, "reply_mentions": ["prescri"]}},
        {
            "id": "unmet",
            "message": message,
            "expect": {"refused": False, "reply_mentions": ["antibiotics are on the way"]},
        },
    ]
    report = run(tmp_path, cases, ScriptedBackend())  # the scope guard answers without the model

    met, unmet = report["cases"]
    assert met["refused"] is True and met["checks"] == {"refused": True, "reply_mentions": True}
    assert unmet["checks"] == {"refused": False, "reply_mentions": False}


def test_stored_symptoms_holds_when_the_run_stores_them(tmp_path, directory):
    backend = ScenarioBackend(
        planner=[plan("A rash.", "Store the symptoms."), end()] * 2,
        caller=[call("store_symptoms", user_id="{user_id}", symptoms="rash, itching", timestamp="2024-05-02T10:00:00")]
        * 2,
    )
    message = "An itchy rash on my arm."
    cases = [
        {"id": "met", "message": message, "expect": {"stored_symptoms": True, "refused": False}},
        {"id": "unmet", "message": message, "expect": {"stored_symptoms": False, "refused": True}},
    ]
    met, unmet = run(tmp_path, cases, backend)["cases"]
    assert met["symptoms"] == [["rash", "itching"]] and met["checks"] == {"stored_symptoms": True, "refused": True}
    assert unmet["checks"] == {"stored_symptoms": False, "refused": False}


def test_the_report_has_a_table_per_use_case_with_the_checks(tmp_path, directory, capsys):
    message = "Please prescribe me some antibiotics."
    cases = [
        {"id": "a", "message": message, "category": "negative", "expect": {"refused": True}},
        {"id": "b", "message": message, "category": "negative", "expect": {"refused": False}},
        {"id": "c", "message": message, "category": "reminder", "expect": {"stored_symptoms": False}},
    ]
    report = run(tmp_path, cases, ScriptedBackend())

    negative, reminder = report["per_category"]["negative"], report["per_category"]["reminder"]
    assert negative["cases"] == 2 and negative["passed"] == 1
    assert negative["checks"] == {"refused": {"checked": 2, "held": 1}}
    assert reminder["checks"] == {"stored_symptoms": {"checked": 1, "held": 1}}
    printed = capsys.readouterr().out
    assert "use case" in printed and "refused 1/2" in printed
    assert re.search(r"\bb\b.*refused.*FAIL", printed)


# --- malformed cases -----------------------------------------------------------------------------

VALID = '{"id": "ok", "message": "hi"}'


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ({"setup": []}, "'setup' must be an object"),
        ({"setup": {"vitals": 3}}, "'setup' has unknown key(s) vitals"),
        ({"setup": {"appointments": {}}}, "'setup.appointments' must be a list"),
        ({"setup": {"appointments": [{"specialization": "gp", "in_days": 1}]}}, "needs hour"),
        ({"setup": {"appointments": [{"specialization": "gp", "in_days": 1, "hour": 24}]}}, "hour' must be a whole"),
        ({"setup": {"appointments": [{"specialization": "gp", "in_days": -1, "hour": 9}]}}, "in_days' must be"),
        ({"setup": {"appointments": [{"specialization": "", "in_days": 1, "hour": 9}]}}, "specialization' must be"),
        ({"setup": {"medications": [{"name": "Metformin", "times": ["8am"]}]}}, "times' must list"),
        ({"setup": {"medications": [{"name": "Metformin", "times": "08:00"}]}}, "must be a list of strings"),
        ({"setup": {"medications": [{"name": "M", "times": ["08:00"], "sent": ["09:00"]}]}}, "sent' must list some"),
        ({"expect": {"taken": -1}}, "'expect.taken' must be a whole number"),
        ({"setup": {"vitals_days": True}}, "'setup.vitals_days' must be a whole number"),
        ({"setup": {"vitals_days": 31}}, "'setup.vitals_days' must be a whole number from 0 to 30"),
        ({"expect": {"canceled": 1}}, "'expect' has unknown key(s) canceled"),
        ({"expect": {"cancelled": "1"}}, "'expect.cancelled' must be a whole number"),
        ({"expect": {"rescheduled": "yes"}}, "'expect.rescheduled' must be true or false"),
        ({"expect": {"reminder": {"times_per_day": 2}}}, "'expect.reminder' needs name"),
        ({"expect": {"reminder": {"name": "x", "dose": 5}}}, "'expect.reminder.dose' must be a string or null"),
        ({"expect": {"reminder": {"name": "x", "when": "now"}}}, "'expect.reminder' has unknown key(s) when"),
        ({"expect": {"sos": 1}}, "'expect.sos' must be true or false"),
        ({"expect": {"stored_symptoms": None}}, "'expect.stored_symptoms' must be true or false"),
        ({"expect": {"reply_mentions": "ambulance"}}, "'expect.reply_mentions' must be a list of strings"),
        ({"expect": {"reply_mentions": [" "]}}, "must not hold an empty string"),
        ({"expect": {"refused": "true"}}, "'expect.refused' must be true or false"),
    ],
)
def test_a_malformed_setup_or_expect_is_refused_with_its_line(tmp_path, case, message):
    path = write_lines(tmp_path / "cases.jsonl", [VALID, json.dumps({"id": "bad", "message": "hi", **case})])
    with pytest.raises(scenarios.CaseError, match=re.escape("line 2: ") + ".*" + re.escape(message)):
        scenarios.load_cases(path)


def test_the_command_refuses_a_malformed_setup_and_runs_nothing(tmp_path, db):
    path = write_lines(tmp_path / "cases.jsonl", [VALID, '{"message": "hi", "setup": {"vitals_days": -1}}'])
    out = tmp_path / "out.json"
    with pytest.raises(CommandError, match=re.escape("line 2: 'setup.vitals_days'")):
        call_command("agent_scenarios", file=str(path), json_out=str(out), backend=ScriptedBackend())
    assert not out.exists()


def test_a_well_formed_case_keeps_its_setup_and_expectations():
    line = {
        "message": "Cancel my appointment.",
        "setup": {"medications": [{"name": "Metformin", "times": ["20:00", "08:00"]}], "vitals_days": 2},
        "expect": {"booked": False, "cancelled": 1, "reminder": {"name": "Metformin", "dose": None}},
    }
    case = scenarios._case(1, line)
    assert case.booked is False
    assert case.setup == {
        "appointments": [],
        "medications": [{"name": "Metformin", "times": ["08:00", "20:00"]}],
        "vitals_days": 2,
    }
    assert case.expect == {"cancelled": 1, "reminder": {"name": "Metformin", "dose": None}}


def test_worker_shards_carry_the_setup_and_expectations(tmp_path):
    case = scenarios._case(
        1,
        {
            "message": "Hello.",
            "setup": {"appointments": [{"specialization": "gp", "in_days": 1, "hour": 9}], "vitals_days": 1},
            "expect": {"sos": False, "reply_mentions": ["hello"], "reminder": {"name": "x", "dose": None}},
        },
    )
    scenario_workers.write_cases(tmp_path / "cases.json", [case])
    assert scenario_workers.read_cases(tmp_path / "cases.json") == [case]
    result = scenarios.CaseResult(id="x", checks={"sos": True}, setup={"vital_readings": 3}, reply="Hi.")
    assert scenarios.CaseResult(**json.loads(json.dumps(result.to_dict()))) == result


def test_an_unmigrated_database_is_a_clear_error_before_any_case_runs(tmp_path):
    """A fresh process on an empty SQLite file: one sentence saying what to run, not a traceback
    from the first tool that touches a table."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    from django.conf import settings

    cases = write_lines(tmp_path / "cases.jsonl", [json.dumps({"id": "c1", "message": "I have a rash"})])
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "backend.settings",
        "DATA_DIR": str(tmp_path / "data"),
        "DATABASE_URL": f"sqlite:///{tmp_path / 'empty.sqlite3'}",
        "AGENT_BACKEND": "scripted",
    }
    finished = subprocess.run(
        [sys.executable, "manage.py", "agent_scenarios", "--file", str(cases), "--no-progress"],
        cwd=Path(settings.BASE_DIR),
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert finished.returncode == 1
    assert "The database is not migrated: run `python manage.py migrate` first." in finished.stderr
    assert "Traceback" not in finished.stderr


def _chiropodist_patient_and_clock(alice, hour: int, minute: int) -> dt.datetime:
    """Alice in Los Angeles; a field the demo directory has no clinic hours for (no slot that day,
    whatever day the test runs); the setup's clock two days on at ``hour:minute``: the booking checks
    the real clock, so the appointment it makes must be in the future whenever the test runs."""
    alice.profile.timezone = "America/Los_Angeles"
    alice.profile.save()
    SpecialistFactory(specialization=SpecializationFactory(name="chiropodist"))
    later = timezone.now().astimezone(LOS_ANGELES) + dt.timedelta(days=2)
    return later.replace(hour=hour, minute=minute, second=0, microsecond=0)


def test_an_appointment_today_whose_hour_has_gone_by_is_made_later_that_day(tmp_path, alice):
    """A case naming today's weekday, run in the afternoon, still gets its appointment: later today."""
    now = _chiropodist_patient_and_clock(alice, 15, 20)
    weekday = scenarios.WEEKDAYS[now.weekday()]
    case = {
        "id": "today",
        "message": f"cancel my {weekday} appointment",
        "setup": {"appointments": [{"specialization": "chiropodist", "weekday": weekday, "hour": 9}]},
    }
    [loaded] = scenarios.load_cases(write_lines(tmp_path / "cases.jsonl", [json.dumps(case)]))

    made = scenarios.make_setup(loaded, alice, now=now)

    [appointment] = made["appointments"]
    starts = dt.datetime.fromisoformat(appointment["starts_at"]).astimezone(LOS_ANGELES)
    assert starts.date() == now.date() and (starts.hour, starts.minute) == (16, 0)  # the full hour 30 minutes on


def test_after_half_past_ten_at_night_it_cannot_be_made(tmp_path, alice):
    now = _chiropodist_patient_and_clock(alice, 23, 0)
    case = {
        "id": "late",
        "message": "cancel it",
        "setup": {"appointments": [{"specialization": "chiropodist", "in_days": 0, "hour": 9}]},
    }
    [loaded] = scenarios.load_cases(write_lines(tmp_path / "cases.jsonl", [json.dumps(case)]))

    with pytest.raises(scenarios.SetupError, match="no free slot"):
        scenarios.make_setup(loaded, alice, now=now)


def test_a_sent_dose_not_yet_due_in_the_demo_zone_is_set_up_in_a_zone_where_it_is(tmp_path, db):
    # At 05:00 in Los Angeles an 08:00 reminder cannot have gone out there: the patient lives in the
    # nearest zone where 08:00 has passed, and the setup is made whatever the hour of the run.
    loaded = _metformin_taken_at_eight(tmp_path)
    five = timezone.now().astimezone(LOS_ANGELES).replace(hour=5, minute=0, second=0, microsecond=0)

    zone = scenarios.setup_zone(loaded, five)

    local = five.astimezone(ZoneInfo(zone))
    assert zone != "America/Los_Angeles" and dt.time(8) <= local.time() <= dt.time(23, 30)
    user = scenarios.scenario_user(zone)
    made = scenarios.make_setup(loaded, user, now=five)
    [dose] = DoseEvent.objects.filter(user=user)
    assert made["doses_sent"] == 1 and dose.due_at.astimezone(ZoneInfo(zone)).time() == dt.time(8)
    # in the afternoon there, the demo patient's own zone
    assert scenarios.setup_zone(loaded, five.replace(hour=15)) == "America/Los_Angeles"


def test_a_case_without_sent_doses_keeps_the_demo_zone(tmp_path, db):
    case = {"id": "plain", "message": "what's my next appointment?", "expect": {}}
    [loaded] = scenarios.load_cases(write_lines(tmp_path / "cases.jsonl", [json.dumps(case)]))
    assert scenarios.setup_zone(loaded, timezone.now()) == "America/Los_Angeles"


def test_an_appointment_today_run_late_at_night_is_set_up_in_a_zone_where_the_day_is_not_over(tmp_path, db):
    case = {
        "id": "today",
        "message": "what's my appointment today?",
        "setup": {"appointments": [{"specialization": "dermatologist", "in_days": 0, "hour": 9}]},
        "expect": {},
    }
    [loaded] = scenarios.load_cases(write_lines(tmp_path / "cases.jsonl", [json.dumps(case)]))
    late = timezone.now().astimezone(LOS_ANGELES).replace(hour=23, minute=15, second=0, microsecond=0)

    zone = scenarios.setup_zone(loaded, late)

    assert zone != "America/Los_Angeles" and late.astimezone(ZoneInfo(zone)).time() <= dt.time(22, 30)
    assert scenarios.setup_zone(loaded, late.replace(hour=20)) == "America/Los_Angeles"
