"""/api/conversations/: create, message, steps, export and import, each scoped to
the signed-in user. Tasks run eagerly once the request's transaction commits."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from agents.models import Conversation
from agents.trajectory import import_trajectory
from health.models import SymptomRecord
from tests.agents.helpers import call, end, fixture_trajectory, plan
from tests.factories import ConversationFactory


@pytest.fixture
def bob_api(bob) -> APIClient:
    client = APIClient()
    client.force_login(bob)
    return client


@pytest.fixture
def alice_chat(alice):
    return ConversationFactory(user=alice, title="alice's chat")


def test_creating_a_conversation_runs_the_assistant_until_it_asks_a_question(
    alice_api, alice, scripted_backend, django_capture_on_commit_callbacks
):
    scripted_backend(
        planner=[plan("Vague symptoms.", "Ask what kind of pain it is.")],
        caller=[call("get_input_from_user", user_id=str(alice.pk), questions="Where does it hurt?")],
    )

    with django_capture_on_commit_callbacks(execute=True):
        response = alice_api.post("/api/conversations/", {"text": "I am in pain."}, format="json")

    assert response.status_code == 201
    conversation = Conversation.objects.get(pk=response.data["id"])
    assert conversation.user == alice
    detail = alice_api.get(f"/api/conversations/{conversation.pk}/").data
    assert (detail["status"], detail["question"]) == ("waiting_input", "Where does it hurt?")


def test_posting_the_answer_resumes_the_run(alice_api, alice, scripted_backend, django_capture_on_commit_callbacks):
    ref = str(alice.pk)
    scripted_backend(
        planner=[
            plan("Vague symptoms.", "Ask where it hurts."),
            plan("Knee pain.", "Store the symptoms."),
            end(),
        ],
        caller=[
            call("get_input_from_user", user_id=ref, questions="Where does it hurt?"),
            call("store_symptoms", user_id=ref, symptoms="knee pain", timestamp="2026-01-05T09:00:00"),
        ],
    )
    with django_capture_on_commit_callbacks(execute=True):
        conversation_id = alice_api.post("/api/conversations/", {"text": "I am in pain."}, format="json").data["id"]

    with django_capture_on_commit_callbacks(execute=True):
        response = alice_api.post(
            f"/api/conversations/{conversation_id}/messages/", {"text": "My knee."}, format="json"
        )

    assert response.status_code == 202
    assert Conversation.objects.get(pk=conversation_id).status == "completed"
    assert SymptomRecord.objects.get(user=alice).text == "knee pain"
    steps = alice_api.get(f"/api/conversations/{conversation_id}/steps/").data
    assert [step["role"] for step in steps] == [
        "system",
        "user",
        "planner",
        "caller",
        "observation",
        "planner",
        "caller",
        "observation",
        "planner",
    ]
    assert steps[4]["value"] == {"result": "My knee."}
    assert steps[2]["prompt_tokens"] > 0 and steps[2]["completion_tokens"] > 0
    assert steps[2]["latency_ms"] is not None


def test_a_message_to_a_running_conversation_is_a_conflict(alice_api, alice):
    conversation = ConversationFactory(user=alice, status=Conversation.Status.RUNNING)

    response = alice_api.post(f"/api/conversations/{conversation.pk}/messages/", {"text": "hello?"}, format="json")

    assert response.status_code == 409


def test_an_empty_message_is_refused(alice_api, alice_chat):
    response = alice_api.post(f"/api/conversations/{alice_chat.pk}/messages/", {"text": "  "}, format="json")

    assert response.status_code == 400
    assert "text" in response.data


def test_the_list_shows_only_the_users_own_conversations(alice_api, alice_chat, bob):
    ConversationFactory(user=bob, title="bob's chat")

    response = alice_api.get("/api/conversations/")

    assert [row["title"] for row in response.data["results"]] == ["alice's chat"]


@pytest.mark.parametrize(
    ("method", "suffix"),
    [("get", ""), ("get", "steps/"), ("get", "export/"), ("post", "messages/")],
)
def test_another_users_conversation_is_not_found(bob_api, alice_chat, method, suffix):
    response = getattr(bob_api, method)(f"/api/conversations/{alice_chat.pk}/{suffix}", {"text": "hi"}, format="json")

    assert response.status_code == 404


def test_anonymous_visitors_are_refused(api, alice_chat):
    assert api.get("/api/conversations/").status_code == 403
    assert api.post("/api/conversations/import/", [], format="json").status_code == 403


def test_export_returns_the_trajectory_states(alice_api, alice):
    trajectory = fixture_trajectory("d5_hard_sos_start.json")
    conversation = import_trajectory(alice, trajectory)

    response = alice_api.get(f"/api/conversations/{conversation.pk}/export/")

    assert response.status_code == 200
    assert response.json() == trajectory["interaction_trajectory"]


def test_import_stores_a_paper_trajectory_for_the_user(alice_api, alice):
    response = alice_api.post(
        "/api/conversations/import/", fixture_trajectory("d1_appointment_generic.json"), format="json"
    )

    assert response.status_code == 201
    conversation = Conversation.objects.get(pk=response.data["id"])
    assert (conversation.user, conversation.status, conversation.steps.count()) == (alice, "completed", 24)


def test_import_of_a_malformed_trajectory_answers_400_with_every_problem(alice_api):
    bad = [
        {"from": "user", "value": "hi"},
        {"from": "robot", "value": "?"},
        {"from": "caller", "value": {"parameters": {}}},
        {"from": "observation", "value": {"outcome": 1}},
    ]

    response = alice_api.post("/api/conversations/import/", bad, format="json")

    assert response.status_code == 400
    assert response.data["trajectory"] == [
        "state 1: 'from' must be one of system, user, planner, caller, observation.",
        "state 2: a caller value needs a string 'tool'.",
        "state 3: an observation value needs 'result' (or 'error').",
    ]
    assert not Conversation.objects.exists()


def test_import_of_something_that_is_not_a_trajectory_answers_400(alice_api):
    response = alice_api.post("/api/conversations/import/", {"hello": "world"}, format="json")

    assert response.status_code == 400
    assert "list of states" in response.data["trajectory"][0]


def test_an_sos_conversation_takes_no_user_messages(alice_api, alice):
    conversation = ConversationFactory(
        user=alice, kind=Conversation.Kind.HARD_SOS_START, status=Conversation.Status.COMPLETED
    )

    response = alice_api.post(f"/api/conversations/{conversation.pk}/messages/", {"text": "stop"}, format="json")

    assert response.status_code == 409
    assert response.data["detail"] == "This conversation is run by the system and takes no messages."
    assert not conversation.steps.exists()
