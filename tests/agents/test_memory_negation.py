"""Negation: "no fever" names fever only to deny it, and memory must not match it to a fever."""

from __future__ import annotations

import datetime as dt

import pytest

from agents.memory.index import MemoryIndex, linked_symptoms
from agents.memory.items import complaint_item
from agents.memory.text import analyse
from agents.tools import ToolContext
from tests.agents.memory_personas import complaint, run


@pytest.mark.parametrize(
    ("text", "affirmed", "negated"),
    [
        ("I have no fever", set(), {"fever"}),
        ("fever but no cough", {"fever"}, {"cough"}),
        ("I don't have a cough, just a sore throat", {"sore_throat"}, {"cough"}),
        ("Denies chest pain. Reports wheezing.", {"wheezing"}, {"chest_pain"}),
        ("no fever, chills or cough. My head is pounding", {"headache"}, {"fever", "chills", "cough"}),
        ("the rash went away", set(), {"rash"}),
        ("not sure if it is a fever", {"fever"}, set()),  # uncertainty is no denial
        ("my tummy hurts and I feel sick", {"abdominal_pain", "nausea"}, set()),
    ],
)
def test_symptoms_are_affirmed_or_negated_as_said(text, affirmed, negated):
    found = analyse(text)

    assert set(found.concepts) == affirmed
    assert set(found.negated) == negated


def test_a_denied_word_is_a_different_search_term():
    assert "no_fever" in analyse("no fever at all").tokens
    assert "fever" not in analyse("no fever at all").tokens
    assert "fever" not in analyse("no fever at all").affirmed_text


def test_bm25_does_not_match_no_fever_to_a_fever_complaint():
    day = dt.date(2026, 11, 1)
    index = MemoryIndex([complaint_item(1, "fever and chills", [], day), complaint_item(2, "sore throat", [], day)])

    denied = index.search("no fever")
    said = index.search("fever")

    assert denied.bm25[0] == 0.0
    assert said.bm25[0] > 0.0


def test_the_tool_does_not_find_a_fever_complaint_for_no_fever(alice):
    complaint(alice, "fever and chills", 20, "general physician")
    ctx = ToolContext(user=alice)

    denied = run("retrieve_past_complaints", ctx, user_id=str(alice.pk), symptoms="no fever, just a sore throat")
    said = run("retrieve_past_complaints", ctx, user_id=str(alice.pk), symptoms="I have a fever again")

    assert denied == []
    assert [row["symptoms"] for row in said] == ["fever and chills"]


def test_a_denied_symptom_links_to_no_clinical_term():
    assert linked_symptoms("my cuts take forever to heal") == {"slow_healing"}
    assert linked_symptoms("no fever, just a sore throat") == {"sore_throat"}
