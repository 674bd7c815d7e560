"""A question suspends the run; the answer resumes it, in a fresh runtime with a
fresh model, from the database alone (a server restart in between)."""

from __future__ import annotations

from agents import services
from agents.llm.scripted import ScriptedBackend
from agents.models import AgentStep, Conversation
from agents.runtime import Runtime, pending_question
from agents.services import post_user_message, start_chat
from agents.trajectory import import_trajectory
from health.models import Appointment, OutboundMessage
from tests.agents.helpers import call, end, observations, plan, slot_text, states


def test_a_question_suspends_the_run_and_the_answer_resumes_it_after_a_restart(alice, gp_slot):
    ref, when, specialist_id = str(alice.pk), slot_text(gp_slot), str(gp_slot.specialist_id)
    before_restart = ScriptedBackend(
        planner=[plan("Slot found.", "Ask the user to confirm the appointment.")],
        caller=[call("get_input_from_user", user_id=ref, questions="Shall I book Dr. Diego Arroyo?")],
    )
    conversation = start_chat(alice, "I have a cough. Book me a GP.", backend=before_restart)
    assert conversation.status == "waiting_input"
    assert pending_question(conversation) == "Shall I book Dr. Diego Arroyo?"

    # The process dies here: nothing of the runtime or the model survives.
    del before_restart
    after_restart = ScriptedBackend(
        planner=[plan("User has confirmed.", "Book the appointment."), end()],
        caller=[call("book_appointment", user_id=ref, specialist_id=specialist_id, appointment_time_date=when)],
    )
    conversation = post_user_message(conversation.pk, alice, "Yes, please", backend=after_restart)

    assert conversation.status == "completed"
    assert pending_question(conversation) is None
    assert observations(conversation) == [{"result": "Yes, please"}, {"result": True}]
    assert Appointment.objects.get(user=alice).state == "confirmed"
    # The resumed planner saw the whole trajectory (its chat turns), answer included.
    turns = after_restart.calls[0][1]
    assert turns[-1].content == 'observation: {"result": "Yes, please"}'
    assert "user: I have a cough. Book me a GP." in [turn.content for turn in turns]
    assert "<action>Ask the user to confirm the appointment.</action>" in turns[-2].content


def test_follow_up_with_user_suspends_and_records_the_reply_with_the_method(alice):
    ref = str(alice.pk)
    backend = ScriptedBackend(
        planner=[plan("Check on the user.", "Follow up on the headache."), end()],
        caller=[call("follow_up_with_user", user_id=ref, current_symptoms="headache", past_complaints=["migraine"])],
    )

    conversation = start_chat(alice, "Check on me tomorrow.", backend=backend)
    question = pending_question(conversation)
    conversation = post_user_message(conversation.pk, alice, "Much better.", backend=backend)

    assert question == (
        "You told me about: headache. Earlier you reported: migraine. "
        "How are you feeling now, and has anything changed?"
    )
    assert observations(conversation) == [{"result": {"method": "chat", "user": "Much better."}}]


def test_a_message_after_completion_starts_a_new_request_in_the_same_conversation(alice):
    first = ScriptedBackend(planner=[end("Nothing to do.")])
    conversation = start_chat(alice, "Hi, I have a question.", backend=first)

    second = ScriptedBackend(planner=[end("Still nothing.")])
    conversation = post_user_message(conversation.pk, alice, "Hi again, one more question.", backend=second)

    assert [s["from"] for s in states(conversation)] == ["system", "user", "planner", "user", "planner"]
    assert conversation.status == "completed"


def test_a_step_interrupted_between_call_and_observation_runs_once_when_resumed(alice, alice_contacts):
    # What a crashed worker leaves behind: the call is stored, its observation
    # is not, and the message may or may not have been queued already.
    conversation = import_trajectory(
        alice,
        [
            {"from": "system", "value": {"user_details": {"user_id": str(alice.pk), "name": "Alice", "timestamp": ""}}},
            {"from": "user", "value": "Tell my contacts I'm home."},
            {"from": "planner", "value": {"reason": "Easy.", "action": "Message the emergency contacts."}},
            {
                "from": "caller",
                "value": {"tool": "send_message", "parameters": {"text": "Home", "to_emergency_contacts": True}},
            },
        ],
    )
    Conversation.objects.filter(pk=conversation.pk).update(status=Conversation.Status.RUNNING)
    OutboundMessage.objects.create(
        user=alice,
        recipient="+14155550101",
        recipient_kind="emergency_contact",
        body="Home",
        idempotency_key=f"agent:{conversation.pk}:3:+14155550101",
    )

    # Outside an SOS the message waits for the user's yes (issue 23): the step asks again.
    assert services.run_conversation(conversation.pk, backend=ScriptedBackend()) == "waiting_input"
    status = post_user_message(conversation.pk, alice, "yes", backend=ScriptedBackend(planner=[end()])).status
    again = services.run_conversation(conversation.pk, backend=ScriptedBackend())  # a redelivered task

    assert (status, again) == ("completed", "completed")
    assert sorted(OutboundMessage.objects.values_list("recipient", flat=True)) == ["+14155550101", "+14155550102"]
    assert AgentStep.objects.filter(conversation=conversation, role="observation").count() == 1


def test_a_second_runner_on_the_same_conversation_stops_without_writing_anything(alice, alice_contacts):
    conversation = import_trajectory(
        alice,
        [
            {"from": "system", "value": {"user_details": {"user_id": str(alice.pk), "name": "Alice", "timestamp": ""}}},
            {"from": "user", "value": "Tell my contacts I'm home."},
        ],
    )
    Conversation.objects.filter(pk=conversation.pk).update(status=Conversation.Status.RUNNING)
    conversation.refresh_from_db()
    script = {
        "planner": [plan("Easy.", "Message the contacts."), end()],
        "caller": [call("send_message", text="Home", to_emergency_contacts=True)],
    }
    # Both built from the same database state, as two deliveries of one task would be.
    first = Runtime(conversation, ScriptedBackend(**script))
    second = Runtime(Conversation.objects.get(pk=conversation.pk), ScriptedBackend(**script))

    assert first.run() == "waiting_input"  # the text waits for the user's yes (issue 23)
    assert second.run() == "waiting_input"  # it read the first runner's outcome
    post_user_message(conversation.pk, alice, "yes", backend=ScriptedBackend(planner=[end()]))

    assert AgentStep.objects.filter(conversation=conversation).count() == 6
    assert OutboundMessage.objects.count() == 2
