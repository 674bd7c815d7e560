"""Triage with memory: the same words, two histories, two different right referrals."""

from __future__ import annotations

import pytest

from agents import triage
from agents.tools import ToolContext
from agents.tools.symptoms import split_symptoms
from tests.agents.memory_personas import complaint, conditions, run


def referred(user, symptoms: str) -> list[str]:
    return run("match_specialization", ToolContext(user=user), symptoms=symptoms)["specializations"]


def alone(symptoms: str) -> str:
    """Triage without memory, on the text the tool ranks outside a conversation."""
    return triage.suggest(", ".join(split_symptoms(symptoms)))[0][0]


def test_abdominal_pain_in_pregnancy_goes_to_obstetrics_first(alice, bob):
    conditions(alice, "pregnancy (24 weeks)")
    said = "my tummy hurts and I feel sick"

    assert referred(alice, said)[0] == "gynecologist"
    assert referred(bob, said)[0] == alone(said) != "gynecologist"


def test_numb_tingling_feet_with_known_diabetes_go_to_the_endocrinologist(alice, bob):
    conditions(alice, "type 2 diabetes")
    said = "my feet are numb and tingly"

    assert referred(alice, said)[0] == "endocrinologist"
    assert referred(bob, said)[0] == alone(said) == "neurologist"


def test_a_tight_chest_with_known_asthma_goes_to_the_pulmonologist(alice, bob):
    conditions(alice, "asthma")
    said = "my chest feels tight"

    assert referred(alice, said)[0] == "pulmonologist"
    assert referred(bob, said)[0] == alone(said) == "cardiologist"


def test_a_known_condition_changes_nothing_for_an_unrelated_complaint(alice, bob):
    conditions(alice, "type 2 diabetes")
    said = "I have an itchy rash on my arms"

    assert referred(alice, said) == referred(bob, said)


@pytest.mark.parametrize(
    ("parent", "adult"),
    [("my son has a bad cough and a runny nose", "I have a bad cough and a runny nose")],
)
def test_a_parent_describing_a_child_is_sent_to_the_pediatrician(alice, parent, adult):
    assert referred(alice, parent)[0] == "pediatrician"
    assert referred(alice, adult)[0] == alone(adult) != "pediatrician"


def test_a_recent_related_complaint_goes_back_to_the_same_specialist(alice, bob):
    complaint(alice, "heartburn and acid reflux after meals", 20, "gastroenterologist")
    said = "my chest hurts after meals"

    assert referred(alice, said)[0] == "gastroenterologist"
    assert referred(bob, said)[0] == alone(said) == "cardiologist"


def test_an_old_related_complaint_does_not_steer_the_referral(alice):
    complaint(alice, "heartburn and acid reflux after meals", 300, "gastroenterologist")
    said = "I have a burning feeling in my chest after meals"

    assert referred(alice, said)[0] == alone(said)


def test_a_complication_said_in_other_words_is_still_recognised(alice, bob):
    conditions(alice, "type 2 diabetes")
    said = "the sore on my foot won't heal"  # not the bank's words ("slow-healing wounds"): linked by meaning

    assert referred(alice, said)[0] == "endocrinologist"
    assert referred(bob, said)[0] == alone(said) != "endocrinologist"
