"""Long-term memory retrieval on a small fixed persona: what comes first for implicit queries."""

from __future__ import annotations

import datetime as dt
from unittest import mock

import pytest
from django.utils import timezone

from agents.memory.index import index_for
from agents.memory.recall import recall
from agents.tools import ToolContext
from tests.agents.memory_personas import complaint, conditions, medication, run
from tests.factories import SymptomRecordFactory


# Noon, and half past eleven at night in UTC: already tomorrow for Alice in Berlin. The ranking
# must not change with the hour the history was written and asked about.
@pytest.fixture(autouse=True, params=["noon", "late evening"])
def clock(request):
    hour, minute = (12, 0) if request.param == "noon" else (23, 30)
    with mock.patch("django.utils.timezone.now", return_value=dt.datetime(2026, 11, 28, hour, minute, tzinfo=dt.UTC)):
        yield


@pytest.fixture
def history(alice):
    """Alice: type 2 diabetes on metformin, allergic to penicillin, four past complaints."""
    conditions(alice, "type 2 diabetes", allergies=("penicillin",))
    medication(alice, "metformin", "500 mg")
    return {
        "stomach": complaint(alice, "pain in my stomach and nausea after meals", 30, "gastroenterologist"),
        "rash": complaint(alice, "itchy red rash on both arms", 200, "dermatologist"),
        "headache": complaint(alice, "pounding headache behind my eyes", 10),
        "fever": complaint(alice, "fever and chills", 60, "general physician"),
    }


def keys(user, query: str, k: int) -> list[str]:
    return [ranked.item.key for ranked in recall(user, query, k=k)]


def test_a_tummy_ache_brings_up_the_stomach_complaint_and_its_appointment_first(alice, history):
    top = keys(alice, "my tummy hurts again", 6)

    assert set(top[:2]) == {f"complaint:{history['stomach'].pk}", f"appointment:{history['stomach'].appointment.pk}"}
    assert f"complaint:{history['headache'].pk}" == top[-1]


def test_thirst_and_tingling_feet_bring_up_the_diabetes_and_its_medicine(alice, history):
    top = keys(alice, "I'm so thirsty all the time and my feet tingle", 3)

    assert "condition:0" in top[:2]
    assert any(key.startswith("medication:") for key in top[:2])


def test_a_medicine_question_brings_up_the_complaint_then_the_allergy_before_the_medicines(alice, history):
    top = keys(alice, "can I take something for this headache?", 3)

    assert top == [f"complaint:{history['headache'].pk}", "allergy:0", top[2]]
    assert top[2].startswith("medication:")


def test_past_complaints_are_found_by_meaning_not_by_shared_words(alice, history):
    found = run("retrieve_past_complaints", ToolContext(user=alice), user_id=str(alice.pk), symptoms="tummy ache")

    assert [row["symptoms"] for row in found] == ["pain in my stomach and nausea after meals"]


def test_the_tool_lists_only_related_complaints_the_recent_one_first(alice, history):
    complaint(alice, "stomach cramps and diarrhoea", 5)
    ctx = ToolContext(user=alice)

    found = run("retrieve_past_complaints", ctx, user_id=str(alice.pk), symptoms="my stomach hurts")

    # Both are about the stomach (the headache, rash and fever are not listed); last week's first.
    assert [row["symptoms"] for row in found] == [
        "stomach cramps and diarrhoea",
        "pain in my stomach and nausea after meals",
    ]


def test_the_index_is_rebuilt_when_a_complaint_is_added_and_kept_otherwise(alice, history):
    first = index_for(alice)
    assert index_for(alice) is first  # nothing changed: the cached index answers

    SymptomRecordFactory(user=alice, text="my knee is swollen and stiff", symptoms=[], recorded_at=timezone.now())

    assert index_for(alice) is not first
    found = run("retrieve_past_complaints", ToolContext(user=alice), user_id=str(alice.pk), symptoms="sore knee")
    assert [row["symptoms"] for row in found] == ["my knee is swollen and stiff"]


def test_a_profile_change_reaches_the_index(alice, history):
    index_for(alice)

    conditions(alice, "type 2 diabetes", "asthma")

    assert "Known condition: asthma" in [item.text for item in index_for(alice).items]
