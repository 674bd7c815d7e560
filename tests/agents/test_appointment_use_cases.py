"""The seed paper's appointment use cases (general, decline, counter-question,
dietician) through the runtime with a scripted model, checking the database."""

from __future__ import annotations

import datetime as dt

from agents.llm.scripted import ScriptedBackend
from agents.services import post_user_message, start_chat
from health.models import Appointment, AppointmentHistory, Notification, Slot, SymptomRecord
from tests.agents.helpers import BERLIN, call, end, observations, plan, slot_text, states
from tests.factories import SymptomRecordFactory

SYMPTOMS = "fatigue, chills, body aches, sore throat"
REQUEST = "I've been feeling extremely fatigued with chills, body aches, and a sore throat."


def general_script(ref: str, slot, *, answer_yes: bool = True) -> ScriptedBackend:
    when = slot_text(slot)
    specialist_id = str(slot.specialist_id)
    planner = [
        plan("User reports fatigue, chills, body aches and a sore throat.", "Check for past similar complaints."),
        plan("The symptoms are more severe than before.", "Find a general physician available for an appointment."),
        plan("Dr. Diego Arroyo is available.", "Suggest the appointment to the user and book it if confirmed."),
        plan("User has confirmed the appointment", "I should confirm the appointment"),
        plan("Appointment confirmed.", "Save the appointment history."),
        plan("Appointment confirmed and stored.", "Also store the current symptoms for future reference."),
        plan("Appointment confirmed and symptoms stored.", "Inform the user of the successful booking."),
        end(),
    ]
    caller = [
        call("retrieve_past_complaints", user_id=ref, symptoms=SYMPTOMS),
        call("get_available_specialists", symptoms=SYMPTOMS, specialization="General Physician"),
        call("get_input_from_user", user_id=ref, questions="Dr. Diego Arroyo has an opening. Shall I book it?"),
        call("confirm_appointment", user_id=ref, specialist_id=specialist_id, appointment_time_date=when),
        call(
            "save_appointment_history",
            user_id=ref,
            symptoms=SYMPTOMS,
            specialist_id=specialist_id,
            appointment_time_date=when,
        ),
        call("store_symptoms", user_id=ref, symptoms=SYMPTOMS, timestamp="2024-09-02T10:57:00"),
        call("notify_user", user_id=ref, message="Your appointment with Dr. Diego Arroyo is confirmed."),
    ]
    return ScriptedBackend(planner=planner, caller=caller)


def test_a_general_appointment_the_user_agreed_to_is_booked_saves_history_and_stores_symptoms(alice, ref, gp_slot):
    SymptomRecordFactory(
        user=alice, text="mild body aches, slight fever", recorded_at=dt.datetime(2024, 6, 2, 9, tzinfo=BERLIN)
    )
    backend = general_script(ref, gp_slot)

    conversation = start_chat(alice, REQUEST, backend=backend)
    assert conversation.status == "waiting_input"
    assert Slot.objects.free().filter(pk=gp_slot.pk).exists(), "nothing is held before the user agrees"

    conversation = post_user_message(conversation.pk, alice, "Yes, please", backend=backend)

    assert conversation.status == "completed"
    start = gp_slot.starts_at.astimezone(BERLIN)
    assert observations(conversation)[:3] == [
        {"result": [{"date": "2024-06-02", "symptoms": "mild body aches, slight fever"}]},
        {
            "result": {
                "specialist_id": str(gp_slot.specialist_id),
                "name": "Dr. Diego Arroyo (General Physician)",
                "available_slot": {"date": f"{start:%Y-%m-%d}", "time": f"{start:%H:%M}-{start:%H}:30"},
            }
        },
        {"result": "Yes, please"},
    ]
    appointment = Appointment.objects.get(user=alice)
    assert appointment.slot == gp_slot
    assert appointment.state == Appointment.State.CONFIRMED, "the user said yes: booked, not only held"
    assert appointment.conversation == conversation
    assert not Slot.objects.free().filter(pk=gp_slot.pk).exists()
    history = AppointmentHistory.objects.get(user=alice)
    assert (history.appointment, history.specialization, history.summary) == (
        appointment,
        "general physician",
        SYMPTOMS,
    )
    record = SymptomRecord.objects.get(user=alice, conversation=conversation)
    assert record.symptoms == ["fatigue", "chills", "body aches", "sore throat"]
    assert Notification.objects.filter(
        user=alice, body__startswith="Booked: your appointment with Dr. Diego Arroyo"
    ).exists()


def test_book_appointment_without_the_patients_yes_only_holds_the_slot(alice, ref, gp_slot):
    when = slot_text(gp_slot)
    backend = ScriptedBackend(
        planner=[plan("Hold it.", "Confirm the appointment."), plan("Held.", "Book it."), end()],
        caller=[
            call(
                "confirm_appointment", user_id=ref, specialist_id=str(gp_slot.specialist_id), appointment_time_date=when
            ),
            call("book_appointment", user_id=ref, specialist_id=str(gp_slot.specialist_id), appointment_time_date=when),
        ],
    )

    conversation = start_chat(alice, "I have a sore throat. Book the GP slot tomorrow at ten.", backend=backend)

    # The patient never saw and accepted this specialist and time: held, not booked, whichever tool.
    assert conversation.status == "completed"
    appointment = Appointment.objects.get(user=alice)
    assert appointment.state == Appointment.State.HELD
    assert appointment.confirmed_at is None


def test_a_slot_is_never_booked_twice(alice, bob, ref, gp_slot):
    Appointment.book(user=bob, slot_id=gp_slot.pk)
    backend = ScriptedBackend(
        planner=[plan("User agreed.", "Book the appointment."), end("The slot is gone; I will tell the user.")],
        caller=[
            call(
                "book_appointment",
                user_id=ref,
                specialist_id=str(gp_slot.specialist_id),
                appointment_time_date=slot_text(gp_slot),
            )
        ],
    )

    conversation = start_chat(alice, "I have a sore throat. Book the GP slot tomorrow at ten.", backend=backend)

    assert observations(conversation) == [
        {"error": "That slot is no longer available: This slot has just been booked by someone else."}
    ]
    assert not Appointment.objects.filter(user=alice).exists()
    assert Appointment.objects.get(slot=gp_slot).user == bob


def test_a_declined_appointment_stores_the_symptoms_and_books_nothing(alice, ref, gp_slot):
    backend = ScriptedBackend(
        planner=[
            plan("A general physician fits.", "Find a general physician."),
            plan("One is available.", "Suggest the appointment to the user."),
            plan("User has declined the appointment.", "Store the symptoms for future reference."),
            plan("Symptoms stored successfully.", "Inform the user."),
            end("The process is completed with symptoms stored and user notified."),
        ],
        caller=[
            call("get_available_specialists", symptoms="high fever, cough", specialization="gp"),
            call("get_input_from_user", user_id=ref, questions="Would you like to schedule an appointment?"),
            call(
                "store_symptoms", user_id=ref, symptoms="high fever, body aches, cough", timestamp="2023-11-08T10:54:00"
            ),
            call("notify_user", user_id=ref, message="Your symptoms have been recorded for future reference."),
        ],
    )

    conversation = start_chat(alice, "I have a high fever, body aches and a cough.", backend=backend)
    conversation = post_user_message(conversation.pk, alice, "No, not at this time.", backend=backend)

    assert conversation.status == "completed"
    assert not Appointment.objects.exists()
    assert Slot.objects.free().filter(pk=gp_slot.pk).exists()
    record = SymptomRecord.objects.get(user=alice)
    assert record.recorded_at == dt.datetime(2023, 11, 8, 10, 54, tzinfo=BERLIN)
    assert {"result": "No, not at this time."} in observations(conversation)


def test_a_counter_question_flow_asks_twice_then_refers(alice, ref, gp_slot):
    neuro_slot = gp_slot  # the directory only has a GP; the planner asks before referring
    backend = ScriptedBackend(
        planner=[
            plan("Movement issues are vague.", "Ask if it is weakness, stiffness or coordination."),
            plan("Weakness and shaking.", "Ask about pain and whether the weakness is constant."),
            plan("Intermittent weakness without pain.", "Find a general physician for a first consultation."),
            end("A specialist was found; the rest is like the general flow."),
        ],
        caller=[
            call("get_input_from_user", user_id=ref, questions="Is it weakness, stiffness or coordination?"),
            call("get_input_from_user", user_id=ref, questions="Any pain, or is the weakness constant?"),
            call("get_available_specialists", symptoms="weakness, hand tremor", specialization="general physician"),
        ],
    )

    conversation = start_chat(alice, "I've been having some trouble with my movement lately.", backend=backend)
    first_question = conversation.steps.filter(role="caller").last().payload["parameters"]["questions"]
    conversation = post_user_message(conversation.pk, alice, "I feel a bit weak and my hand shakes.", backend=backend)
    assert conversation.status == "waiting_input"
    conversation = post_user_message(conversation.pk, alice, "No pain, it comes and goes.", backend=backend)

    assert first_question == "Is it weakness, stiffness or coordination?"
    assert conversation.status == "completed"
    assert [s["value"] for s in states(conversation) if s["from"] == "observation"][:2] == [
        {"result": "I feel a bit weak and my hand shakes."},
        {"result": "No pain, it comes and goes."},
    ]
    assert observations(conversation)[2]["result"]["specialist_id"] == str(neuro_slot.specialist_id)


def test_a_dietician_referral_finds_the_dietician_by_synonym_and_the_users_schedule(
    alice, ref, gp_slot, dietician_slot
):
    local = dietician_slot.starts_at.astimezone(BERLIN)
    schedule = {"date": f"{local:%Y-%m-%d}", "time_range": "13:00-16:00"}
    backend = ScriptedBackend(
        planner=[
            plan("Diet-related complaints call for a dietician.", "Find a dietician in the user's afternoon."),
            plan("One is available.", "Book it as the user asked."),
            end(),
        ],
        caller=[
            call(
                "get_available_specialists",
                symptoms="weight gain, fatigue",
                specialization="Dietitian",
                user_schedule=schedule,
            ),
            call(
                "book_appointment",
                user_id=ref,
                specialist_id=str(dietician_slot.specialist_id),
                appointment_time_date=slot_text(dietician_slot),
            ),
        ],
    )

    conversation = start_chat(alice, "I keep gaining weight and feel tired; afternoons suit me.", backend=backend)

    assert observations(conversation)[0]["result"] == {
        "specialist_id": str(dietician_slot.specialist_id),
        "name": "Dr. Mia Chen (Dietician)",
        "available_slot": {"date": f"{local:%Y-%m-%d}", "time": "14:00-14:30"},
        "preference": "in the afternoon",
        "fits_preference": True,
    }
    assert Appointment.objects.get(user=alice).slot == dietician_slot
    assert Slot.objects.free().filter(pk=gp_slot.pk).exists()
