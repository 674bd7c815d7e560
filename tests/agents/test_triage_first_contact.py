"""Triage from the words alone: the first-contact rule, the diagnosis that overrides it, typos."""

from __future__ import annotations

import pytest

from agents import triage
from agents.knowledge import symptom_bank


@pytest.fixture(autouse=True)
def triage_index(settings, tmp_path_factory):
    settings.TRIAGE_INDEX_DIR = str(tmp_path_factory.getbasetemp() / "triage-index")


def first(text: str) -> str:
    return triage.suggest(text)[0][0]


def test_every_cancer_names_who_examines_it_first_and_that_specialist_is_in_the_directory():
    from health import demo_data

    directory = {row.name for row in demo_data.SPECIALIZATIONS}
    cancers = [d for d in symptom_bank().diseases if d.specialization == "oncologist"]
    assert cancers
    for disease in cancers:
        assert disease.examined_first_by != "oncologist", disease.name
        assert disease.examined_first_by in directory, disease.name
    assert all(d.examined_first_by == d.specialization for d in symptom_bank().diseases if not d.first_contact)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I found a hard lump in my breast and there is discharge from the nipple", "general surgeon"),
        ("A mole on my back has changed shape, it is itchy and bleeds sometimes", "dermatologist"),
        ("I have blood in my urine and a dull pain in my side", "urologist"),
    ],
)
def test_worrying_findings_go_to_the_specialist_who_examines_them_not_to_oncology(text, expected):
    assert first(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "I was diagnosed with breast cancer last year and now my arm is swollen",
        "I'm on chemo and I have been vomiting all day",
        "my son has leukaemia and a fever since yesterday",
        "I have lymphoma and drenching night sweats again",
    ],
)
def test_a_diagnosed_cancer_goes_to_the_oncologist(text):
    assert triage.diagnosed(text)
    assert first(text) == "oncologist"


@pytest.mark.parametrize(
    "text",
    [
        "could this lump be cancer?",
        "I'm scared I have a tumour, my head hurts every morning",
        "my mum had breast cancer and now I have a cough",
        "I don't have cancer but my back hurts",
        "Is it cancer? I have a mole that itches",
    ],
)
def test_a_fear_or_a_relative_history_is_not_a_diagnosis(text):
    assert not triage.diagnosed(text)
    assert first(text) != "oncologist"


@pytest.mark.parametrize(
    ("typed", "spelled"),
    [
        ("I hav a terible hedache and a feever and my neck is stiff",
         "I have a terrible headache and a fever and my neck is stiff"),
        ("my stomache hurts, I have diarhea and I keep vomitting",
         "my stomach hurts, I have diarrhea and I keep vomiting"),
        ("my skin is itchey and there is a red rassh on my arms",
         "my skin is itchy and there is a red rash on my arms"),
    ],
)  # fmt: skip
def test_typos_in_symptom_words_rank_like_the_spelled_words(typed, spelled):
    assert first(typed) == first(spelled)


def test_a_complaint_is_cut_into_clauses_and_a_lone_word_joins_the_clause_before_it():
    pieces = triage.clauses("My knee is swollen, hot and red. It hurts when I walk; I also feel feverish")

    assert pieces == ["My knee is swollen hot red", "It hurts when I walk", "I feel feverish"]
    assert triage.clauses("my eye is red and itchy") == ["my eye is red itchy"]
    assert triage.clauses("headache") == ["headache"]


def test_a_short_piece_with_its_own_subject_or_naming_a_symptom_stays_a_clause():
    pieces = triage.clauses("always cold, gaining weight, my hair is falling out and I'm constipated")

    assert pieces == ["always cold", "gaining weight", "my hair is falling out", "I'm constipated"]
    assert triage.clauses("a rash on my arm, red, it itches") == ["a rash on my arm red", "it itches"]


def test_a_short_piece_that_names_a_symptom_stays_a_clause_but_a_degree_or_a_time_joins():
    pieces = triage.clauses("constant thirst, frequent urination, weight loss and a dry cough")

    assert pieces == ["constant thirst", "frequent urination", "weight loss", "a dry cough"]
    assert triage.clauses("sore throat, fever, very sore") == ["sore throat", "fever very sore"]
    assert triage.clauses("I wake up coughing, at night") == ["I wake up coughing at night"]


@pytest.mark.parametrize(
    "text",
    [
        "I get a squeezing pain in my chest when I climb stairs and it eases when I rest",
        "my ankles swell by the evening and I get breathless lying flat",
    ],
)
def test_each_clause_counts_towards_the_disease_its_symptoms_belong_to(text):
    ranked = triage.suggest(text)

    assert ranked[0][0] == "cardiologist"
    assert sum(share for _, share in ranked) <= 1.0


def test_childhood_diseases_lead_only_a_parents_account_of_a_child():
    adult = "bad headache, high temperature and my neck is really stiff"
    child = "my 3 year old has a barking cough and a fever"

    assert not triage.speaks_of_child(adult) and triage.speaks_of_child(child)
    assert first(adult) != "pediatrician"
    assert first(child) == "pediatrician"
