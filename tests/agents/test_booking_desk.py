"""The booking desk (agents/booking_desk.py): "book me a dermatologist on Friday afternoon" is
searched, proposed and booked after a yes with the booking tools, without the model; a complaint
still goes to the model, whose flows store and triage it."""

from __future__ import annotations

import pytest

from agents import booking_desk
from agents.llm.scripted import ScriptedBackend
from agents.runtime import pending_question
from agents.services import post_user_message, start_chat
from health.models import Appointment, SymptomRecord
from tests.agents.helpers import end, harmful_model, local_day_at, told
from tests.factories import SlotFactory, SpecialistFactory, SpecializationFactory

READS = [
    ("book me in to see a skin doctor, not too early in the morning", "dermatologist"),
    ("book me a dermatologist", "dermatologist"),
    ("book me the earliest cardiologist", "cardiologist"),
    ("I want to see a dermatologist on friday afternoon", "dermatologist"),
    ("can I get a GP appointment for thursday morning", "general physician"),
    ("hi, i'd like to book a skin doctor please", "dermatologist"),
    ("can I see a dermatolgist tomorrow", "dermatologist"),
    ("put me down for the cardiologist on monday", "cardiologist"),
    ("dermatologist on friday please", "dermatologist"),
    ("I'm after a heart doctor appointment", "cardiologist"),
    ("sign me up for a dermatologist", "dermatologist"),
    ("do you have any cardiologist appointments next week", "cardiologist"),
    ("what's the first dermatologist slot", "dermatologist"),
    ("any dermatology appointments tomorrow", "dermatologist"),
    # a fifth round (14 of 20 were read before)
    ("cardiologist appointment", "cardiologist"),
    ("got any slots with a dermatologist on tuesday?", "dermatologist"),
    ("my gp referred me to a cardiologist, please book", "cardiologist"),
    ("i'd prefer a female heart doctor on a weekday", "cardiologist"),
    ("appointment with the skin doctor on monday", "dermatologist"),
    # a seventh round, typed loosely (6 of 15 were read before)
    ("i wanna see a skin dr", "dermatologist"),
    ("get me a cardio appointment", "cardiologist"),
    ("derm appointment next week", "dermatologist"),
    ("a heart doctor on wednesday would be great", "cardiologist"),
    ("any chance of a dermatology slot monday", "dermatologist"),
    ("put mum down for the cardiologist", "cardiologist"),
    # an eighth and a ninth round (first read 15 of 15 and 12 of 15)
    ("can you sort me out an appointment with a dermatologist", "dermatologist"),
    ("can i have an appointment with the general physician for a check up", "general physician"),
    ("anything after lunch with a dermatologist?", "dermatologist"),
    # a sixteenth round (first read 17 of 20)
    ("dermatologist next week, any day except friday", "dermatologist"),
    ("put me in with the cardiologist at the earliest time", "cardiologist"),
    ("sign my dad up for a dermatologist appointment on tuesday", "dermatologist"),
    ("any openings with the dermatologist this week?", "dermatologist"),
    ("availability for a cardiologist on monday", "cardiologist"),
    ("can you line me up with a dermatologist", "dermatologist"),
    ("cardiology appt needed next week", "cardiologist"),
    # clinics' short forms, and a request with its time said after
    ("can u get me a derm appt", "dermatologist"),
    ("cardio appointment first thing tomorrow", "cardiologist"),
    ("derm appt before noon on friday", "dermatologist"),
    ("please get me in to the skin clinic on monday", "dermatologist"),
    ("cardiology, any morning next week", "cardiologist"),
    ("my wife wants an appointment with a dermatologist, evenings preferably", "dermatologist"),
    ("any dermatologists around 10am on wednesday?", "dermatologist"),
    ("does the cardiologist have anything on friday?", "cardiologist"),
    ("when does the dermatologist have openings", "dermatologist"),
    ("any day but monday for the cardiologist", "cardiologist"),
    ("I'd love an appointment with the skin doctor asap", "dermatologist"),
    # a field and a time, said shortly and any way round
    ("Is Friday possible with a dermatologist?", "dermatologist"),
    ("Thursday afternoon, cardiologist", "cardiologist"),
    ("What about a dermatologist on Friday?", "dermatologist"),
    ("a dermatologist visit on thursday would suit me", "dermatologist"),
    ("Got time with a cardiologist in the morning?", "cardiologist"),
    ("Put in a booking for the cardiologist for next Wednesday", "cardiologist"),
]
NOT_THE_DESK = [
    "I'm not well and I don't know what kind of doctor I need.",
    "I have chest pain, book me a cardiologist",
    "should I see a neurologist?",
    "I don't want to see a dermatologist",
    "cancel my dermatologist appointment",
    "what's my next appointment with the dermatologist",
    "I have a rash on my arm",
    "I'd like to cancel the cardiologist",
    # a long message with "a doctor" in it describes a problem (the lexicon may miss its words): triage
    "my arm burns way out of proportion to the injury and the skin keeps changing colour, need a doc",
    "any dermatology creams you would recommend",
    "my stomach has been upset for days, need a doctor",  # a complaint the lexicon's symptoms miss
    "we won't need the dermatologist tomorrow after all",
    "the dermatologist next week was really helpful but my rash came back",
    "cardio appointment on monday was cancelled by the hospital",
    "derm symptoms on my arm, a rash",
    "my cardiologist said I can take aspirin any time",
    "I'd love to know what a dermatologist treats",
    "does the dermatologist have parking",
    "the dermatologist on friday said my rash is fine",
    "what time does the dermatologist close on friday",
    "the cardiologist tomorrow, is it at 9 or 10",
    "does the dermatologist take insurance on monday",
    "my dad's cardiologist appointment friday",
    "cardiologist today? no thanks",
    "my cardiologist on friday",
]


@pytest.fixture
def directory(db):
    SpecializationFactory(name="dermatologist", synonyms=["skin doctor", "skin specialist"])
    SpecializationFactory(name="cardiologist", synonyms=["heart doctor"])
    SpecializationFactory(name="general physician", synonyms=["gp", "family doctor"])


@pytest.mark.parametrize(("text", "name"), READS)
def test_a_booking_of_a_named_specialist_is_read(directory, text, name):
    assert booking_desk.read(text) == booking_desk.BookingRequest(name)


@pytest.mark.parametrize("text", ["book me a doctor", "can i see a dcotor please", "I need to see a doctor"])
def test_a_doctor_with_no_field_named_is_the_general_physician(directory, text):
    assert booking_desk.read(text) == booking_desk.BookingRequest("general physician", generic=True)


def test_the_gp_named_is_not_generic(directory):
    assert booking_desk.read("book me a GP") == booking_desk.BookingRequest("general physician")


@pytest.mark.parametrize("text", NOT_THE_DESK)
def test_complaints_advice_and_existing_appointments_are_not_the_desks(directory, text):
    assert booking_desk.read(text) is None


@pytest.fixture
def derm_slots(directory):
    from health.models import Specialization

    specialist = SpecialistFactory(
        name="Dr. Chloe Dubois", specialization=Specialization.objects.get(name="dermatologist")
    )
    return [SlotFactory(specialist=specialist, starts_at=local_day_at(2, hour)) for hour in (9, 14)]


def test_book_me_a_dermatologist_proposes_the_earliest_and_books_it_after_yes(alice, derm_slots):
    backend = harmful_model()

    conversation = start_chat(alice, "book me a dermatologist", backend=backend)

    assert conversation.status == "waiting_input"
    assert "Dr. Chloe Dubois" in pending_question(conversation)
    assert not Appointment.objects.exists(), "nothing is held or booked before the yes"
    conversation = post_user_message(conversation.pk, alice, "yes", backend=backend)

    assert conversation.status == "completed"
    assert backend.calls == []
    booked = Appointment.objects.get(user=alice)
    assert (booked.state, booked.slot_id) == ("confirmed", derm_slots[0].pk)
    assert not SymptomRecord.objects.exists()


def test_a_no_books_nothing_and_says_so(alice, derm_slots):
    conversation = start_chat(alice, "book me a dermatologist", backend=harmful_model())

    conversation = post_user_message(conversation.pk, alice, "no thanks", backend=harmful_model())

    assert conversation.status == "completed"
    assert not Appointment.objects.exists()
    assert "Nothing was booked" in told(conversation)


def test_another_wish_searches_again(alice, derm_slots):
    conversation = start_chat(alice, "book me a dermatologist", backend=harmful_model())
    assert "09:00" in pending_question(conversation)

    conversation = post_user_message(
        conversation.pk, alice, "9 is too early, anything in the afternoon?", backend=harmful_model()
    )
    assert "14:00" in pending_question(conversation)
    post_user_message(conversation.pk, alice, "yes please", backend=harmful_model())

    assert Appointment.objects.get(user=alice).slot_id == derm_slots[1].pk


def test_no_free_time_books_nothing_and_says_so(alice, directory):
    conversation = start_chat(alice, "book me a cardiologist", backend=harmful_model())

    assert conversation.status == "completed"
    assert "No cardiologist has a free time" in told(conversation)
    assert not Appointment.objects.exists()


def test_a_complaint_goes_to_the_model(alice, derm_slots):
    backend = ScriptedBackend(planner=[end("Nothing to do.")])

    start_chat(alice, "I have an itchy rash, book me a dermatologist", backend=backend)

    assert len(backend.calls) == 1


def test_cancel_and_book_instead_does_both_after_each_yes(alice, derm_slots):
    uro_kind = SpecializationFactory(name="urologist")
    uro_slot = SlotFactory(
        specialist=SpecialistFactory(name="Dr. Ida Berg", specialization=uro_kind), starts_at=local_day_at(3, 9)
    )
    uro = Appointment.book(user=alice, slot_id=uro_slot.pk)
    backend = harmful_model()

    conversation = start_chat(alice, "cancel the urologist and book me a skin doctor instead", backend=backend)
    conversation = post_user_message(conversation.pk, alice, "yes", backend=backend)
    assert "Dr. Chloe Dubois" in pending_question(conversation)
    conversation = post_user_message(conversation.pk, alice, "yes", backend=backend)

    uro.refresh_from_db()
    assert uro.state == "cancelled"
    assert Appointment.objects.get(user=alice, state="confirmed").specialist.name == "Dr. Chloe Dubois"
    assert backend.calls == []
    assert conversation.status == "completed"


def test_a_doctor_gets_a_general_physician_offer_that_invites_the_symptoms(alice, directory):
    from health.models import Specialization

    gp = SpecialistFactory(name="Dr. Amir Haddad", specialization=Specialization.objects.get(name="general physician"))
    SlotFactory(specialist=gp, starts_at=local_day_at(2, 10))

    conversation = start_chat(alice, "book me a doctor", backend=harmful_model())

    assert conversation.status == "waiting_input"
    question = pending_question(conversation)
    assert "Dr. Amir Haddad" in question and "tell me your symptoms instead" in question
    assert not Appointment.objects.exists()


def test_a_clock_time_is_kept_in_the_proposal(alice, derm_slots):
    conversation = start_chat(alice, "book me a dermatologist at 2pm", backend=harmful_model())

    assert conversation.status == "waiting_input"
    assert "14:00" in pending_question(conversation)


def test_a_kind_of_practitioner_the_directory_lacks_is_said_so_and_nothing_is_booked(alice, directory):
    assert booking_desk.read("can I see a physio on monday") == booking_desk.BookingRequest("", missing="physio")
    assert booking_desk.read("my back hurts, can I see a physio") is None, "a complaint is triaged by the model"
    found = booking_desk.read("please schedule a physiotherapy session for friday")
    assert found == booking_desk.BookingRequest("", missing="physiotherapist")

    conversation = start_chat(alice, "book me a dentist please", backend=harmful_model())

    assert conversation.status == "completed"
    said = told(conversation)
    assert "There is no dentist in this clinic directory" in said
    assert "cardiologist, dermatologist, general physician" in said
    assert not Appointment.objects.exists()


def test_a_wish_nothing_fits_is_said_before_the_nearest_time_is_offered(alice, derm_slots):
    conversation = start_chat(alice, "book me a dermatologist on saturday evening", backend=harmful_model())

    question = pending_question(conversation)
    assert question.startswith("Nothing is free "), question
    assert "The nearest free time: Dr. Chloe Dubois (Dermatologist) can see you on" in question and question.endswith(
        "Shall I book it?"
    )
    assert not Appointment.objects.exists()


def test_a_longer_name_is_the_one_said_not_the_shorter_inside_it(db):
    SpecializationFactory(name="orthopedist", synonyms=["orthopaedic surgeon", "bone doctor"])
    SpecializationFactory(name="general surgeon", synonyms=["surgeon"])

    assert booking_desk.read("book my husband in with an orthopaedic surgeon").specialization == "orthopedist"
    assert booking_desk.read("book me a surgeon").specialization == "general surgeon"


@pytest.fixture
def two_dermatologists(derm_slots):
    from health.models import Specialization

    other = SpecialistFactory(name="Dr. Tomás Herrera", specialization=Specialization.objects.get(name="dermatologist"))
    return SlotFactory(specialist=other, starts_at=local_day_at(3, 10))


def test_a_named_doctor_of_the_directory_is_read_with_their_specialization(two_dermatologists):
    assert booking_desk.read("Dr Herrera please, whenever he's next free") == booking_desk.BookingRequest(
        "dermatologist", doctor="Dr. Tomás Herrera"
    )
    assert booking_desk.read("can I see doctor Tomas Herrera on monday").doctor == "Dr. Tomás Herrera"
    assert booking_desk.read("book me with dr herera").doctor == "Dr. Tomás Herrera", "a typo of a surname"
    # another specialization named wins over the doctor who referred
    assert booking_desk.read("Dr Herrera said I should see a cardiologist, please book one") == (
        booking_desk.BookingRequest("cardiologist")
    )
    assert booking_desk.read("book me a doctor appointment on friday") == booking_desk.BookingRequest(
        "general physician", generic=True
    ), "'doctor appointment' names no doctor"


def test_a_named_doctor_gets_their_own_times_not_the_earliest_of_another(alice, two_dermatologists):
    backend = harmful_model()

    conversation = start_chat(alice, "Dr Herrera please, whenever he's next free", backend=backend)

    question = pending_question(conversation)
    assert "Dr. Tomás Herrera" in question and "Dubois" not in question
    conversation = post_user_message(conversation.pk, alice, "yes", backend=backend)
    booked = Appointment.objects.get(user=alice)
    assert (booked.state, booked.slot_id) == ("confirmed", two_dermatologists.pk)
    assert backend.calls == []


def test_a_doctor_the_directory_lacks_is_said_to_be_missing_and_nothing_is_booked(alice, derm_slots):
    assert booking_desk.read("I want to book with Dr Patel if she has anything Thursday") == (
        booking_desk.BookingRequest("", missing="Dr Patel")
    )
    conversation = start_chat(
        alice, "I want to book with Dr Patel if she has anything Thursday", backend=harmful_model()
    )

    assert conversation.status == "completed"
    assert "There is no Dr Patel in this clinic directory" in told(conversation)
    assert not Appointment.objects.exists()
