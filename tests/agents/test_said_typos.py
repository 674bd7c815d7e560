"""The symptom matcher (agents/tools/said.py) reads typos as the symptom words meant and never reads
a denied symptom ("no fever") as said: first as a table over ``symptom_said`` and
``names_a_complaint``, then through a chat in which the scripted model stores symptoms."""

from __future__ import annotations

import pytest

from agents.llm.scripted import ScriptedBackend
from agents.services import start_chat
from agents.tools import said
from health.models import SymptomRecord
from tests.agents.helpers import call, end, observations, plan

# (what the user wrote, a symptom the model passes, whether the user said it)
TYPOS = [
    ("i hav a hedache and feever, my stomache hurts", "headache", True),
    ("i hav a hedache and feever, my stomache hurts", "fever", True),
    ("i hav a hedache and feever, my stomache hurts", "stomach ache", True),
    ("i hav a hedache and feever, my stomache hurts", "abdominal pain", True),
    ("i hav a hedache and feever, my stomache hurts", "stomach pain", True),
    ("i hav a hedache and feever, my stomache hurts", "nausea", False),
    ("feeling nausious and vomitting since morning", "nausea", True),
    ("feeling nausious and vomitting since morning", "vomiting", True),
    ("my back is hurting alot", "back pain", True),
    ("chest pian when i breath", "chest pain", True),
    ("hight fever and chils", "high fever", True),
    ("hight fever and chils", "chills", True),
    ("my troat is sore and i have a cuogh", "sore throat", True),
    ("my troat is sore and i have a cuogh", "cough", True),
    ("i have diarea and stomch cramps", "diarrhea", True),
    ("i have diarea and stomch cramps", "abdominal cramps", True),
    ("dizzyness and fatige", "dizziness", True),
    ("dizzyness and fatige", "fatigue", True),
    ("shortnes of breth when i walk", "shortness of breath", True),
    # an English word is no typo: "never" is not "fever", "lose" is not "loss"
    ("I never get sick", "fever", False),
    ("I want to lose weight", "weight loss", False),
]

# (what the user wrote, a symptom, whether it is said): a denied symptom is not
NEGATION = [
    ("no fever, just a cough", "fever", False),
    ("no fever, just a cough", "cough", True),
    ("I don't have a cough but my head hurts", "cough", False),
    ("I don't have a cough but my head hurts", "headache", True),
    ("I have a headache but no fever", "fever", False),
    ("I have a headache but no fever", "headache", True),
    ("my fever went away but I have a rash", "fever", False),
    ("my fever went away but I have a rash", "rash", True),
    ("I dont have feever, only a hedache", "fever", False),
    ("I dont have feever, only a hedache", "headache", True),
    # a negation that is the complaint itself
    ("I can't catch my breath", "shortness of breath", True),
    ("I have no energy at all", "fatigue", True),
    ("I can't stop coughing", "cough", True),
]


@pytest.mark.parametrize(("text", "symptom", "expected"), TYPOS + NEGATION)
def test_a_symptom_is_said_when_the_user_named_it_misspelled_or_not_and_did_not_deny_it(text, symptom, expected):
    assert said.symptom_said(symptom, text) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("i hav a hedache and feever, my stomache hurts", True),
        ("my joints ache", True),
        ("no fever, no cough", False),
        ("I don't have a headache or a fever", False),
        ("How were my vitals today?", False),
        ("I want to lose weight", False),
        ("not feeling well", True),
    ],
)
def test_a_message_that_only_denies_symptoms_reports_no_complaint(text, expected):
    assert said.names_a_complaint(text) is expected


@pytest.mark.parametrize(
    ("text", "symptoms", "stored"),
    [
        (
            "i hav a hedache and feever, my stomache hurts",
            "headache, fever, stomach ache",
            ["headache", "fever", "stomach ache"],
        ),
        ("chest pian when i breath and a hight fever", "chest pain, high fever", ["chest pain", "high fever"]),
        ("I have a cough but no fever", "cough, fever", ["cough"]),
        ("I don't have a cough. My head hurts", "cough, headache", ["headache"]),
    ],
)
def test_a_chat_stores_misspelled_symptoms_and_never_a_denied_one(alice, ref, text, symptoms, stored):
    backend = ScriptedBackend(
        planner=[plan("Symptoms reported.", "Store the symptoms."), end()],
        caller=[call("store_symptoms", user_id=ref, symptoms=symptoms, timestamp="2026-03-01T10:00:00")],
    )

    start_chat(alice, text, backend=backend)

    assert SymptomRecord.objects.get(user=alice).symptoms == stored


def test_a_chat_that_only_denies_symptoms_stores_nothing(alice, ref):
    backend = ScriptedBackend(
        planner=[plan("Symptoms reported.", "Store the symptoms."), end()],
        caller=[call("store_symptoms", user_id=ref, symptoms="fever, cough", timestamp="2026-03-01T10:00:00")],
    )

    conversation = start_chat(alice, "No fever and no cough, I just want a check-up.", backend=backend)

    assert "did not report any symptom" in observations(conversation)[0]["error"]
    assert not SymptomRecord.objects.exists()
