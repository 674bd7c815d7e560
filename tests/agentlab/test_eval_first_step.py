"""The first-step evaluation: generated requests per use case, and what the guards decide before the model."""

from __future__ import annotations

import json
import random
import sys
from types import SimpleNamespace

import pytest
from django.core.management import CommandError, call_command

from agentlab.data import requests as generated
from agentlab.evaluation import first_step

HELP_NOW = "I have chest pain and I can't breathe, call an ambulance"


def _templates(use_case: str, split: str) -> set[str]:
    return {t for family in generated.families(use_case, split) for t in family.templates}


def test_the_generator_is_deterministic_by_seed():
    first = generated.generate(3, seed=5)
    assert first == generated.generate(3, seed=5)
    assert [r.text for r in first] != [r.text for r in generated.generate(3, seed=6)]
    # A split's requests do not depend on which other splits are generated with it.
    assert [r for r in first if r.split == "test"] == generated.generate(3, seed=5, splits=["test"])


def test_every_use_case_is_in_both_splits_from_disjoint_template_families():
    made = generated.generate(4)
    for use_case in generated.USE_CASES:
        dev, test = generated.families(use_case, "dev"), generated.families(use_case, "test")
        # The dev split grows with new hand-written phrasings; the held-out test split stays a third or more.
        n_dev, n_test = len(dev), len(test)  # counts only: a failure must not print the test templates
        assert n_test >= 2 and n_test * 3 >= n_dev + n_test, use_case
        assert not {f.name for f in dev} & {f.name for f in test}, use_case
        assert not _templates(use_case, "dev") & _templates(use_case, "test"), use_case
        for split, families in (("dev", dev), ("test", test)):
            mine = [r for r in made if r.use_case == use_case and r.split == split]
            assert len(mine) == 4
            assert {r.family for r in mine} <= {f.name for f in families}
    with pytest.raises(ValueError):
        generated.generate(0)


def test_every_expected_decision_is_a_decision():
    assert set(first_step.EXPECTED) == set(generated.USE_CASES)
    assert set(first_step.EXPECTED.values()) <= set(first_step.DECISIONS)
    # The desks' decisions come in the runtime's order: appointments, health, medicines, booking, the model.
    assert first_step.DECISIONS[-7:] == (
        "my_health",
        "medicines_today",
        "medicines_taken",
        "medicines_photo",
        "medicines_reminder",
        first_step.BOOKING,
        first_step.MODEL,
    )


def test_the_medicines_use_case_is_split_by_what_the_patient_asks():
    made = generated.generate(6)
    reminders = [r for r in made if r.use_case == "medicines_reminder"]
    assert first_step.EXPECTED["medicines_reminder"] == first_step.MODEL  # setting a reminder is the model's
    assert {first_step.EXPECTED[name] for name in ("medicines_today", "medicines_taken", "medicines_photo")} == {
        "medicines_today",
        "medicines_taken",
        "medicines_photo",
    }
    assert "Remind me to take {med} {freq}" in _templates("medicines_reminder", "dev")
    assert "I took my morning pill" in _templates("medicines_taken", "dev")
    assert "I have a photo of my prescription" in _templates("medicines_photo", "test")
    assert "did I take my evening tablets?" in _templates("medicines_today", "test")
    assert reminders and all(r.template and dict(r.slots) for r in reminders if "{" in r.template)
    for use_case in ("medicines_reminder", "medicines_today", "medicines_taken", "medicines_photo"):
        for split in generated.SPLITS:
            assert len(generated.families(use_case, split)) >= 2, (use_case, split)


def test_a_request_carries_the_slot_values_it_was_filled_with():
    for request in generated.generate(4, splits=["dev"]):
        if request.family.startswith("complaint:"):
            assert [slot for slot, _ in request.slots] == ["disease"]
            assert dict(request.slots)["disease"] in {d.name for d in generated.DISEASES}
            continue
        assert [slot for slot, _ in request.slots] == generated._SLOT.findall(request.template)
    # The filled text is the template with those values, in order; the typed text is drawn from it.
    family = generated.families("appointments_reschedule", "test")[1]
    drawn = family.draw(random.Random(3))
    values = iter(value for _, value in drawn.slots)
    assert drawn.filled == generated._SLOT.sub(lambda match: next(values), drawn.template)
    assert drawn.slot("day") == dict(drawn.slots).get("day")
    assert family.write(random.Random(3)) == drawn.text


def test_a_decider_that_always_says_model_never_catches_help_now():
    scores = first_step.evaluate(generated.generate(2), decider=lambda text: first_step.MODEL)

    dev, test = scores["dev"], scores["test"]
    for score in (dev, test):
        assert score.accuracy("help_now") == 0.0
        assert score.accuracy("out_of_scope") == 0.0
        assert score.accuracy("my_health") == 0.0
        assert score.accuracy("medicines_reminder") == 1.0
        assert score.false_sos == 0 and score.refused_care == 0
        assert score.right() == 2 * 2  # the two use cases of the model, two each
    assert {m.use_case for m in dev.misreads} == {
        "help_now",
        "out_of_scope",
        "appointments_list",
        "appointments_cancel",
        "appointments_reschedule",
        "medicines_today",
        "medicines_taken",
        "medicines_photo",
        "my_health",
        "book_constraint",
    }
    assert all(m.text for m in dev.misreads)
    assert test.misreads == []  # the test split's texts are never kept


def test_a_decider_that_sees_emergencies_everywhere_is_counted_as_false_sos_and_refusals():
    sos = first_step.evaluate(generated.generate(1, splits=["dev"]), decider=lambda text: first_step.HELP_NOW)["dev"]
    refuse = first_step.evaluate(generated.generate(1, splits=["dev"]), decider=lambda text: first_step.OUT_OF_SCOPE)[
        "dev"
    ]

    assert sos.accuracy("help_now") == 1.0 and sos.false_sos == len(generated.USE_CASES) - 1
    assert refuse.refused_care == len(generated.USE_CASES) - 1  # every use case but out_of_scope itself
    assert refuse.matrix["medicines_reminder"] == {first_step.OUT_OF_SCOPE: 1}


def test_the_guards_decide_in_the_runtimes_order(monkeypatch):
    for reader in ("desk_reader", "health_reader", "medicine_reader"):
        monkeypatch.setattr(first_step, reader, lambda: None)  # the model gets what no guard takes

    assert first_step.decide(HELP_NOW) == first_step.HELP_NOW
    # Help now comes first: a prescription request with an emergency still starts the SOS.
    assert first_step.decide("give me antibiotics, I can't breathe") == first_step.HELP_NOW
    assert first_step.decide("Hola, necesito una cita con el médico por favor") == first_step.OTHER_LANGUAGE
    assert first_step.decide("tell me a joke") == first_step.OUT_OF_SCOPE
    assert first_step.decide("cancel my appointment with the urologist") == first_step.MODEL
    assert first_step.decide("remind me to take metformin twice a day") == first_step.MODEL


def test_the_desks_kind_is_the_decision_after_the_other_guards(monkeypatch):
    monkeypatch.setattr(first_step, "desk_reader", lambda: lambda text: SimpleNamespace(kind="cancel"))

    assert first_step.decide("cancel tuesday's") == "appointments_cancel"
    assert first_step.decide(HELP_NOW) == first_step.HELP_NOW
    assert first_step.decide("what's the weather tomorrow") == first_step.OUT_OF_SCOPE


def test_the_desks_are_asked_in_the_runtimes_order(monkeypatch):
    asked = []

    def reader(name, answer):
        def read(text):
            asked.append(name)
            return answer

        return lambda: read

    monkeypatch.setattr(first_step, "desk_reader", reader("appointments", None))
    monkeypatch.setattr(first_step, "health_reader", reader("health", None))
    monkeypatch.setattr(first_step, "medicine_reader", reader("medicines", SimpleNamespace(kind="dose_taken")))
    assert first_step.decide("I took my metformin") == "medicines_taken"
    assert asked == ["appointments", "health", "medicines"]

    monkeypatch.setattr(first_step, "health_reader", reader("health", SimpleNamespace(topic="sleep")))
    asked.clear()
    assert first_step.decide("how did I sleep") == first_step.MY_HEALTH
    assert asked == ["appointments", "health"]  # the medicines desk comes after the health desk

    monkeypatch.setattr(first_step, "health_reader", lambda: None)
    monkeypatch.setattr(first_step, "medicine_reader", reader("medicines", SimpleNamespace(kind="refill")))
    assert first_step.decide("anything") == "medicines_refill"  # a kind the evaluation does not know yet


@pytest.mark.django_db
def test_a_help_now_request_lands_in_the_help_now_column():
    request = generated.Request(HELP_NOW, "help_now", "dev", "hand-written")
    booking = generated.Request("I'd like to see a dermatologist on friday afternoon", "book_constraint", "dev", "x")

    with first_step.directory():
        score = first_step.evaluate([request, booking])["dev"]

    assert score.matrix == {"help_now": {first_step.HELP_NOW: 1}, "book_constraint": {first_step.BOOKING: 1}}
    assert score.accuracy() == 1.0 and score.misreads == []


@pytest.mark.django_db
def test_a_dose_taken_and_a_health_question_land_in_their_desks_columns():
    taken = generated.Request("I took my morning pill", "medicines_taken", "dev", "hand-written")
    photo = generated.Request("can I upload a picture of my prescription", "medicines_photo", "dev", "x")
    sleep = generated.Request("how did I sleep last night?", "my_health", "dev", "x")
    reminder = generated.Request("remind me to take metformin twice a day", "medicines_reminder", "dev", "x")

    with first_step.directory():
        score = first_step.evaluate([taken, photo, sleep, reminder])["dev"]

    assert score.matrix == {
        "medicines_taken": {"medicines_taken": 1},
        "medicines_photo": {"medicines_photo": 1},
        "my_health": {first_step.MY_HEALTH: 1},
        # a new reminder for a known medicine with a schedule: the medicines desk proposes it (also right)
        "medicines_reminder": {"medicines_reminder": 1},
    }
    assert score.accuracy() == 1.0 and score.misreads == []


@pytest.mark.django_db
def test_the_command_prints_the_matrix_and_never_a_test_text(tmp_path, capsys):
    out = tmp_path / "first_step.json"

    call_command("eval_first_step", "--per-case", "2", "--show-misreads", "--json", str(out))

    printed = capsys.readouterr().out
    assert "First step, dev split:" in printed and "First step, test split:" in printed
    assert "| use case" in printed and "| desk: reschedule |" in printed and "| model" in printed
    assert "| desk: my health |" in printed and "| desk: dose taken |" in printed and "| desk: photo |" in printed
    for use_case in generated.USE_CASES:
        assert f"| {use_case} " in printed
    assert "Help now caught:" in printed and "Misreads on the dev split" in printed
    dev_texts = {r.text for r in generated.generate(2, splits=["dev"])}
    test_texts = [r.text for r in generated.generate(2, splits=["test"]) if len(r.text) > 20]
    assert test_texts and not [t for t in test_texts if t in printed and t not in dev_texts]
    report = json.loads(out.read_text())
    assert report["test"]["cases"] == 2 * len(generated.USE_CASES)
    assert report["dev"]["use_cases"]["help_now"]["expected"] == "help_now"
    assert not [t for t in test_texts if t in out.read_text()]


@pytest.mark.django_db
def test_misreads_are_listed_for_dev_only_and_bad_sizes_are_refused(capsys):
    call_command("eval_first_step", "--per-case", "1", "--split", "test", "--show-misreads")

    printed = capsys.readouterr().out
    assert "Misreads are listed for the dev split only." in printed and "dev split:" not in printed
    with pytest.raises(CommandError, match="--per-case"):
        call_command("eval_first_step", "--per-case", "0")


def test_without_a_desk_module_nothing_is_intercepted_and_the_database_is_not_opened(monkeypatch):
    monkeypatch.setitem(sys.modules, "agents.appointment_desk", None)  # its import fails
    monkeypatch.setitem(sys.modules, "agents.medicine_desk", None)

    assert first_step.desk_reader() is None and first_step.medicine_reader() is None
    assert first_step.readers()["medicines"] is False
    with first_step.directory():  # no django_db mark: a query here would fail the test
        assert first_step.decide("please cancel my appointment with the urologist") == first_step.MODEL
