"""Chatting through a whole appointment in a real browser: the scripted model
finds a specialist, the patient confirms the proposal with a button, and the
booking shows in the chat, the agent log and the database."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from agents.models import Conversation
from health.models import Appointment
from tests.agents.helpers import BERLIN, call, end, plan, slot_text
from tests.browser.conftest import screenshot, sign_in
from tests.factories import SlotFactory, SpecialistFactory, SpecializationFactory

REQUEST = "I have had a fever and a sore throat since yesterday."
SYMPTOMS = "fever, sore throat"


@pytest.fixture
def gp_slot(db):
    tomorrow = timezone.now().astimezone(BERLIN) + dt.timedelta(days=1)
    starts = tomorrow.replace(hour=10, minute=0, second=0, microsecond=0)
    specialist = SpecialistFactory(
        name="Dr. Diego Arroyo", specialization=SpecializationFactory(name="general physician")
    )
    return SlotFactory(specialist=specialist, starts_at=starts, ends_at=starts + dt.timedelta(minutes=30))


def appointment_script(ref: str, slot) -> dict[str, list[str]]:
    when, specialist_id = slot_text(slot), str(slot.specialist_id)
    return {
        "planner": [
            plan("Fever and a sore throat: a general physician fits.", "Find a general physician."),
            plan("Dr. Diego Arroyo is available.", "Suggest the appointment to the user."),
            plan("The user confirmed.", "Book the appointment."),
            plan("Booked.", "Tell the user."),
            end(),
        ],
        "caller": [
            call("get_available_specialists", symptoms=SYMPTOMS, specialization="General Physician"),
            call("get_input_from_user", user_id=ref, questions="Dr. Diego Arroyo can see you tomorrow. Book it?"),
            call("book_appointment", user_id=ref, specialist_id=specialist_id, appointment_time_date=when),
            call("notify_user", user_id=ref, message="Your appointment with Dr. Diego Arroyo is booked."),
        ],
    }


def test_a_patient_books_an_appointment_by_chat_and_sees_the_agent_log(page, alice, gp_slot, scripted_model):
    scripted_model(**appointment_script(str(alice.pk), gp_slot))
    sign_in(page, "alice")
    page.get_by_role("link", name="Chat").click()

    page.get_by_label("Your message").fill(REQUEST)
    page.get_by_role("button", name="Send").click()

    messages = page.get_by_role("log", name="Messages")
    expect(messages.get_by_text(REQUEST)).to_be_visible()
    # The proposal is worded from the search result, in the patient's zone, whatever the model wrote.
    proposal = messages.locator(".kind-proposal")
    expect(proposal).to_contain_text("Dr. Diego Arroyo (General Physician) can see you on")
    expect(proposal).to_contain_text("10:00-10:30 (Europe/Berlin). Shall I book it?")
    expect(messages.locator(".proposal")).to_contain_text("Dr. Diego Arroyo (General Physician)")
    log = page.locator("#agent-log")
    expect(log).to_contain_text("Find a general physician.")
    expect(log).to_contain_text("get_available_specialists")
    screenshot(page, "chat-proposal")

    page.get_by_role("button", name="Confirm").click()

    expect(messages.locator(".bubble-user").last).to_have_text("You: yes")
    # "Booked" comes from the recorded, confirmed appointment, not from the model's notice.
    expect(page.locator(".booking h3")).to_have_text("Booked")
    expect(page.locator(".booking")).to_contain_text("Dr. Diego Arroyo")
    expect(page.locator(".booking")).to_contain_text("10:00\u201310:30 (Europe/Berlin)")
    expect(messages.get_by_text("Your appointment with Dr. Diego Arroyo is booked.")).to_have_count(0)
    expect(page.get_by_role("button", name="Confirm")).to_have_count(0)
    expect(log).to_contain_text("book_appointment")
    expect(log.locator(".log-meta").first).to_contain_text("tokens")
    expect(page.get_by_role("status").filter(has_text="thinking")).to_be_hidden()
    screenshot(page, "chat-booked")

    appointment = Appointment.objects.get(user=alice)
    assert (appointment.slot, appointment.state) == (gp_slot, Appointment.State.CONFIRMED)
    assert Conversation.objects.get(user=alice).status == Conversation.Status.COMPLETED

    # The history reads the same after a reload: question, answer, notice, booking.
    page.reload()
    expect(messages.locator(".bubble > p")).to_have_count(3)
    expect(messages.locator(".bubble > p").nth(0)).to_have_text(REQUEST)
    expect(messages.locator(".bubble > p").nth(1)).to_contain_text("Shall I book it?")
    expect(messages.locator(".bubble > p").nth(2)).to_have_text("yes")
    expect(messages.locator(".proposal")).to_contain_text("Dr. Diego Arroyo (General Physician)")
    expect(page.locator(".booking h3")).to_have_text("Booked")
    expect(page.get_by_role("button", name="Confirm")).to_have_count(0)


def test_a_run_that_fails_says_why_and_the_chat_stays_usable(page, alice, scripted_model):
    scripted_model(planner=[], caller=[])  # no outputs: the model is not there
    sign_in(page, "alice")
    page.goto("/chat/")

    page.get_by_label("Your message").fill("My knee hurts.")
    page.get_by_role("button", name="Send").click()

    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("The assistant could not finish: the planner backend failed")
    expect(page.get_by_role("button", name="Send")).to_be_enabled()
    screenshot(page, "chat-failed")


def test_a_message_sent_while_the_assistant_is_busy_is_explained(page, alice, scripted_model):
    scripted_model(
        planner=[plan("Vague.", "Ask where it hurts.")],
        caller=[call("get_input_from_user", user_id=str(alice.pk), questions="Where does it hurt?")],
    )
    sign_in(page, "alice")
    page.goto("/chat/")
    page.get_by_label("Your message").fill("I am in pain.")
    page.get_by_role("button", name="Send").click()
    expect(page.get_by_role("log", name="Messages")).to_contain_text("Where does it hurt?")
    # Another tab answered meanwhile, and the assistant is working on that answer. The page may
    # learn it (a late status event reads the conversation back, which disables Send and labels
    # the box "Your message") before or after the answer goes out: Enter sends in both cases.
    Conversation.objects.filter(user=alice).update(status=Conversation.Status.RUNNING)

    answer = page.locator("#message")
    answer.fill("My knee.")
    answer.press("Enter")

    expect(page.get_by_role("alert")).to_contain_text("The assistant is still working on this conversation.")
    expect(answer).to_have_value("My knee.")


def test_the_agent_log_can_be_hidden_and_stays_hidden(page, alice):
    sign_in(page, "alice")
    page.goto("/chat/")
    log = page.get_by_role("region", name="Agent log")
    expect(log).to_be_visible()

    page.get_by_role("button", name="Hide agent log").click()
    expect(log).to_be_hidden()
    page.reload()

    expect(page.get_by_role("region", name="Agent log")).to_be_hidden()
    expect(page.get_by_role("button", name="Show agent log")).to_have_attribute("aria-expanded", "false")


def test_the_chat_fits_a_phone_screen(page, alice, gp_slot, scripted_model):
    scripted_model(**appointment_script(str(alice.pk), gp_slot))
    page.set_viewport_size({"width": 375, "height": 740})
    sign_in(page, "alice")
    page.goto("/chat/")
    page.get_by_label("Your message").fill(REQUEST)
    page.get_by_role("button", name="Send").click()
    expect(page.get_by_role("button", name="Confirm")).to_be_visible()

    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow == 0, "nothing may scroll sideways on a phone"
    screenshot(page, "chat-phone")


def test_a_text_to_a_contact_waits_for_the_patients_yes_and_says_what_the_outbox_recorded(page, alice, scripted_model):
    from health.models import OutboundMessage
    from tests.factories import EmergencyContactFactory

    EmergencyContactFactory(user=alice, name="Dana", phone="+14155550101", priority=1)

    scripted_model(
        planner=[plan("Alice wants Dana told.", "Text Dana."), end()],
        caller=[call("send_message", phone_no="+1 415 555 0101", text="I'm home safe")],
    )
    sign_in(page, "alice")
    page.get_by_role("link", name="Chat").click()

    page.get_by_label("Your message").fill("Tell Dana I'm home safe.")
    page.get_by_role("button", name="Send").click()

    messages = page.get_by_role("log", name="Messages")
    # The server's question, word for word, with buttons: nothing leaves before the answer.
    expect(messages.locator(".kind-question")).to_contain_text('Shall I text Dana this message: "I\'m home safe"?')
    assert not OutboundMessage.objects.exists()
    screenshot(page, "chat-consent")

    page.get_by_role("button", name="Yes").click()

    expect(messages.locator(".bubble-user").last).to_have_text("You: yes")
    # What the record says (no SMS provider here: the message is queued or not sent, never "sent").
    expect(messages.locator(".kind-notice").last).to_contain_text("Your text message to Dana:")
    expect(page.get_by_role("button", name="Yes")).to_have_count(0)
    message = OutboundMessage.objects.get()
    assert message.recipient == "+14155550101" and message.status != "sent"


def test_a_reminder_asked_for_in_the_chat_is_proposed_and_set_on_the_yes_button(page, alice, scripted_model):
    from health.models import Medication

    scripted_model()  # the medicines desk proposes it: a model call would fail the chat
    sign_in(page, "alice")
    page.get_by_role("link", name="Chat").click()

    page.get_by_label("Your message").fill("Remind me to take metformin 500 mg at 8am and 8pm")
    page.get_by_role("button", name="Send").click()

    messages = page.get_by_role("log", name="Messages")
    # What will be stored, in the tool's words, with buttons: nothing is scheduled before the answer.
    question = "Set a reminder for Metformin 500 mg, 2 times a day at 08:00 and 20:00, starting today?"
    expect(messages.locator(".kind-question")).to_contain_text(question)
    assert not Medication.objects.exists()
    screenshot(page, "chat-reminder-consent")

    page.get_by_role("button", name="Yes").click()

    expect(messages.locator(".bubble-user").last).to_have_text("You: yes")
    expect(page.get_by_role("button", name="Yes")).to_have_count(0)
    # The question stays above the answer, and the record's own words follow, with the page to change it.
    expect(messages.locator(".kind-question")).to_contain_text(question)
    expect(messages.locator(".kind-notice").last).to_contain_text("Change it here: /medications/")
    expect(messages.locator(".kind-notice").last.get_by_role("link", name="/medications/")).to_have_attribute(
        "href", "/medications/"
    )
    medication = Medication.objects.get(user=alice)
    assert (medication.name, medication.strength, medication.clock_times) == ("Metformin", "500 mg", ["08:00", "20:00"])
    screenshot(page, "chat-reminder-set")


def test_a_request_to_prescribe_gets_the_scope_answer_in_the_chat(page, alice, scripted_model):
    """The guard's answer names a specialist: it is the server's template, shown as is (the model's
    own words about appointments are not), and no booking card claims anything."""
    from agents import scope

    scripted_model()  # never called
    sign_in(page, "alice")
    page.get_by_role("link", name="Chat").click()

    page.get_by_label("Your message").fill("prescribe me antibiotics")
    page.get_by_role("button", name="Send").click()

    messages = page.get_by_role("log", name="Messages")
    expect(messages.locator(".kind-notice")).to_have_text(f"Assistant: {scope.reply(scope.PRESCRIBE)}")
    expect(page.locator(".booking h3")).to_have_count(0)
    screenshot(page, "chat-scope")


def test_a_patient_asks_for_their_appointments_and_cancels_one_with_the_yes_button(
    page, alice, gp_slot, scripted_model
):
    """The appointments desk: the list and the outcome are the records' words, shown as written;
    the appointment is cancelled only after the Yes button."""
    appointment = Appointment.book(user=alice, slot_id=gp_slot.pk)
    scripted_model()  # never called
    sign_in(page, "alice")
    page.get_by_role("link", name="Chat").click()
    messages = page.get_by_role("log", name="Messages")

    page.get_by_label("Your message").fill("what's my next appointment?")
    page.get_by_role("button", name="Send").click()
    expect(messages.locator(".kind-notice").last).to_contain_text("Dr. Diego Arroyo")
    expect(messages.locator(".kind-notice").last).to_contain_text("confirmed")

    page.get_by_label("Your message").fill("please cancel my appointment with the general physician")
    page.get_by_role("button", name="Send").click()
    expect(messages.locator(".kind-question").last).to_contain_text("Cancel your appointment with Dr. Diego Arroyo")
    appointment.refresh_from_db()
    assert appointment.state == "confirmed"
    screenshot(page, "chat-cancel-consent")

    page.get_by_role("button", name="Yes").click()

    expect(messages.locator(".kind-notice").last).to_contain_text("is cancelled")
    expect(page.get_by_role("button", name="Yes")).to_have_count(0)
    appointment.refresh_from_db()
    assert appointment.state == "cancelled"
    screenshot(page, "chat-cancelled")


def test_how_was_my_day_is_answered_from_the_readings_in_the_chat(page, alice, scripted_model):
    """The health desk's answer is the server's summary of the readings, shown as written."""
    scripted_model()  # never called
    sign_in(page, "alice")
    page.get_by_role("link", name="Chat").click()

    page.get_by_label("Your message").fill("How was my day?")
    page.get_by_role("button", name="Send").click()

    notice = page.get_by_role("log", name="Messages").locator(".kind-notice").last
    expect(notice).to_contain_text("No readings from your watch were recorded today")
    screenshot(page, "chat-my-day")


def test_a_patient_books_the_doctor_they_name_and_not_another(page, alice, gp_slot, scripted_model):
    """The booking desk: "Dr Arroyo please" proposes that doctor's own time even when another doctor
    of the same field is free earlier, and books it on Confirm; the model is never called."""
    earlier = gp_slot.starts_at - dt.timedelta(hours=1)
    other = SpecialistFactory(name="Dr. Ines Moreau", specialization=gp_slot.specialist.specialization)
    SlotFactory(specialist=other, starts_at=earlier, ends_at=earlier + dt.timedelta(minutes=30))
    scripted_model()  # never called
    sign_in(page, "alice")
    page.get_by_role("link", name="Chat").click()
    messages = page.get_by_role("log", name="Messages")

    page.get_by_label("Your message").fill("Dr Arroyo please, whenever he's next free")
    page.get_by_role("button", name="Send").click()

    proposal = messages.locator(".kind-proposal")
    expect(proposal).to_contain_text("Dr. Diego Arroyo (General Physician) can see you on")
    expect(proposal).not_to_contain_text("Moreau")
    screenshot(page, "chat-named-doctor")
    page.get_by_role("button", name="Confirm").click()

    expect(page.locator(".booking h3")).to_have_text("Booked")
    expect(page.locator(".booking")).to_contain_text("Dr. Diego Arroyo")
    assert Appointment.objects.get(user=alice).slot_id == gp_slot.pk
