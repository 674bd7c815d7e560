"""Evaluation of the planner and caller: metrics, `agent_eval` and `agent_scenarios`.

Everything runs on scripted model outputs and invented sentences (fixtures in
tests/agents/data/eval/); no real model and no external evaluation text."""

from __future__ import annotations

import datetime as dt
import json
import re
import zoneinfo

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.utils import timezone

from agentlab.evaluation import metrics, offline, scenarios
from agents.llm.scripted import ScriptedBackend
from agents.models import Conversation
from health import demo_data
from health.models import Appointment, Slot, Specialization, SymptomRecord
from tests.agents.helpers import DATA, call, end, plan
from tests.factories import SlotFactory, SpecialistFactory, SpecializationFactory

EVAL = DATA / "eval"
SAMPLES = EVAL / "samples.jsonl"
LOS_ANGELES = zoneinfo.ZoneInfo(demo_data.TIMEZONE)  # the scenario user's time zone

PLAN = plan("User reports fever and a cough for three days.", "Find a general physician available for an appointment.")
CALL = call("get_available_specialists", symptoms="fever, cough", specialization="general physician")


# --- metrics on hand-made pairs ----------------------------------------------------------


def test_identical_outputs_score_perfectly():
    assert metrics.corpus_bleu([PLAN], [PLAN]) == pytest.approx(100)
    assert metrics.rouge(PLAN, PLAN) == {"rouge1": 1.0, "rouge2": 1.0, "rougeL": 1.0}
    assert metrics.caller_accuracy(CALL, CALL) == {"tool_acc": 1.0, "param_acc": 1.0, "values_acc": 1.0}
    assert metrics.action_match(PLAN, PLAN)


def test_the_planner_stop_sequence_and_caller_formatting_do_not_count():
    cut = PLAN.removesuffix("</action>")  # what the runtime's stop sequence leaves
    assert metrics.canonical("planner", cut) == PLAN
    reordered = '{"parameters": {"specialization": "general physician",  "symptoms": "fever, cough"}, "tool": ' + (
        '"get_available_specialists"}'
    )
    assert metrics.canonical("caller", reordered) == metrics.canonical("caller", CALL)
    assert metrics.corpus_bleu([metrics.canonical("caller", reordered)], [metrics.canonical("caller", CALL)]) == (
        pytest.approx(100)
    )


def test_a_wrong_tool_scores_zero_tool_accuracy():
    wrong = call("store_symptoms", symptoms="fever, cough", specialization="general physician")
    assert metrics.caller_accuracy(wrong, CALL) == {"tool_acc": 0.0, "param_acc": 1.0, "values_acc": 1.0}


def test_same_parameter_names_with_a_wrong_value():
    wrong = call("get_available_specialists", symptoms="fever, cough", specialization="dermatologist")
    assert metrics.caller_accuracy(wrong, CALL) == {"tool_acc": 1.0, "param_acc": 1.0, "values_acc": 0.0}


def test_values_are_compared_after_light_normalisation():
    spaced = call("get_available_specialists", symptoms="  Fever,   COUGH ", specialization="General Physician")
    assert metrics.caller_accuracy(spaced, CALL)["values_acc"] == 1.0
    # Non-strings compare as JSON: 1 is not "1".
    assert metrics.caller_accuracy(call("t", n=1), call("t", n="1"))["values_acc"] == 0.0
    assert metrics.caller_accuracy(call("t", n={"a": [" X "]}), call("t", n={"a": ["x"]}))["values_acc"] == 1.0


def test_a_missing_parameter_fails_parameter_and_value_accuracy():
    fewer = call("get_available_specialists", symptoms="fever, cough")
    assert metrics.caller_accuracy(fewer, CALL) == {"tool_acc": 1.0, "param_acc": 0.0, "values_acc": 0.0}


@pytest.mark.parametrize("garbage", ["", "I would call get_available_specialists", '{"tool": ', '{"parameters": {}}'])
def test_unparseable_output_is_wrong_on_everything(garbage):
    assert metrics.caller_accuracy(garbage, CALL) == {"tool_acc": 0.0, "param_acc": 0.0, "values_acc": 0.0}
    assert not metrics.action_match(garbage, PLAN)
    assert metrics.rouge(garbage, PLAN)["rougeL"] < 0.5


def test_action_exact_match_ignores_the_reason_and_case():
    other_reason = plan("Something else entirely.", "find a GENERAL physician available for an appointment. ")
    assert metrics.action_match(other_reason, PLAN)
    assert not metrics.action_match(plan("x", "Ask the user."), PLAN)


def test_multiset_f1_on_a_hand_computed_example():
    # TP = a + b = 2, P = 2/4, R = 2/3, F1 = 2PR/(P+R) = 4/7.
    assert metrics.multiset_f1(["a", "b", "b", "c"], ["a", "b", "d"]) == pytest.approx(4 / 7)
    assert metrics.multiset_f1([], []) == 1.0
    assert metrics.multiset_f1([], ["a"]) == 0.0
    assert metrics.multiset_f1(["a", "b"], ["b", "a"]) == 1.0  # order does not count


def test_conversation_f1_counts_tools_parameters_and_values():
    search = call("get_available_specialists", symptoms="fever", specialization="gp")
    ask = call("get_input_from_user", user_id="1", questions="Shall I book it?")
    notify = call("notify_user", user_id="1", message="Booked.")
    pairs = [
        (search, search),  # right
        (call("get_input_from_user", user_id="1", questions="Book it?"), ask),  # right tool and names, wrong value
        (call("notify_user", user_id="1", text="Booked."), notify),  # right tool, wrong parameter name
        ("not json", call("store_symptoms", user_id="1", symptoms="fever", timestamp="2024-01-01T10:00:00")),
    ]
    scores = metrics.conversation_f1(pairs)
    # Predicted 3 calls, reference 4. Tools: 3 hits -> P 1, R 3/4 -> 6/7.
    assert scores["tool_f1"] == pytest.approx(6 / 7)
    # Delexicalised: search and ask hit -> P 2/3, R 2/4 -> 4/7.
    assert scores["delex_plan_f1"] == pytest.approx(4 / 7)
    # With values: only the search hits -> P 1/3, R 1/4 -> 2/7.
    assert scores["plan_f1"] == pytest.approx(2 / 7)


@pytest.mark.parametrize(
    ("question", "proposes"),
    [
        ("Dr. Sarah Chen has an opening tomorrow at 09:00. Shall I book it?", True),
        ("Would you like me to schedule an appointment with a dermatologist?", True),
        ("Doctor Amara Obi is free on Friday morning. Is that fine?", True),
        ("Should I go ahead with the booking?", True),
        ("How long have you had the fever?", False),
        ("Do you have any other symptoms, such as a headache?", False),
        ("Is there anything else I can help you with?", False),
        ("", False),
    ],
)
def test_the_simulated_user_recognises_an_appointment_proposal(question, proposes):
    assert scenarios.proposes_appointment(question) is proposes


def test_the_simulated_user_answers_from_the_case_then_says_nothing_else():
    case = scenarios.Case(id="x", message="m", answers=("Two days.",), accept_appointment=False)
    remaining = list(case.answers)
    assert scenarios.simulated_reply("Since when?", case, remaining) == "Two days."
    assert scenarios.simulated_reply("Shall I book it?", case, remaining) == scenarios.DECLINE
    assert scenarios.simulated_reply("Anything else?", case, remaining) == scenarios.NOTHING_ELSE
    accepting = scenarios.Case(id="y", message="m", accept_appointment=True)
    assert scenarios.simulated_reply("Shall I book it?", accepting, []) == scenarios.ACCEPT


# --- agent_eval ---------------------------------------------------------------------------


def eval_backend() -> ScriptedBackend:
    """Outputs for samples.jsonl in file order, per role: some right, some wrong."""
    return ScriptedBackend(
        planner=[
            # c1-p00: right.
            plan(
                "User reports fever and a cough for three days.",
                "Find a general physician available for an appointment.",
            ),
            # c1-p01: a different action.
            plan("Dr. Sarah Chen is available tomorrow morning.", "Tell the user the appointment is booked."),
            # c2-p00: right.
            plan("The user declined the appointment.", "Store the symptoms for future reference."),
        ],
        caller=[
            # c1-c00: right, keys in another order.
            json.dumps(
                {
                    "parameters": {"specialization": "general physician", "symptoms": "fever, cough"},
                    "tool": "get_available_specialists",
                }
            ),
            # c1-c01: right tool and parameter names, another question.
            call("get_input_from_user", user_id="7", questions="Shall I book Dr. Sarah Chen for you?"),
            # c2-c00: unparseable.
            "I would store the symptoms now.",
        ],
    )


def rows_by_group(rows):
    return {row["group"]: row for row in rows}


def test_agent_eval_scores_a_scripted_backend(tmp_path):
    out = tmp_path / "report.json"
    backend = eval_backend()

    call_command("agent_eval", data=str(SAMPLES), json_out=str(out), backend=backend, no_progress=True)

    report = json.loads(out.read_text())
    assert backend.remaining("planner") == [] and backend.remaining("caller") == []
    assert report["meta"]["samples"] == 6
    planner = rows_by_group(report["planner"])
    assert list(planner) == ["general", "negative", "appointment (avg)", "seen", "unseen", "all"]
    assert planner["general"]["action_match"] == 0.5
    assert planner["negative"]["action_match"] == 1.0
    assert planner["negative"]["bleu"] == pytest.approx(100)
    assert planner["negative"]["rougeL"] == 1.0
    assert planner["general"]["bleu"] < 100
    assert planner["appointment (avg)"]["action_match"] == 0.75
    assert planner["all"]["action_match"] == pytest.approx(2 / 3)
    assert planner["seen"]["n"] == 2 and planner["unseen"]["n"] == 1

    caller = rows_by_group(report["caller"])
    assert (caller["general"]["tool_acc"], caller["general"]["param_acc"], caller["general"]["values_acc"]) == (
        1.0,
        1.0,
        0.5,
    )
    assert (caller["negative"]["tool_acc"], caller["negative"]["param_acc"], caller["negative"]["values_acc"]) == (
        0.0,
        0.0,
        0.0,
    )
    assert caller["unseen"]["tool_acc"] == 0.0 and caller["seen"]["tool_acc"] == 1.0

    f1 = rows_by_group(report["conversation_f1"])
    # c1: both tools right, one value wrong; c2: nothing predicted.
    assert (f1["general"]["tool_f1"], f1["general"]["delex_plan_f1"], f1["general"]["plan_f1"]) == (1.0, 1.0, 0.5)
    assert (f1["negative"]["tool_f1"], f1["negative"]["plan_f1"]) == (0.0, 0.0)
    assert (f1["all"]["tool_f1"], f1["all"]["plan_f1"]) == (0.5, 0.25)
    assert f1["all"]["conversations"] == 2

    samples = {sample["id"]: sample for sample in report["samples"]}
    assert set(samples) == {"c1-p00", "c1-c00", "c1-p01", "c1-c01", "c2-p00", "c2-c00"}
    assert samples["c2-c00"]["prediction"] == "I would store the symptoms now."
    assert samples["c2-c00"]["scores"]["parsed"] is False
    assert samples["c1-c00"]["scores"]["bleu"] == pytest.approx(100)
    assert samples["c1-p00"]["latency_ms"] is not None and samples["c1-p00"]["completion_tokens"] > 0
    # The planner was asked with the runtime's stop sequence and the sample's messages.
    role, messages = backend.calls[0]
    assert role == "planner" and messages[1].content == "I have had a fever and a cough for three days."


def test_agent_eval_prints_the_tables_and_filters_categories(tmp_path, capsys):
    out = tmp_path / "report.json"
    backend = ScriptedBackend(
        planner=[plan("The user declined the appointment.", "Store the symptoms for future reference.")],
        caller=[
            call("store_symptoms", user_id="9", symptoms="itchy rash on both elbows", timestamp="2024-05-02T10:00:00")
        ],
    )

    call_command(
        "agent_eval", data=str(SAMPLES), json_out=str(out), categories=["negative"], backend=backend, no_progress=True
    )

    printed = capsys.readouterr().out
    assert "ToolAcc" in printed and "Plan F1" in printed and "| negative" in printed
    report = json.loads(out.read_text())
    assert rows_by_group(report["caller"])["negative"]["values_acc"] == 1.0
    assert rows_by_group(report["conversation_f1"])["negative"]["plan_f1"] == 1.0


def test_a_failing_backend_call_is_a_wrong_answer_not_a_crash(tmp_path, capsys):
    out = tmp_path / "report.json"
    backend = ScriptedBackend(planner=[RuntimeError("boom")], caller=[])

    call_command("agent_eval", data=str(SAMPLES), json_out=str(out), limit=2, backend=backend, no_progress=True)

    samples = json.loads(out.read_text())["samples"]
    assert [s["error"].split(":")[0] for s in samples] == ["RuntimeError", "BackendError"]
    assert all(s["scores"]["parsed"] is False for s in samples)
    assert "2 of 2 model calls failed" in capsys.readouterr().err


def write_lines(path, lines):
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def valid_line(**changes) -> str:
    data = json.loads(SAMPLES.read_text().splitlines()[0])
    data.update(changes)
    return json.dumps(data)


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ([valid_line(), "{not json"], "line 2: not valid JSON"),
        ([valid_line(), "", valid_line(role="judge")], "line 3: unknown role 'judge'"),
        ([valid_line(messages=[{"role": "robot", "content": "x"}])], "line 1: message 0"),
        ([json.dumps({"id": "x", "role": "planner"})], "line 1: missing messages, completion"),
    ],
)
def test_agent_eval_rejects_a_malformed_file_and_writes_nothing(tmp_path, lines, message):
    data = write_lines(tmp_path / "bad.jsonl", lines)
    out = tmp_path / "report.json"

    with pytest.raises(CommandError, match=re.escape(message)):
        call_command("agent_eval", data=str(data), json_out=str(out), backend=ScriptedBackend(), no_progress=True)

    assert not out.exists()


def test_agent_eval_rejects_a_missing_file(tmp_path):
    out = tmp_path / "report.json"
    with pytest.raises(CommandError, match="No dataset file"):
        call_command("agent_eval", data=str(tmp_path / "nope.jsonl"), json_out=str(out), backend=ScriptedBackend())
    assert not out.exists()


def test_agent_eval_rejects_an_unknown_category(tmp_path):
    out = tmp_path / "report.json"
    with pytest.raises(CommandError, match="no samples of category dieticians"):
        call_command(
            "agent_eval", data=str(SAMPLES), json_out=str(out), categories=["general", "dieticians"], backend=None
        )
    assert not out.exists()


def test_load_samples_reads_the_dataset_format():
    samples = offline.load_samples(SAMPLES)
    assert [s.id for s in samples][:2] == ["c1-p00", "c1-c00"]
    assert samples[-1].unseen and samples[-1].category == "negative" and samples[-1].line == 6
    assert offline.load_samples(SAMPLES, categories=["general"], limit=3)[-1].id == "c1-p01"


# --- agent_scenarios -----------------------------------------------------------------------


class ScenarioBackend(ScriptedBackend):
    """A scripted model whose outputs may say {user_id}: filled in from the prompt
    (each scenario case has a fresh user, so the id is not known in advance)."""

    def generate(self, role, messages, stop=(), *, timeout=None, tools=None):
        generation = super().generate(role, messages, stop, timeout=timeout)
        match = re.search(r"user_id\W+(\d+)", " ".join(message.content for message in messages))
        if match and "{user_id}" in generation.text:
            generation = type(generation)(
                generation.text.replace("{user_id}", match.group(1)),
                generation.prompt_tokens,
                generation.completion_tokens,
                generation.latency_ms,
            )
        return generation


@pytest.fixture
def directory(db):
    """A general physician with a slot tomorrow at 10:00 in the scenario user's time zone."""
    gp = SpecializationFactory(name="general physician", synonyms=["gp", "general practitioner"])
    SpecializationFactory(name="dermatologist", synonyms=["skin doctor"])
    specialist = SpecialistFactory(name="Dr. Diego Arroyo", specialization=gp)
    local = (timezone.now().astimezone(LOS_ANGELES) + dt.timedelta(days=1)).replace(
        hour=10, minute=0, second=0, microsecond=0
    )
    return SlotFactory(specialist=specialist, starts_at=local, ends_at=local + dt.timedelta(minutes=30))


def scenario_script(slot) -> ScenarioBackend:
    start = slot.starts_at.astimezone(LOS_ANGELES)
    when = f"{start:%H:%M}-{start + dt.timedelta(minutes=30):%H:%M}, {start:%d/%m/%Y}"
    specialist = str(slot.specialist_id)
    return ScenarioBackend(
        planner=[
            # Case "accept": find a GP, propose, book.
            plan("Fever and cough.", "Find a general physician."),
            plan("Dr. Diego Arroyo is free.", "Suggest the appointment to the user."),
            plan("The user agreed.", "Confirm the appointment."),
            end(),
            # Case "decline": a counter question, a proposal, store the symptoms.
            plan("A rash; how long?", "Ask how long the rash has lasted."),
            plan("Two days.", "Find a general physician."),
            plan("One is free.", "Suggest the appointment to the user."),
            plan("The user declined.", "Store the symptoms."),
            end(),
        ],
        caller=[
            call("get_available_specialists", symptoms="fever, cough", specialization="GP"),
            call("get_input_from_user", user_id="{user_id}", questions="Dr. Diego Arroyo is free. Shall I book it?"),
            call("confirm_appointment", user_id="{user_id}", specialist_id=specialist, appointment_time_date=when),
            call("get_input_from_user", user_id="{user_id}", questions="How long has the rash lasted?"),
            call("get_available_specialists", symptoms="rash", specialization="general practitioners"),
            call("get_input_from_user", user_id="{user_id}", questions="Would you like me to schedule a visit?"),
            call("store_symptoms", user_id="{user_id}", symptoms="rash, itching", timestamp="2024-05-02T10:00:00"),
        ],
    )


def write_cases(path, cases):
    return write_lines(path, [json.dumps(case) for case in cases])


CASES = [
    {
        "id": "accept",
        "message": "I have had a fever and a dry cough since Monday.",
        "answers": [],
        "accept_appointment": True,
        "expect": {"specializations": ["General Practitioner"], "booked": True},
    },
    {
        "id": "decline",
        "message": "A blotchy rash appeared on my ankle and it itches.",
        "answers": ["About two days."],
        "accept_appointment": False,
        "expect": {"specializations": ["dermatologist"], "booked": False},
    },
]


def test_agent_scenarios_runs_cases_end_to_end_and_keeps_nothing(tmp_path, directory, capsys):
    users_before = get_user_model().objects.count()
    cases = write_cases(tmp_path / "cases.jsonl", CASES)
    out = tmp_path / "scenarios.json"
    backend = scenario_script(directory)

    call_command("agent_scenarios", file=str(cases), json_out=str(out), backend=backend, no_progress=True)

    assert backend.remaining("planner") == [] and backend.remaining("caller") == []
    report = json.loads(out.read_text())
    accepted, declined = report["cases"]
    assert accepted["status"] == "completed"
    assert accepted["searched"] == ["general physician"]
    assert accepted["booked"] is True and accepted["appointments"][0]["specialist"] == "Dr. Diego Arroyo"
    assert accepted["answers"] == [
        {"question": "Dr. Diego Arroyo is free. Shall I book it?", "answer": scenarios.ACCEPT}
    ]
    assert accepted["passed"] is True
    assert accepted["model_calls"] == 7 and accepted["steps"] > 7
    # The run itself, to read why a case went as it did: the §6.1.1 states, in order.
    trajectory = accepted["trajectory"]
    assert len(trajectory) == accepted["steps"] and trajectory[1] == {"from": "user", "value": CASES[0]["message"]}
    assert [state["from"] for state in trajectory].count("planner") == 4

    assert declined["status"] == "completed"
    assert [a["answer"] for a in declined["answers"]] == ["About two days.", scenarios.DECLINE]
    assert declined["specialization"] == "general physician"
    assert declined["booked"] is False and declined["symptoms"] == [["rash", "itching"]]
    assert declined["acceptable_specialization"] is False and declined["passed"] is False

    assert report["totals"]["cases"] == 2 and report["totals"]["passed"] == 1
    assert report["totals"]["pass_rate"] == 0.5
    printed = capsys.readouterr().out
    assert "PASS" in printed and "FAIL" in printed and "passed 1 (50.0%)" in printed

    # Nothing persisted: no appointment, symptom, conversation or scenario user.
    assert not Appointment.objects.exists()
    assert not SymptomRecord.objects.exists()
    assert not Conversation.objects.exists()
    assert get_user_model().objects.count() == users_before
    assert not get_user_model().objects.filter(username__startswith="scenario-").exists()
    assert Slot.objects.free().filter(pk=directory.pk).exists()


def test_agent_scenarios_caps_the_answers(tmp_path, directory):
    asks = [call("get_input_from_user", user_id="{user_id}", questions="Anything more?")] * 10
    backend = ScenarioBackend(planner=[plan("More.", "Ask the user.")] * 10, caller=asks)
    cases = write_cases(tmp_path / "cases.jsonl", [{"id": "chatty", "message": "My elbow creaks."}])
    out = tmp_path / "scenarios.json"

    call_command("agent_scenarios", file=str(cases), json_out=str(out), backend=backend, no_progress=True)

    result = json.loads(out.read_text())["cases"][0]
    assert len(result["answers"]) == scenarios.MAX_ANSWERS
    assert result["unanswered"] is True and result["status"] == "waiting_input"
    assert {a["answer"] for a in result["answers"]} == {scenarios.NOTHING_ELSE}


def run_a_rash_case_whose_search_names_no_specialization(tmp_path, expected: str) -> dict:
    """Triage, then a search without the specialization (a caller that dropped the argument)."""
    case = {"id": "rash", "message": "An itchy red rash spread over my arms and my skin is scaly."}
    cases = write_cases(tmp_path / "cases.jsonl", [{**case, "expect": {"specializations": [expected]}}])
    out = tmp_path / "scenarios.json"
    backend = ScenarioBackend(
        planner=[plan("A rash.", "Match the rash to a specialization."), plan("Skin.", "Find one."), end()],
        caller=[call("match_specialization", symptoms="rash"), call("get_available_specialists", symptoms="rash")],
    )
    call_command("agent_scenarios", file=str(cases), json_out=str(out), backend=backend, no_progress=True)
    return json.loads(out.read_text())["cases"][0]


def test_a_search_that_names_no_specialization_is_scored_by_the_specialist_it_found(tmp_path, directory):
    skin = SpecialistFactory(name="Dr. Skin", specialization=Specialization.objects.get(name="dermatologist"))
    SlotFactory(specialist=skin, starts_at=directory.starts_at, ends_at=directory.ends_at)

    # The search goes to what triage ranked first.
    result = run_a_rash_case_whose_search_names_no_specialization(tmp_path, "dermatologist")

    assert result["searched"] == ["dermatologist"]
    assert result["specialization"] == "dermatologist" and result["passed"] is True


def test_a_failed_search_that_names_no_specialization_is_scored_by_what_triage_chose(tmp_path, directory):
    # A dermatologist with no free slot: the search fails, and is scored as a dermatologist search
    # (what the tool looked for), not as the general default.
    SpecialistFactory(name="Dr. Skin", specialization=Specialization.objects.get(name="dermatologist"))

    result = run_a_rash_case_whose_search_names_no_specialization(tmp_path, "general physician")

    assert result["searched"] == ["dermatologist"]
    assert result["trajectory"][-2]["value"]["error"].startswith("No dermatologist has a free slot")
    assert result["passed"] is False


def test_agent_scenarios_seeds_the_demo_directory_only_for_the_run(tmp_path, db, monkeypatch):
    monkeypatch.setattr(demo_data, "SLOT_DAYS", 4)  # always includes a weekday
    backend = ScenarioBackend(
        planner=[plan("Heart.", "Find a cardiologist."), end()],
        caller=[call("get_available_specialists", symptoms="palpitations", specialization="heart specialist")],
    )
    cases = write_cases(
        tmp_path / "cases.jsonl",
        [{"id": "heart", "message": "My heart flutters.", "expect": {"specializations": ["cardiology"]}}],
    )
    out = tmp_path / "scenarios.json"

    call_command("agent_scenarios", file=str(cases), json_out=str(out), backend=backend, no_progress=True)

    report = json.loads(out.read_text())
    assert report["seeded_directory"] is True
    assert report["cases"][0]["specialization"] == "cardiologist" and report["cases"][0]["passed"] is True
    assert not Specialization.objects.exists() and not Slot.objects.exists()


def test_the_directory_gets_slots_up_to_the_latest_date_a_case_asks_for(db):
    now = timezone.now()
    wanted = (now + dt.timedelta(days=60)).date()
    while wanted.weekday() >= 5:  # clinics open on weekdays
        wanted += dt.timedelta(days=1)
    cases = [
        scenarios.Case(id="a", message="Chest pain. I'm free on 2020-13-45 or so."),  # not a date
        scenarios.Case(id="b", message=f"Could it be on {wanted.isoformat()}?", answers=("2026-01-02",)),
    ]
    assert scenarios.latest_date(cases) == wanted

    assert scenarios.ensure_directory(now, until=wanted) is True
    local = zoneinfo.ZoneInfo(demo_data.TIMEZONE)
    assert any(slot.starts_at.astimezone(local).date() == wanted for slot in Slot.objects.free())
    assert scenarios.ensure_directory(now, until=wanted) is False  # already there: nothing created twice
    assert Slot.objects.count() == len({(s.specialist_id, s.starts_at) for s in Slot.objects.all()})


def test_a_case_whose_dates_have_passed_moves_forward_by_whole_weeks():
    today = dt.date(2026, 11, 25)  # a Wednesday
    case = scenarios.Case(
        id="c",
        message="Headaches. I'm free on 2026-07-31, 09:00-17:00, or 2026-08-03 (not 2020-13-45).",
        answers=("Since 2026-07-20.", "No."),
    )

    moved = scenarios.in_the_coming_weeks(case, today)

    # 2026-07-20 (a Monday) is the earliest: 19 weeks later is Monday 2026-11-30, after today.
    assert moved.message == "Headaches. I'm free on 2026-12-11, 09:00-17:00, or 2026-12-14 (not 2020-13-45)."
    assert moved.answers == ("Since 2026-11-30.", "No.")
    assert dt.date(2026, 12, 11).weekday() == dt.date(2026, 7, 31).weekday()
    assert scenarios.in_the_coming_weeks(moved, today) == moved  # in the future already: unchanged
    assert scenarios.in_the_coming_weeks(scenarios.Case(id="d", message="A rash."), today).message == "A rash."


def test_agent_scenarios_runs_a_case_from_a_past_calendar_in_the_coming_weeks(tmp_path, directory):
    past = timezone.localdate() - dt.timedelta(days=200)
    cases = write_cases(tmp_path / "cases.jsonl", [{"id": "old", "message": f"Back pain. Free on {past}?"}])
    out = tmp_path / "scenarios.json"
    backend = ScenarioBackend(planner=[end()], caller=[])

    call_command("agent_scenarios", file=str(cases), json_out=str(out), backend=backend, no_progress=True)

    asked = re.search(r"\d{4}-\d\d-\d\d", json.loads(out.read_text())["cases"][0]["message"]).group(0)
    day = dt.date.fromisoformat(asked)
    assert timezone.localdate() < day <= timezone.localdate() + dt.timedelta(days=8)
    assert (day - past).days % 7 == 0


def test_symptom2disease_cases_from_a_fake_folder():
    cases = scenarios.symptom2disease_cases(EVAL / "s2d")
    # Round-robin over labels, each label's rows in file order.
    assert [(c.id, c.label) for c in cases] == [
        ("s2d-0", "Made-up Flu"),
        ("s2d-2", "Made-up Rash"),
        ("s2d-1", "Made-up Flu"),
    ]
    assert cases[1].specializations == ("dermatologist", "general physician")
    assert cases[0].answers == scenarios.S2D_ANSWERS and cases[0].booked is False and not cases[0].accept_appointment
    assert [c.id for c in scenarios.symptom2disease_cases(EVAL / "s2d", per_disease=1)] == ["s2d-0", "s2d-2"]
    assert len(scenarios.symptom2disease_cases(EVAL / "s2d", limit=2)) == 2


def test_agent_scenarios_symptom2disease_reports_per_disease(tmp_path, directory, capsys):
    backend = ScenarioBackend(
        planner=[plan("Skin.", "Find a dermatologist."), end(), plan("Cold.", "Find a GP."), end()],
        caller=[
            call("get_available_specialists", symptoms="spiral", specialization="skin doctor"),
            call("get_available_specialists", symptoms="whistle", specialization="gp"),
        ],
    )
    out = tmp_path / "s2d.json"

    call_command(
        "agent_scenarios",
        symptom2disease=True,
        s2d_dir=str(EVAL / "s2d"),
        per_disease=1,
        json_out=str(out),
        backend=backend,
        no_progress=True,
    )

    report = json.loads(out.read_text())
    flu, rash = report["per_disease"]["Made-up Flu"], report["per_disease"]["Made-up Rash"]
    # Case order is round-robin: flu first (searched a dermatologist: wrong), then rash (a GP: acceptable).
    assert flu["acceptable_specialization_rate"] == 0.0 and rash["acceptable_specialization_rate"] == 1.0
    assert report["totals"]["acceptable_specialization_rate"] == 0.5
    # The external texts are never echoed.
    assert all(case["message"] is None and case["trajectory"] is None for case in report["cases"])
    assert "Made-up Rash" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (['{"id": "a", "message": "hi"}', "{oops"], "line 2: not valid JSON"),
        (['{"id": "a"}'], "line 1: 'message' must be a non-empty string"),
        (['{"id": "a", "message": "hi", "expect": {"booked": "yes"}}'], "line 1: 'expect.booked'"),
    ],
)
def test_agent_scenarios_rejects_a_malformed_cases_file(tmp_path, db, lines, message):
    cases = write_lines(tmp_path / "cases.jsonl", lines)
    out = tmp_path / "out.json"
    with pytest.raises(CommandError, match=re.escape(message)):
        call_command("agent_scenarios", file=str(cases), json_out=str(out), backend=ScriptedBackend())
    assert not out.exists()


def test_agent_scenarios_rejects_a_missing_symptom2disease_folder(tmp_path, db):
    with pytest.raises(CommandError, match=re.escape("No symptom2disease.csv")):
        call_command("agent_scenarios", symptom2disease=True, s2d_dir=str(tmp_path), backend=ScriptedBackend())


def test_per_category_keeps_whole_conversations_seen_and_unseen(tmp_path):
    from agentlab.evaluation.offline import load_samples

    rows = []
    for conversation, category, unseen in [("a", "general", False), ("b", "general", False), ("c", "general", True)]:
        for step in range(2):
            rows.append(
                {
                    "id": f"{conversation}{step}",
                    "conversation": conversation,
                    "category": category,
                    "role": "planner",
                    "unseen": unseen,
                    "messages": [{"role": "user", "content": "hi"}],
                    "completion": "<reason>r</reason><action>a</action>",
                }
            )
    path = tmp_path / "test.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))

    samples = load_samples(path, per_category=1)

    assert [s.id for s in samples] == ["a0", "a1", "c0", "c1"]


def test_model_card_is_written_from_the_training_and_evaluation_reports(tmp_path):
    out = tmp_path / "report.json"
    call_command("agent_eval", data=str(SAMPLES), json_out=str(out), backend=eval_backend(), no_progress=True)
    adapters = tmp_path / "adapters"
    for role in ("planner", "caller"):
        (adapters / role).mkdir(parents=True)
        (adapters / role / "adapter_config.json").write_text("{}")
        training = {
            "samples": 40,
            "sequences": 5,
            "steps": 12,
            "batch_size": 1,
            "learning_rate": 0.001,
            "lora": {"r": 8, "alpha": 16, "dropout": 0.05, "targets": ["q_proj"]},
            "tokens_seen": 4000,
            "wall_seconds": 90.0,
            "threads": 1,
            "loss_curve": [[1, 1.5], [12, 0.4]],
        }
        (adapters / role / "training.json").write_text(json.dumps(training))
    data_report = tmp_path / "data.json"
    data_report.write_text(json.dumps({"seed": 5, "kept": 9, "generated": {"train/general": 9}, "dropped_total": 0}))

    call_command("model_card", adapters=str(adapters), offline=str(out), data_report=str(data_report))

    card = (adapters / "planner" / "README.md").read_text()
    assert "seed 5: 9 verified conversations" in card and "r=8, alpha=16" in card and "12 steps" in card
    evaluation = card.split("## Evaluation", 1)[1]
    assert "Planner (seed paper Table 2" in evaluation and "| general" in evaluation
    with pytest.raises(CommandError, match="No such report"):
        call_command("model_card", adapters=str(adapters), offline=str(tmp_path / "missing.json"))

    # Roles trained on different data get their cards one at a time; the other card is left alone.
    caller_data = tmp_path / "caller-data.json"
    caller_data.write_text(json.dumps({"seed": 11, "kept": 7, "generated": {}, "dropped_total": 0}))
    call_command("model_card", adapters=str(adapters), data_report=str(caller_data), role="caller")
    assert "seed 11: 7 verified conversations" in (adapters / "caller" / "README.md").read_text()
    assert (adapters / "planner" / "README.md").read_text() == card


def generated_case(case_id: str, category: str, unseen: bool) -> str:
    return json.dumps(
        {
            "id": case_id,
            "category": category,
            "unseen": unseen,
            "message": f"Complaint {case_id}.",
            "answers": [],
            "accept_appointment": False,
            "expect": {"specializations": ["cardiologist"], "booked": False},
        }
    )


def test_agent_scenarios_samples_the_first_unseen_and_seen_cases_of_each_category(tmp_path, directory):
    rows = [
        generated_case("g-u1", "general", True),
        generated_case("g-s1", "general", False),
        generated_case("g-u2", "general", True),
        generated_case("c-s1", "counter", False),
        generated_case("c-s2", "counter", False),
        generated_case("c-u1", "counter", True),
    ]
    cases = write_lines(tmp_path / "cases.jsonl", rows)
    out = tmp_path / "out.json"
    backend = ScriptedBackend()  # every model call fails: the sample is what is checked here
    call_command(
        "agent_scenarios", file=str(cases), json_out=str(out), unseen=1, seen=1, backend=backend, no_progress=True
    )
    assert [case["id"] for case in json.loads(out.read_text())["cases"]] == ["g-u1", "g-s1", "c-s1", "c-u1"]


def test_agent_scenarios_wants_unseen_and_seen_together(tmp_path, db):
    cases = write_lines(tmp_path / "cases.jsonl", [generated_case("a", "general", True)])
    with pytest.raises(CommandError, match="--unseen and --seen go together"):
        call_command("agent_scenarios", file=str(cases), unseen=1, backend=ScriptedBackend())


def test_a_cases_file_with_a_malformed_category_is_refused(tmp_path, db):
    cases = write_lines(tmp_path / "cases.jsonl", ['{"id": "a", "message": "hi", "unseen": "yes"}'])
    with pytest.raises(CommandError, match=re.escape("line 1: 'category' must be a string and 'unseen' true or false")):
        call_command("agent_scenarios", file=str(cases), backend=ScriptedBackend())


@pytest.mark.slow
def test_agent_scenarios_workers_run_shards_on_their_own_databases_and_keep_case_order(tmp_path, db, monkeypatch):
    """GIVEN three cases and two worker processes whose model is not loaded (every call fails)
    WHEN agent_scenarios runs them
    THEN each case comes back once, in file order, failed gracefully, and the caller's database is untouched."""
    monkeypatch.setenv("AGENT_BACKEND", "scripted")
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    cases = write_lines(tmp_path / "cases.jsonl", [generated_case(f"w{i}", "general", False) for i in range(3)])
    out = tmp_path / "out.json"
    conversations_before = Conversation.objects.count()
    call_command("agent_scenarios", file=str(cases), json_out=str(out), workers=2, no_progress=True)
    data = json.loads(out.read_text())
    assert [case["id"] for case in data["cases"]] == ["w0", "w1", "w2"]
    assert {case["status"] for case in data["cases"]} == {Conversation.Status.FAILED}
    assert data["totals"]["cases"] == 3 and data["totals"]["passed"] == 0
    assert Conversation.objects.count() == conversations_before
