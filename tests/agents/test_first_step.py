"""The first step's learned second opinion (agents/first_step.py): a request no desk's rules read is
routed to the desk it is for only when the classifier is sure; the model's own requests stay with it."""

from __future__ import annotations

import itertools
import json

import pytest

from agents import first_step
from agents.llm.scripted import ScriptedBackend
from agents.services import start_chat
from tests.agents.helpers import call, end, plan, states


@pytest.fixture
def classifier_on(settings):
    settings.AGENT_FIRST_STEP_MODEL = True


def test_the_shipped_classifier_and_its_card_agree():
    card = json.loads(first_step.MODEL_PATH.with_suffix(".json").read_text(encoding="utf-8"))
    model = first_step._model()
    assert model.classes == card["classes"] and model.threshold == pytest.approx(card["threshold"])
    assert (model.scope_threshold is None) == (card["scope_threshold"] is None)
    if model.scope_threshold is not None:
        assert model.scope_threshold == pytest.approx(card["scope_threshold"])
        assert model.scope_threshold >= model.threshold, "a refusal needs as much certainty as a desk route"
    assert model.coef.shape == (len(model.classes), 384) and model.intercept.shape == (len(model.classes),)
    assert first_step.DESK_USE_CASES | {first_step.OUT_OF_SCOPE} < set(model.classes)
    assert "'dev'" in card["data"], "trained on the dev template families only"


@pytest.mark.parametrize(
    "text",
    [
        "book me the earliest cardiologist",
        "remind me to take metformin twice a day",
        "I have a fever and a sore throat since yesterday, can I see a doctor",
        "I want to see a dermatologist on friday afternoon",
    ],
)
def test_the_models_own_requests_are_never_routed(classifier_on, text):
    assert first_step.route(text) is None


@pytest.mark.parametrize(
    ("use_case", "text"),
    [
        ("appointments_reschedule", "sorry to bother you but can you move my amlodipine reminder to the evening"),
        ("medicines_today", "what time is my appointment tomorrow"),
        ("medicines_taken", "I take amlodipine 5 mg at 9pm"),  # a schedule: no dose said taken
        ("medicines_today", "I've started lisinopril once a day"),
        ("medicines_taken", "had my ramipril, can you set that up for every morning"),
    ],
)
def test_a_route_must_pass_the_desks_own_checks(use_case, text):
    assert not first_step.fits(use_case, text)


@pytest.mark.parametrize(
    ("use_case", "text"),
    [("medicines_taken", "took them jut now"), ("appointments_list", "remind me who I'm seeing tomorrow")],
)
def test_requests_of_the_desks_pass_them(use_case, text):
    assert first_step.fits(use_case, text)


def test_a_request_that_names_a_symptom_is_never_routed(classifier_on, monkeypatch):
    monkeypatch.setattr(first_step, "probabilities", lambda message: {"appointments_list": 1.0})
    assert first_step.route("when am I seeing the doctor") == "appointments_list"
    assert first_step.route("when am I seeing the doctor, my chest hurts") is None


def test_a_request_no_rule_reads_is_routed_when_the_classifier_is_sure(classifier_on):
    from agents import medicine_desk

    text = "took them jut now"  # "jut" is a word: the typo reader keeps it
    assert medicine_desk.read(text) is None, "the rules do not read it"
    assert first_step.route(text) == "medicines_taken"


def test_turned_off_it_routes_nothing(settings):
    settings.AGENT_FIRST_STEP_MODEL = False
    assert first_step.route("took them jut now") is None


def test_the_runtime_gives_a_routed_request_to_its_desk_without_the_model(classifier_on, alice):
    backend = ScriptedBackend(
        planner=itertools.repeat(plan("Book.", "Book a cardiologist.")),
        caller=itertools.repeat(call("store_symptoms", user_id="0", symptoms="chest pain")),
    )

    conversation = start_chat(alice, "took them jut now", backend=backend)

    assert backend.calls == []
    trajectory = states(conversation)
    assert trajectory[2]["value"]["reason"].startswith("Medicines desk:")
    assert "no dose like that today to mark as taken" in trajectory[4]["value"]["result"]["message"]
    assert conversation.status == "completed"


def test_a_booking_request_still_reaches_the_model(classifier_on, alice):
    backend = ScriptedBackend(planner=[end("Nothing to do.")])

    start_chat(alice, "book me the earliest cardiologist", backend=backend)

    assert len(backend.calls) == 1


def test_routing_a_message_writes_no_progress_bar_to_the_worker_log(caplog, capfd):
    """The worker logs at INFO, where the encoder would draw a progress bar for every message."""
    import logging

    from agents import first_step

    caplog.set_level(logging.INFO)
    first_step.probabilities("what time is my appointment tomorrow")

    assert "Batches" not in capfd.readouterr().err


def _sure_it_is_out_of_scope(monkeypatch, probability: float = 0.999) -> None:
    sure = {"out_of_scope": probability, "book_symptoms": 0.0}
    monkeypatch.setattr(first_step, "probabilities", lambda message: sure)
    monkeypatch.setattr(first_step, "_model", lambda: first_step.Classifier(["out_of_scope"], None, None, 0.7, 0.9))


def test_a_request_it_is_sure_is_out_of_scope_gets_the_scope_answer(classifier_on, alice, monkeypatch):
    from health.models import Appointment, SymptomRecord

    _sure_it_is_out_of_scope(monkeypatch)
    backend = ScriptedBackend(planner=[end("Nothing to do.")])

    conversation = start_chat(alice, "how many calories are in a banana", backend=backend)

    assert backend.calls == []
    trajectory = states(conversation)
    assert trajectory[2]["value"]["reason"].startswith("Scope guard:")
    message = trajectory[3]["value"]["parameters"]["message"]
    assert "I can't help with that" in message and "tell me what you feel" in message
    assert trajectory[4]["value"] == {"result": True}, "the answer was delivered"
    assert conversation.status == "completed"
    assert not SymptomRecord.objects.filter(user=alice).exists() and not Appointment.objects.filter(user=alice).exists()


@pytest.mark.parametrize(
    "text",
    [
        "I've had a headache for three days",  # a symptom: triage's
        "when is my next appointment",  # an appointment: the patient's care
        "remind me to take it every morning",  # a regimen: a reminder
        "I've been feeling under the weather lately",  # a complaint the lexicon has no symptom for
        "please can someone come quickly",  # urgency: the model's and the SOS's to weigh
        "my husband won't wake up what do I do",
    ],
)
def test_it_never_refuses_a_symptom_an_appointment_or_a_regimen_or_urgency(classifier_on, monkeypatch, text):
    _sure_it_is_out_of_scope(monkeypatch)
    assert first_step.route(text) is None


def test_below_its_own_threshold_it_refuses_nothing(classifier_on, monkeypatch):
    _sure_it_is_out_of_scope(monkeypatch, probability=0.85)  # above a desk route's 0.7, below the scope's 0.9
    assert first_step.route("how many calories are in a banana") is None
