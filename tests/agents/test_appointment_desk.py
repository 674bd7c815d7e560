"""The appointments desk (agents/appointment_desk.py, agents/tools/my_appointments.py): questions
about the appointments a patient has, and cancelling or moving one, are answered from the records
without the model; a change is made only after a clear yes, and what the user reads afterwards is
the record's state."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from agents import appointment_desk as desk
from agents.llm.scripted import ScriptedBackend
from agents.runtime import pending_question
from agents.services import post_user_message, start_chat
from health.models import Appointment, OutboundMessage, SymptomRecord
from tests.agents.helpers import call, end, harmful_model, local_day_at, plan, states, told
from tests.factories import SlotFactory, SpecialistFactory, SpecializationFactory

READS = [
    ("is there anything in the diary with a specialist", desk.LIST),
    ("can you cancel it", desk.CANCEL),
    ("move that one to friday", desk.RESCHEDULE),
    ("push it back a week please", desk.RESCHEDULE),
    ("I'm feeling better so I won't be needing that GP appointment", desk.CANCEL),
    ("what's my next appointment?", desk.LIST),
    ("When is my appointment with the dermatologist", desk.LIST),
    ("where is my next appointment", desk.LIST),
    ("do I have anything booked this week", desk.LIST),
    ("show me my appointments", desk.LIST),
    ("please cancel my appointment with the urologist", desk.CANCEL),
    ("cancel the urologist", desk.CANCEL),
    ("cancle my apointment tomorrow", desk.CANCEL),
    ("I wont be able to make it to my appointment tomorrow", desk.CANCEL),
    ("cancel tuesday and book me a skin doctor instead", desk.CANCEL),
    ("move my dermatologist appointment to friday afternoon", desk.RESCHEDULE),
    ("can you reschedule it", desk.RESCHEDULE),
    ("push my appointment back a week", desk.RESCHEDULE),
    ("Can you move my appointment earlier?", desk.RESCHEDULE),
    ("I can't make it to the dermatologist tomorrow, can we do thursday instead?", desk.RESCHEDULE),
    ("9 is too early, can I come later the same day?", desk.RESCHEDULE),
    ("hello, am I booked in anywhere this week?", desk.LIST),
    ("whens my next appt", desk.LIST),
    ("when am I next seeing the doctor", desk.LIST),
    ("I can't make it tomorrow", desk.CANCEL),
    ("which doctors am I seeing soon?", desk.LIST),
    ("I need to change my appointment to another day, friday works", desk.RESCHEDULE),
    ("something came up and I can't make my rheumatologist appointment", desk.CANCEL),
    ("did you book me in with the cardiologist?", desk.LIST),
    ("could you check whether I have an appointment on friday", desk.LIST),
    ("is dad's appointment tomorrow", desk.LIST),
    ("my appointments please", desk.LIST),
    ("when's the skin doctor", desk.LIST),
    ("what time do I need to be at the hospital tomorrow", desk.LIST),
    ("what have I got coming up", desk.LIST),
    ("I no longer need my urologist appointment", desk.CANCEL),
    ("delete my appointment on monday", desk.CANCEL),
    ("remove the cardiologist appointment", desk.CANCEL),
    ("cancel mondays", desk.CANCEL),
    ("I'd like to rearrange my appointment", desk.RESCHEDULE),
    ("change the time of my dentist appointment", desk.RESCHEDULE),
    ("could you make my appointment a little later", desk.RESCHEDULE),
    ("is there an earlier slot for my appointment", desk.RESCHEDULE),
    ("can I see the urologist on thursday instead", desk.RESCHEDULE),
    ("any appointments tomorrow?", desk.LIST),
    ("who am I seeing next", desk.LIST),
    ("where do I need to go tomorrow", desk.LIST),
    ("have I got the dermatologist this week", desk.LIST),
    ("could we do thursday instead", desk.RESCHEDULE),
    ("can I swap to the afternoon", desk.RESCHEDULE),
    ("can I have a later appointment", desk.RESCHEDULE),
    ("swap my appointment to monday", desk.RESCHEDULE),
    ("I'd like to cancel the physio", desk.CANCEL),
    # an appointment named by its time; a question about what was booked
    ("can my 9am be changed to later in the day", desk.RESCHEDULE),
    ("change my 3pm to 4pm", desk.RESCHEDULE),
    ("did I book something for Friday?", desk.LIST),
    ("wat apointments do i hav", desk.LIST),
    ("wen is my nxt appt", desk.LIST),
    ("the time you gave me for the cardiologist doesn't work, anything later?", desk.RESCHEDULE),
    ("9am doesn't suit me, anything later for my dentist appointment?", desk.RESCHEDULE),
    # a fourth round of phrasings, written as a check of the rules before they were widened
    ("remind me what time the cardiology appointment is", desk.LIST),
    ("what day is mum seeing the neurologist", desk.LIST),
    ("show me what i have booked", desk.LIST),
    ("could the neurologist see me earlier instead", desk.RESCHEDULE),
    ("the appointment time doesnt suit me anymore", desk.RESCHEDULE),
    # questions about an appointment named by its specialist (8 of 20 were read before)
    ("did the dermatologist booking go through", desk.LIST),
    ("is the urologist still on for tomorrow", desk.LIST),
    ("the gp appointment, what time was it again", desk.LIST),
    ("remind me when the gynaecologist is", desk.LIST),
    ("do i still have the ent appointment", desk.LIST),
    ("what date is my rheumatologist", desk.LIST),
    ("the heart doctor appointment is when?", desk.LIST),
    ("check if i'm booked in with the gp", desk.LIST),
    ("my dermatologist appointment details please", desk.LIST),
    ("where is the neurologist appointment", desk.LIST),
    ("what time is the skin doctor", desk.LIST),
    # a fifth round (12 of 15 moves were read before)
    ("can we do the cardiology one a week later", desk.RESCHEDULE),
    ("could i see the dermatologist on monday rather than friday", desk.RESCHEDULE),
    ("tomorrow doesn't work anymore, find me another day", desk.RESCHEDULE),
    # a sixth round (cancel 7 of 10, list 7 of 10 were read before)
    ("i won't be coming to the cardiology appointment", desk.CANCEL),
    ("take me off the list for the eye doctor on monday", desk.CANCEL),
    ("can you unbook my appointment", desk.CANCEL),
    ("whats booked for me", desk.LIST),
    ("list appointments", desk.LIST),
    ("what appointments has dad got", desk.LIST),
    # a seventh round, typed loosely (9 of 15 moves were read before)
    ("can u move my apt to thurs", desk.RESCHEDULE),
    ("need to rearange my appointment", desk.RESCHEDULE),
    ("can i change to a later time on the same day", desk.RESCHEDULE),
    ("different time for the skin doctor please", desk.RESCHEDULE),
    ("wednesday is bad for me, how about friday", desk.RESCHEDULE),
    ("can the cardiologist do monday instead", desk.RESCHEDULE),
    # an eighth and a ninth round (first read: list 18 of 20 and 10 of 20, moves 16 of 20 and 12 of 20)
    ("what day did you book the eye doctor for", desk.LIST),
    ("is there anything scheduled with the gp", desk.LIST),
    ("sorry to bother you but I've lost the letter with my appointment on it", desk.LIST),
    ("i think i have something with a doctor next week but i cant remember what", desk.LIST),
    ("Can I get a list of everything I have coming up with doctors?", desk.LIST),
    ("what have i got on with doctors this week", desk.LIST),
    ("the 10am slot doesn't work for me, anything after lunch?", desk.RESCHEDULE),
    ("could we do the eye appointment earlier in the day", desk.RESCHEDULE),
    ("my appointment clashes with work, can we change the day", desk.RESCHEDULE),
    ("I'd rather go next monday than this friday for the dentist", desk.RESCHEDULE),
    ("Would it be possible to see the cardiologist a bit later than planned?", desk.RESCHEDULE),
    ("is there a way to have my appointment next week instead of this week", desk.RESCHEDULE),
    ("mornings are hard for me, please give me an afternoon time for my appointment", desk.RESCHEDULE),
    ("the appointment you booked is too early, I can't get there by 8", desk.RESCHEDULE),
    # a tenth round (first read: list 11 of 15, cancel 4 of 5)
    ("tell me my schedule with the doctors", desk.LIST),
    # a list round written later (28 of 30 read on first reading)
    ("my schedule with doctors please", desk.LIST),
    ("could you list everything I've got coming up", desk.LIST),
    ("i cant remember if i booked the dermatologist", desk.LIST),
    ("when do i go back to the gp", desk.LIST),
    ("what do I have booked after christmas", desk.LIST),
    ("we won't need the GP visit tomorrow after all", desk.CANCEL),
    # an eleventh round (first read: cancel 5 of 8, reschedule 8 of 10)
    ("I no longer need to see the dermatologist, remove it", desk.CANCEL),
    ("I'm feeling better so I won't be needing that GP appointment", desk.CANCEL),
    ("take my cardiology booking off please", desk.CANCEL),
    ("something's come up, can we do the ENT another day", desk.RESCHEDULE),
    ("is there a slot earlier than my current cardiology one", desk.RESCHEDULE),
    # a twelfth round (first read: list 8 of 10, reschedule 3 of 4, cancel 1 of 3)
    ("what was the name of the doctor I'm seeing tomorrow", desk.LIST),
    ("could you read me my appointments please, my eyesight isn't great", desk.LIST),
    ("please prepone my appointment to tomorrow if possible", desk.RESCHEDULE),
    ("I've decided not to go to the cardiologist, can you let them know", desk.CANCEL),
    ("please don't keep the slot for me on monday, I'm not coming", desk.CANCEL),
    # a thirteenth round (first read: list 22 of 25, cancel 10 of 10)
    ("appointments?", desk.LIST),
    ("please confirm my appointment time for monday", desk.LIST),
    ("when am I due at the hospital", desk.LIST),
    # a fifteenth round, list only (first read 20 of 30)
    ("when's mum's next hospital visit", desk.LIST),
    ("do I need to go anywhere this week for the doctor", desk.LIST),
    ("have I got to see the heart doctor soon", desk.LIST),
    ("I've got an appointment soon haven't I", desk.LIST),
    ("my upcoming doctor appointments please", desk.LIST),
    ("how long until my appointment", desk.LIST),
    ("when is the eye test", desk.LIST),
    ("any appointments with the specialist coming up", desk.LIST),
    ("is it today I'm seeing the dermatologist", desk.LIST),
    ("put my appointment back a week", desk.RESCHEDULE),
    ("whats on my schedule medically", desk.LIST),
    ("what's in my medical calendar this week", desk.LIST),
    ("whats on for me next week doctor wise", desk.LIST),
    ("is she seeing the dermatologist tomorrow", desk.LIST),
    ("appointment-wise, what have I got this month", desk.LIST),
    ("did I book a gp for monday", desk.LIST),
    ("have you booked me with the dermatologist yet", desk.LIST),
    ("what time do I need to be at the dermatology clinic", desk.LIST),
    ("check if I have something with the heart doctor this week", desk.LIST),
    ("how far away is my cardiology appointment", desk.LIST),
    ("is there an appointment with dr chen in my schedule", desk.LIST),
    ("when will I see the dermatologist", desk.LIST),
    ("something came up, can my dermatologist appointment be on thursday instead", desk.RESCHEDULE),
]

NOT_THE_DESK = [
    # a pronoun or a verb that is no appointment's: these are complaints,
    "Something's off with me and I can't put my finger on it.",
    "I feel sick, my tummy hurts and the pain has moved to the lower right side of my belly.",
    "I have a crick in my neck that won't go away. Which doctor should I go to?",
    "there's a stabbing pain behind one eye and my eyelids droop by the evening",
    "I can't go on like this",
    "I need an appointment for my back pain",
    "book me the earliest cardiologist",
    "i want to see a dermatologist on friday",
    "my symptoms changed since my last appointment",
    "my appointment got cancelled and I still have chest pain",
    "I can't go to work today, my back hurts",
    "cancel the sos",
    "cancel my metformin reminder",
    "remind me to take metformin twice a day",
    "I have a fever and a sore throat since yesterday",
    "when is my appointment? my chest hurts badly",
    "don't cancel my appointment",
    "when is the earliest dermatologist available",
    "any dermatologist appointments free on friday?",
    "remove my evening reminder",
    "I take metformin every other day, can you set that up",
    "can I change my 9am pills to the evening",
    "move my 8am dose to 9",
    "can you book me at 9am tomorrow",
    "can I book something for Friday?",
    "the app doesn't work, anything later?",
    "my inhaler doesn't work, anything stronger?",
    "i got a script from the gp, can you put it in",  # a prescription, not an appointment to move
    "my watch time doesn't work anymore",
    "could a neurologist see me this week",  # a new booking
    "when is the earliest dermatologist",
    "what time is the dermatologist free on friday",
    "can you book me the dermatology appointment on friday?",
    "is the cardiologist good for palpitations and dizziness?",
    "i won't be coming to work, i have a fever and a cough, can i see a doctor",
    "take me off the metformin reminder",
    "please give me an afternoon time with the dermatologist",  # a new booking
    "I lost my appetite and need a doctor",
    "can you change the time of my metformin reminder to 9pm",
    "I won't need the reminder anymore, please remove it",
    "take my tablets off the list",
    "I'm not coming to work today, my back hurts too much",
    "the doctor I'm seeing for my skin is away, can I book another dermatologist",
    "when is my baby due in march, I have pelvic pain",
    "appointment with a cardiologist please",
    "when's the next available appointment with a dermatologist",
    "how soon can I get an appointment with a dermatologist",
    "do I need to see a doctor for this rash",
    "I've got an appointment soon with a cardiologist, and now my chest hurts a lot when I walk",
    "put me in with the cardiologist at the earliest time",  # a new booking
]


@pytest.mark.parametrize(("text", "kind"), READS)
def test_requests_about_the_patients_own_appointments_are_read(text, kind):
    found = desk.read(text)
    assert found is not None and found.kind == kind


@pytest.mark.parametrize("text", NOT_THE_DESK)
def test_new_bookings_complaints_and_other_things_go_to_the_model(text):
    assert desk.read(text) is None


@pytest.mark.parametrize(
    "text",
    ["I need to change my appointment to another day, friday works", "move my appointment, thursday would be better"],
)
def test_a_day_said_to_suit_is_the_new_time_not_the_appointment_to_move(text):
    found = desk.read(text)
    assert found.kind == desk.RESCHEDULE
    assert re.search(r"friday|thursday", found.when, re.I) and not re.search(r"friday|thursday", found.target, re.I)


def test_a_further_booking_request_is_kept_for_the_model():
    found = desk.read("cancel tuesday and book me a skin doctor instead")
    assert (found.target, found.rest) == ("cancel tuesday", "book me a skin doctor instead")


def test_the_new_time_is_read_apart_from_the_appointment():
    found = desk.read("move my tuesday appointment to friday afternoon")
    assert (found.target, found.when) == ("move my tuesday appointment", "to friday afternoon")


# --- through the runtime ---------------------------------------------------------------


def _booked(user, specialization: str, name: str, days: int, hour: int, synonyms=()) -> Appointment:
    kind = SpecializationFactory(name=specialization, synonyms=list(synonyms))
    specialist = SpecialistFactory(name=name, specialization=kind)
    slot = SlotFactory(specialist=specialist, starts_at=local_day_at(days, hour))
    return Appointment.book(user=user, slot_id=slot.pk)


@pytest.fixture
def two_appointments(alice):
    uro = _booked(alice, "urologist", "Dr. Ida Berg", 2, 9)
    gp = _booked(alice, "general physician", "Dr. Diego Arroyo", 5, 11, synonyms=["gp", "family doctor"])
    return uro, gp


def test_whats_my_next_appointment_lists_the_records(alice, two_appointments):
    backend = harmful_model()

    conversation = start_chat(alice, "what's my next appointment?", backend=backend)

    assert conversation.status == "completed"
    assert backend.calls == []
    said = told(conversation)
    uro, _gp = two_appointments
    assert said.index("Dr. Ida Berg") < said.index("Dr. Diego Arroyo"), "soonest first"
    assert uro.when_text() in said and "confirmed" in said
    assert not SymptomRecord.objects.filter(user=alice).exists()
    assert Appointment.objects.filter(user=alice, state="confirmed").count() == 2


def test_a_question_about_one_specialist_names_only_that_appointment(alice, two_appointments):
    conversation = start_chat(alice, "when is my appointment with the gp?", backend=harmful_model())

    said = told(conversation)
    assert "Dr. Diego Arroyo" in said and "Dr. Ida Berg" not in said


def test_no_appointments_is_said_plainly(alice):
    conversation = start_chat(alice, "do I have any appointments coming up?", backend=harmful_model())

    assert conversation.status == "completed"
    assert "You have no upcoming appointments" in told(conversation)


def test_cancel_asks_first_and_cancels_only_the_one_named(alice, two_appointments):
    uro, gp = two_appointments
    backend = harmful_model()

    conversation = start_chat(alice, "please cancel my appointment with the urologist", backend=backend)

    assert conversation.status == "waiting_input"
    question = pending_question(conversation)
    assert "Dr. Ida Berg" in question and uro.when_text() in question
    uro.refresh_from_db()
    assert uro.state == "confirmed", "nothing changes before the yes"

    conversation = post_user_message(conversation.pk, alice, "yes", backend=backend)

    assert conversation.status == "completed"
    assert backend.calls == []
    uro.refresh_from_db()
    gp.refresh_from_db()
    assert (uro.state, gp.state) == ("cancelled", "confirmed")
    assert "is cancelled" in told(conversation)
    assert not OutboundMessage.objects.exists()


def test_a_no_keeps_the_appointment_and_says_so(alice, two_appointments):
    uro, _gp = two_appointments
    conversation = start_chat(alice, "cancel the urologist", backend=harmful_model())

    conversation = post_user_message(conversation.pk, alice, "no, leave it", backend=harmful_model())

    uro.refresh_from_db()
    assert uro.state == "confirmed"
    assert "Not cancelled" in told(conversation) and "is cancelled" not in told(conversation)


def test_which_one_is_asked_when_several_could_be_meant(alice, two_appointments):
    uro, gp = two_appointments
    conversation = start_chat(alice, "cancel my appointment", backend=harmful_model())
    assert "Which appointment shall I cancel?" in pending_question(conversation)

    conversation = post_user_message(conversation.pk, alice, "2", backend=harmful_model())
    assert "Dr. Diego Arroyo" in pending_question(conversation)
    conversation = post_user_message(conversation.pk, alice, "yes", backend=harmful_model())

    uro.refresh_from_db()
    gp.refresh_from_db()
    assert (uro.state, gp.state) == ("confirmed", "cancelled")


def test_an_appointment_that_does_not_exist_is_not_cancelled(alice, two_appointments):
    conversation = start_chat(alice, "cancel my appointment with the cardiologist", backend=harmful_model())

    assert conversation.status == "completed"
    assert "I found no upcoming appointment like that" in told(conversation)
    assert Appointment.objects.filter(user=alice, state="confirmed").count() == 2


def test_a_yes_after_the_appointment_changed_elsewhere_says_what_the_record_holds(alice, two_appointments):
    uro, _gp = two_appointments
    conversation = start_chat(alice, "cancel the urologist", backend=harmful_model())
    uro.cancel()  # cancelled on the Appointments page meanwhile

    conversation = post_user_message(conversation.pk, alice, "yes", backend=harmful_model())

    said = told(conversation)
    assert "Not cancelled" in said


def test_move_to_the_afternoon_takes_the_nearest_afternoon_time_after_a_yes(alice, two_appointments):
    uro, _gp = two_appointments
    SlotFactory(specialist=uro.specialist, starts_at=local_day_at(2, 15))  # same day, afternoon
    SlotFactory(specialist=uro.specialist, starts_at=local_day_at(3, 14))  # next day, afternoon
    SlotFactory(specialist=uro.specialist, starts_at=local_day_at(2, 10))  # same day, morning
    old_slot = uro.slot_id

    conversation = start_chat(alice, "can you move my urologist appointment to the afternoon?", backend=harmful_model())
    assert "15:00" in pending_question(conversation)
    conversation = post_user_message(conversation.pk, alice, "yes", backend=harmful_model())

    uro.refresh_from_db()
    assert uro.slot_id != old_slot and uro.starts_at == local_day_at(2, 15)
    assert uro.state == "confirmed"
    assert "moved from" in told(conversation) and "still confirmed" in told(conversation)


def test_move_with_no_free_time_that_fits_changes_nothing_and_offers_others(alice, two_appointments):
    uro, _gp = two_appointments
    SlotFactory(specialist=uro.specialist, starts_at=local_day_at(3, 10))

    conversation = start_chat(alice, "move my urologist appointment to the evening", backend=harmful_model())

    assert conversation.status == "completed"
    uro.refresh_from_db()
    assert uro.starts_at == local_day_at(2, 9)
    said = told(conversation)
    assert "has no free time" in said and "stays on" in said


def test_a_further_booking_request_goes_to_the_model_after_the_cancel(alice, two_appointments):
    uro, _gp = two_appointments
    backend = ScriptedBackend(planner=[end("Nothing more.")])

    conversation = start_chat(alice, "cancel the urologist and book me a skin doctor instead", backend=backend)
    assert backend.calls == []
    conversation = post_user_message(conversation.pk, alice, "yes", backend=backend)

    uro.refresh_from_db()
    assert uro.state == "cancelled"
    assert len(backend.calls) == 1, "the model went on with the booking request"
    assert conversation.status == "completed"
    # The model reads the rest of the request alone; the stored trajectory keeps everything.
    prompt = " ".join(message.content for message in backend.calls[0][1])
    assert "book me a skin doctor instead" in prompt
    assert "cancel the urologist" not in prompt and "Appointments desk" not in prompt
    assert "cancel_appointment" not in prompt
    assert any(s["from"] == "caller" and s["value"]["tool"] == "cancel_appointment" for s in states(conversation))


def test_the_tools_refuse_another_patients_appointment(alice, bob):
    from agents.errors import NotFound
    from agents.tools import REGISTRY, ToolContext

    theirs = _booked(bob, "urologist", "Dr. Ida Berg", 2, 9)
    ctx = ToolContext(user=alice)

    with pytest.raises(NotFound):
        REGISTRY.get("cancel_appointment")(ctx, user_id=str(alice.pk), appointment_id=str(theirs.pk))


def test_a_clock_time_moves_it_to_that_time_on_its_own_day(alice, two_appointments):
    uro, _gp = two_appointments
    SlotFactory(specialist=uro.specialist, starts_at=local_day_at(2, 14))
    SlotFactory(specialist=uro.specialist, starts_at=local_day_at(2, 15))

    conversation = start_chat(alice, "my urologist appointment: can I come at 2pm instead?", backend=harmful_model())

    assert "14:00" in pending_question(conversation)
    post_user_message(conversation.pk, alice, "yes", backend=harmful_model())
    uro.refresh_from_db()
    assert uro.starts_at == local_day_at(2, 14)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("at 2pm", dt.time(14)), ("to 14:30", dt.time(14, 30)), ("at 9.30", dt.time(9, 30)), ("at 3", dt.time(15)),
     ("3 o'clock", dt.time(15)), ("since 2019", None), ("next week", None)],
)  # fmt: skip
def test_clock_times_are_read(text, expected):
    assert desk.clock_time(text) == expected


def test_the_model_cannot_call_the_desks_tools(alice, two_appointments):
    uro, _gp = two_appointments
    backend = ScriptedBackend(
        planner=[plan("Cancel it.", "Cancel the appointment."), end()],
        caller=[call("cancel_appointment", user_id=str(alice.pk), appointment_id=str(uro.pk))],
    )

    conversation = start_chat(alice, "I have a rash on my arm", backend=backend)

    assert "Unknown tool 'cancel_appointment'" in states(conversation)[4]["value"]["error"]
    uro.refresh_from_db()
    assert uro.state == "confirmed"


def _days_to_next_monday() -> int:
    from tests.agents.helpers import BERLIN

    return 7 - dt.datetime.now(BERLIN).weekday()


def test_next_week_takes_a_free_time_in_the_calendar_week_after_this_one(alice, two_appointments):
    uro, _gp = two_appointments
    monday = _days_to_next_monday()
    in_next_week = SlotFactory(specialist=uro.specialist, starts_at=local_day_at(monday + 3, 14))
    SlotFactory(specialist=uro.specialist, starts_at=local_day_at(monday + 8, 9))  # the week after

    from django.utils import timezone

    slot, _offers, _said = desk.new_slot(uro, "to next week", timezone.now())

    assert slot == in_next_week


def test_a_typo_in_a_specialization_of_several_words_still_finds_the_appointment(alice):
    ent = _booked(alice, "ent", "Dr. Liam Byrne", 3, 10, synonyms=["ear nose and throat doctor"])
    _booked(alice, "urologist", "Dr. Ida Berg", 4, 9)

    found = desk.choose(
        list(Appointment.objects.filter(user=alice).order_by("slot__starts_at")),
        "my ear nosr and throat doctor appointment",
        dt.date.today(),
    )

    assert found == [ent]


def test_a_later_date_is_a_day_after_the_appointments_own(alice, two_appointments):
    uro, _gp = two_appointments
    SlotFactory(specialist=uro.specialist, starts_at=local_day_at(2, 14))  # the same day, later
    next_day = SlotFactory(specialist=uro.specialist, starts_at=local_day_at(3, 10))

    from django.utils import timezone

    found = desk.read("please postpone my appointment tomorrow to a later date")
    assert (found.kind, found.when) == (desk.RESCHEDULE, "to a later date")
    slot, _offers, _said = desk.new_slot(uro, found.when, timezone.now())

    assert slot == next_day


def test_a_weekday_named_on_that_day_with_nothing_free_left_is_the_coming_one(alice, two_appointments):
    from django.utils import timezone

    uro, _gp = two_appointments
    today = local_day_at(0, 12)
    in_a_week = SlotFactory(specialist=uro.specialist, starts_at=local_day_at(7, 10))
    weekday = today.strftime("%A").lower()

    slot, _offers, said = desk.new_slot(uro, f"to on {weekday}", timezone.now())

    assert slot == in_a_week and said.day == in_a_week.starts_at.astimezone(today.tzinfo).date()


@pytest.mark.parametrize(
    "words", ["i need to cancel my grandmother's doctor appointment", "reschedule my son's doctor appointment please"]
)
def test_a_relatives_doctor_appointment_names_no_doctor(alice, two_appointments, words):
    """The family uses the patient's account: "my son's doctor appointment" is one of its appointments,
    not one with a doctor called "appointment"."""
    today = local_day_at(0, 12).date()
    assert desk.choose(list(two_appointments), words, today) == list(two_appointments)
    assert desk.choose(list(two_appointments), "cancel my appointment with doctor berg", today) == [two_appointments[0]]


def test_a_surname_with_a_double_letter_is_not_read_as_a_typo(alice, two_appointments):
    lott = _booked(alice, "dermatologist", "Dr. Anna Lott", 3, 10)
    today = local_day_at(0, 12).date()
    assert desk.choose([*two_appointments, lott], "cancel my appointment with dr lott", today) == [lott]


@pytest.mark.parametrize(
    ("words", "field"), [("pls cancel my derm appt", "dermatologist"), ("move the uro one", "urologist")]
)
def test_a_clinics_short_form_names_the_appointment(alice, two_appointments, words, field):
    derm = _booked(alice, "dermatologist", "Dr. Anna Lott", 3, 10)
    uro, _gp = two_appointments
    today = local_day_at(0, 12).date()
    assert desk.choose([*two_appointments, derm], words, today) == [derm if field == "dermatologist" else uro]


def test_cancel_my_derm_appt_cancels_the_dermatologist_only_after_yes(alice, two_appointments):
    derm = _booked(alice, "dermatologist", "Dr. Anna Lott", 3, 10)
    backend = harmful_model()

    conversation = start_chat(alice, "pls cancel my derm appt", backend=backend)

    question = pending_question(conversation)
    assert "Dr. Anna Lott" in question and "Dr. Ida Berg" not in question
    conversation = post_user_message(conversation.pk, alice, "yes", backend=backend)

    assert backend.calls == []
    assert sorted(Appointment.objects.filter(user=alice).values_list("state", flat=True)) == [
        "cancelled", "confirmed", "confirmed",
    ]  # fmt: skip
    derm.refresh_from_db()
    assert derm.state == "cancelled"
