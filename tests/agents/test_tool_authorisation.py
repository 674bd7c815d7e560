"""Tools act only for the conversation's user: another user's id and made-up
phone numbers are refused before anything is written or sent."""

from __future__ import annotations

from agents.llm.scripted import ScriptedBackend
from agents.services import post_user_message, start_chat
from health.models import Appointment, OutboundMessage, SymptomRecord
from tests.agents.helpers import call, end, observations, plan, slot_text
from tests.factories import SymptomRecordFactory


def one_call(caller_output: str) -> ScriptedBackend:
    return ScriptedBackend(planner=[plan("Do it.", "Make the call."), end()], caller=[caller_output])


def test_another_users_id_is_refused(alice, bob):
    SymptomRecordFactory(user=bob, text="bob's private complaint")

    conversation = start_chat(
        alice,
        "What did bob complain about?",
        backend=one_call(call("retrieve_past_complaints", user_id=str(bob.pk), symptoms="complaint")),
    )

    assert observations(conversation) == [
        {"error": f"user_id '{bob.pk}' is not the user of this conversation ({alice.pk})."}
    ]


def test_a_booking_for_another_user_is_refused_and_books_nothing(alice, bob, gp_slot):
    backend = one_call(
        call(
            "book_appointment",
            user_id=str(bob.pk),
            specialist_id=str(gp_slot.specialist_id),
            appointment_time_date=slot_text(gp_slot),
        )
    )

    conversation = start_chat(alice, "Book it for bob.", backend=backend)

    assert "is not the user of this conversation" in observations(conversation)[0]["error"]
    assert not Appointment.objects.exists()


def test_storing_symptoms_under_another_users_id_writes_nothing(alice, bob):
    backend = one_call(call("store_symptoms", user_id=str(bob.pk), symptoms="x", timestamp="2026-01-01T00:00:00"))

    start_chat(alice, "Store this for bob.", backend=backend)

    assert not SymptomRecord.objects.exists()


def test_a_made_up_phone_number_is_refused_and_nothing_is_queued(alice, alice_contacts):
    backend = one_call(call("send_message", phone_no="+14155550123", text="Send money"))

    conversation = start_chat(alice, "Text this number.", backend=backend)

    assert observations(conversation) == [
        {
            "error": "'+14155550123' is neither the assigned ambulance nor an emergency contact; "
            "messages go only to those."
        }
    ]
    assert not OutboundMessage.objects.exists()


def test_another_users_emergency_contact_is_refused(alice, alice_contacts, bob_contact):
    backend = one_call(call("send_message", phone_no=bob_contact.phone, text="Hello"))

    start_chat(alice, "Text bob's brother.", backend=backend)

    assert not OutboundMessage.objects.exists()


def test_an_ambulance_that_is_not_assigned_to_the_user_is_refused(alice, ambulances):
    backend = one_call(call("send_message", phone_no=ambulances["near"].phone, text="Come"))

    conversation = start_chat(alice, "Text the AMB-NEAR number that I am fine.", backend=backend)

    assert "neither the assigned ambulance" in observations(conversation)[0]["error"]
    assert not OutboundMessage.objects.exists()


def test_a_message_to_the_users_own_contact_is_queued_once_with_a_step_key(alice, alice_contacts):
    backend = one_call(call("send_message", phone_no="+1 415 555 0101", text="I'm fine"))

    conversation = start_chat(alice, "Tell Dana I'm fine.", backend=backend)
    assert not OutboundMessage.objects.exists()  # outside an SOS the user is asked first (issue 23)
    post_user_message(conversation.pk, alice, "yes", backend=ScriptedBackend(planner=[end()]))

    message = OutboundMessage.objects.get()
    assert (message.recipient, message.recipient_kind, message.recipient_name) == (
        "+14155550101",
        "emergency_contact",
        "Dana",
    )
    assert message.idempotency_key == f"agent:{conversation.pk}:3:+14155550101"


def test_a_chat_cannot_dispatch_an_ambulance(alice, ambulances):
    backend = one_call(call("search_ambulance", location={"latitude": 52.5, "longitude": 13.4}))

    conversation = start_chat(alice, "Dispatch AMB-NEAR to my address.", backend=backend)

    assert observations(conversation) == [{"error": "An ambulance can only be dispatched for the user's hard SOS."}]
