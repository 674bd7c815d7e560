"""Questions about more symptoms stop when the patient has nothing to add (agents/tools/interaction.py):
after an answer that adds nothing, or after two such questions, the model is told to go on with what
it has instead of asking "Anything else?" until the step limit."""

from __future__ import annotations

import pytest

from agents.llm.scripted import ScriptedBackend
from agents.models import Conversation
from agents.runtime import pending_question
from agents.services import post_user_message, start_chat
from tests.agents.helpers import call, end, observations, plan

MORE = "Anything else, for example pain, fever or changes in sleep or appetite?"


def _asking(ref, questions: list[str]) -> ScriptedBackend:
    return ScriptedBackend(
        planner=[plan("Few symptoms.", "Ask the user about more symptoms.") for _ in questions] + [end()],
        caller=[call("get_input_from_user", user_id=ref, questions=q) for q in questions],
    )


def test_after_nothing_else_a_second_symptom_question_is_refused(alice, ref):
    backend = _asking(ref, ["Could you tell me more about your symptoms?", MORE])
    conversation = start_chat(alice, "my eye is red", backend=backend)

    conversation = post_user_message(conversation.pk, alice, "No, nothing else.", backend=backend)

    assert "Do not ask about symptoms again" in observations(conversation)[1]["error"]
    assert conversation.status != Conversation.Status.WAITING_INPUT


def test_a_third_symptom_question_is_refused_though_each_answer_added_one(alice, ref):
    backend = _asking(ref, ["What else have you noticed?", MORE, "Any other symptoms?"])
    conversation = start_chat(alice, "I feel tired", backend=backend)
    conversation = post_user_message(conversation.pk, alice, "I am thirsty all the time", backend=backend)

    conversation = post_user_message(conversation.pk, alice, "and I pee a lot", backend=backend)

    assert observations(conversation)[:2] == [{"result": "I am thirsty all the time"}, {"result": "and I pee a lot"}]
    assert "Do not ask about symptoms again" in observations(conversation)[2]["error"]
    assert conversation.status != Conversation.Status.WAITING_INPUT


@pytest.mark.parametrize("answer", ["I also have a headache", "yes, my throat hurts"])
def test_an_answer_that_adds_a_symptom_allows_one_more_question(alice, ref, answer):
    backend = _asking(ref, ["Could you tell me more about your symptoms?", MORE])
    conversation = start_chat(alice, "my eye is red", backend=backend)

    conversation = post_user_message(conversation.pk, alice, answer, backend=backend)

    assert pending_question(conversation) == MORE


def test_a_question_that_is_not_about_symptoms_is_still_asked(alice, ref):
    backend = _asking(ref, ["Could you tell me more about your symptoms?", "Would you like me to book it?"])
    conversation = start_chat(alice, "my eye is red", backend=backend)

    conversation = post_user_message(conversation.pk, alice, "no, nothing else", backend=backend)

    assert pending_question(conversation) == "Would you like me to book it?"
