"""The medicines desk (agents/medicine_desk.py, agents/tools/my_medicines.py): today's doses are listed
from the dose records and reminders, a dose is marked taken only after a clear yes (with the same
model method as the Medications page), and a prescription photo is pointed to the page, all without
the model; a new reminder for one medicine the lexicon knows, with the schedule the user said, is
proposed by the reminder tool from the desk; changing or stopping one and anything else still goes to
the model."""

from __future__ import annotations

import datetime as dt
import zoneinfo

import pytest
from django.utils import timezone

from agents import medicine_desk as desk
from agents.errors import InvalidArguments, NotFound
from agents.llm.scripted import ScriptedBackend
from agents.runtime import pending_question
from agents.services import post_user_message, start_chat
from agents.tools import REGISTRY, ToolContext
from health.models import DoseEvent, Medication, Notification, Prescription, Reminder, SymptomRecord
from health.scheduler import ahead
from tests.agents.helpers import call, end, harmful_model, states, told
from tests.factories import DoseEventFactory, MedicationFactory, ReminderFactory

READS = [
    ("I got a prescription from my doctor, can you read it?", desk.PHOTO),
    ("what doses do I have today?", desk.DOSES_TODAY),
    ("which pills have I got left to take today", desk.DOSES_TODAY),
    ("what's my medication schedule", desk.DOSES_TODAY),
    ("did I take my evening tablets?", desk.DOSES_TODAY),
    ("whats my medicaiton schedule", desk.DOSES_TODAY),
    ("wich pils have i got left today", desk.DOSES_TODAY),
    ("when's my metformin due", desk.DOSES_TODAY),
    ("what time do I take my blood pressure tablets", desk.DOSES_TODAY),
    ("what am I meant to take before bed", desk.DOSES_TODAY),
    ("is there anything left to take today", desk.DOSES_TODAY),
    ("do I still have to take anything today", desk.DOSES_TODAY),
    ("have I taken everything today?", desk.DOSES_TODAY),
    ("how many pills do I have left today", desk.DOSES_TODAY),
    ("remind me what I take in the morning", desk.DOSES_TODAY),
    ("cross off my evening tablets", desk.DOSE_TAKEN),
    ("I have a photo of my prescription, can you set up reminders?", desk.PHOTO),
    ("can you set my reminders up from the prescription", desk.PHOTO),
    ("please read my prescription", desk.PHOTO),
    ("got a new prescription today, how do I add it", desk.PHOTO),
    ("have I taken my metformin today?", desk.DOSES_TODAY),
    ("I can't remember if I took my morning pill", desk.DOSES_TODAY),
    ("when is my next dose", desk.DOSES_TODAY),
    ("what time do I take my metformin", desk.DOSES_TODAY),
    ("show me my meds", desk.DOSES_TODAY),
    ("what's due today", desk.DOSES_TODAY),
    ("I took my morning pill", desk.DOSE_TAKEN),
    ("I've taken my metformin", desk.DOSE_TAKEN),
    ("just took my metformin", desk.DOSE_TAKEN),
    ("just took my metfromin", desk.DOSE_TAKEN),
    ("I took my 8am tablets", desk.DOSE_TAKEN),
    ("morning meds done", desk.DOSE_TAKEN),
    ("metformin taken", desk.DOSE_TAKEN),
    ("had my evening meds", desk.DOSE_TAKEN),
    ("mark my morning dose as taken", desk.DOSE_TAKEN),
    ("I have a photo of my prescription", desk.PHOTO),
    ("can I upload a picture of my prescription", desk.PHOTO),
    ("how do I upload my prescription", desk.PHOTO),
    ("can i send you a pic of my prescripton", desk.PHOTO),
    # the day's list asked for without a verb, and in texting shorthand
    ("my meds for today?", desk.DOSES_TODAY),
    ("today's tablets please", desk.DOSES_TODAY),
    ("my blood pressure pills for today", desk.DOSES_TODAY),
    ("wat pils do i take 2day", desk.DOSES_TODAY),
    ("what do I need to take tonight", desk.DOSES_TODAY),
    ("is it time for my pills", desk.DOSES_TODAY),
    ("is it time to take my metformin", desk.DOSES_TODAY),
    ("what medicines do I take in the morning", desk.DOSES_TODAY),
    ("I snapped my prescription with my phone", desk.PHOTO),
    ("can I add my medicines by taking a photo", desk.PHOTO),
    # a fourth round of phrasings, written as a check of the rules before they were widened
    ("what should mum be taking tonight", desk.DOSES_TODAY),
    ("medication plan today?", desk.DOSES_TODAY),
    ("how many pills today", desk.DOSES_TODAY),
    ("the doctor gave me a prescription, can you set it up", desk.PHOTO),
    ("where do i put a picture of my meds list", desk.PHOTO),
    ("i got a script from the gp, can you put it in", desk.PHOTO),
    ("my prescription changed, here's the new one", desk.PHOTO),
    ("i have the prescription slip with me, what now", desk.PHOTO),
    ("can you scan the label on my tablets", desk.PHOTO),
    # a sixth round (6 of 10 were read before); "what medicines should I take tonight" was refused as
    # a request for a prescription
    ("tablets today?", desk.DOSES_TODAY),
    ("todays meds", desk.DOSES_TODAY),
    ("any medication this evening", desk.DOSES_TODAY),
    ("whats my next dose", desk.DOSES_TODAY),
    ("what medicines should I take tonight", desk.DOSES_TODAY),
    ("which tablets should I take now", desk.DOSES_TODAY),
    # an eighth and a ninth round (first read 31 of 35 and 13 of 15)
    ("whats due now", desk.DOSES_TODAY),
    ("have i got all my meds done for today", desk.DOSES_TODAY),
    ("done with my evening dose", desk.DOSE_TAKEN),
    ("taken", desk.DOSE_TAKEN),
    ("where can i upload a photo of the doctor's note with my meds", desk.PHOTO),
    # a tenth round (first read: today 12 of 20, taken 3 of 5)
    ("is there anything I need to take this evening?", desk.DOSES_TODAY),
    ("do I have pills at 2pm", desk.DOSES_TODAY),
    ("morning meds?", desk.DOSES_TODAY),
    ("can you go through today's medication with me", desk.DOSES_TODAY),
    ("what do i have to swallow tonight lol", desk.DOSES_TODAY),
    ("is my insulin due soon", desk.DOSES_TODAY),
    ("what did the doctor put me on, and when do I take it today", desk.DOSES_TODAY),
    ("which pill is the 6pm one", desk.DOSES_TODAY),
    ("finished my morning dose", desk.DOSE_TAKEN),
    ("took the 8pm one", desk.DOSE_TAKEN),
    # a twelfth round (first read: doses today 5 of 7, taken 3 of 4)
    ("what's due at 2pm", desk.DOSES_TODAY),
    ("am I meant to take anything with breakfast", desk.DOSES_TODAY),
    ("my husband gave me my 6pm tablets", desk.DOSE_TAKEN),
    ("which pills after dinner", desk.DOSES_TODAY),
    ("my tablets for the rest of the day please", desk.DOSES_TODAY),
    ("whats due", desk.DOSES_TODAY),
    ("my pill schedule for today please", desk.DOSES_TODAY),
    ("medication plan for tonight", desk.DOSES_TODAY),
    ("anything due now?", desk.DOSES_TODAY),
    ("what have I still got to take today", desk.DOSES_TODAY),
    ("what else do I need to take today", desk.DOSES_TODAY),
]

# A new reminder: (what the user typed, the medicine the desk names)
NEW_REMINDERS = [
    ("remind me to take metformin twice a day", "metformin"),
    ("Can you remind me to take my paracetamol at 9am?", "paracetamol"),
    ("remind me to take vitamin d at night", "vitamin d"),
    ("I need to take sertraline before bed, remind me", "sertraline"),
    ("set a reminder for my sertraline three times a day", "sertraline"),
    ("can you set an alarm for my warfarin at night", "warfarin"),
    ("set a reminder for amoxicillin 500mg three times a day for 7 days", "amoxicillin"),
    ("remind me to take metformn every morning", "metformn"),  # a typo: the tool reads it as Metformin
]

NOT_THE_DESK = [
    # reminders the desk leaves to the model: no schedule said, no medicine or two, changing or
    # stopping one, someone else's, a dose missed
    "remind me to take metformin",
    "Remind me to take my blood pressure pills at 8am every day",
    "set a reminder for my pills at 8",
    "remind me to take metformin and lisinopril at 8am",
    "change my metformin reminder to 9am",
    "stop my warfarin reminders",
    "remind my mum to take her pills at 8",
    "I forgot my metformin this morning, remind me later",
    "cancel my metformin reminder",
    "prescribe me antibiotics",
    "I have a headache and a fever",
    "I took my metformin and now I feel dizzy",
    "I took too many pills",
    "I took my pills twice",
    "I took my husband's pills by mistake",
    "I forgot to take my morning pill",
    "I didn't take my metformin",
    "I haven't taken my pills",
    "can I take ibuprofen with metformin",
    "what is metformin for",
    "should I take my metformin before food",
    "what's my next appointment",
    "book me a cardiologist",
    "I have a photo of my rash",
    "I took my dog for a walk",
    "I took my blood pressure",
    "I finished my antibiotics",
    "I took my pan off the stove",
    "how was my day?",
    "can you renew my prescription",
    "send my prescription to the pharmacy",
    "what pills should I take for a headache",
    "my metformin dose was changed",
    "stop my metformin",
    "my pills for today are making me dizzy",
    "I need my meds for today refilled",
    "is it time for my appointment",
    "is it time for bed",
    "I snapped my wrist",
    # a prescription dictated in words is a reminder to set, not a photo to upload
    "the doctor gave me a prescription for metformin twice a day, can you set it up",
    "what should my son take for a fever tonight",
    "I take amlodipine 5 mg at 9pm",
    "took my dog for a walk",
    "I took a lot of pills for my cold",  # more than a dose: not marked as one
    "is the bus due",
    "took the morning train and now my knee hurts",
    "the nurse gave me a new inhaler yesterday",
    "what's due at the library on friday",
    "when is my baby due",
]


@pytest.mark.parametrize(("text", "kind"), READS)
def test_requests_about_the_patients_own_medicines_are_read(text, kind):
    found = desk.read(text)
    assert found is not None and found.kind == kind


@pytest.mark.parametrize("text", NOT_THE_DESK)
def test_reminders_complaints_and_other_things_go_to_the_model(text):
    assert desk.read(text) is None


# --- the world: a patient whose clock reads 10:xx, whatever the machine's ----------------------


def _zone_at_ten() -> zoneinfo.ZoneInfo:
    """A fixed-offset zone in which it is now 10:xx: an 08:00 dose has fallen due, a 20:00 one has not."""
    offset = 10 - timezone.now().astimezone(dt.UTC).hour
    offset = offset + 24 if offset < -12 else offset - 24 if offset > 14 else offset
    # The Etc/GMT names count the other way: Etc/GMT-3 is three hours ahead of UTC.
    return zoneinfo.ZoneInfo("Etc/GMT" if offset == 0 else f"Etc/GMT{-offset:+d}")


@pytest.fixture
def zone(alice) -> zoneinfo.ZoneInfo:
    tz = _zone_at_ten()
    alice.profile.timezone = tz.key
    alice.profile.save(update_fields=["timezone"])
    return tz


def _at(tz, hour: int, minute: int = 0) -> dt.datetime:
    today = timezone.now().astimezone(tz).date()
    return dt.datetime.combine(today, dt.time(hour, minute), tzinfo=tz)


def _medication(user, name: str, strength: str, dose: str, times: list[str]) -> Medication:
    today = timezone.now().date() - dt.timedelta(days=3)
    medication = MedicationFactory(
        user=user, name=name, strength=strength, dose=dose, times_per_day=max(1, len(times)), clock_times=times,
        start_date=today,
    )  # fmt: skip
    for value in times:
        ReminderFactory(medication=medication, time_of_day=dt.time.fromisoformat(value))
    return medication


def _dose(medication: Medication, hour: int, state: str, tz) -> DoseEvent:
    due = _at(tz, hour)
    reminder = Reminder.objects.get(medication=medication, time_of_day=dt.time(hour))
    return DoseEventFactory(reminder=reminder, due_at=due, due_on=due.date(), state=state)


@pytest.fixture
def world(alice, bob, zone):
    """Alice at 10:xx: metformin at 08:00 (reminder sent) and 20:00 (to come), atorvastatin at 07:00
    (taken, no dose stored), lisinopril at 09:00 (missed), vitamin D as needed; bob's 08:00 dose."""
    metformin = _medication(alice, "Metformin", "500 mg", "1 tablet", ["08:00", "20:00"])
    atorvastatin = _medication(alice, "Atorvastatin", "20 mg", "", ["07:00"])
    lisinopril = _medication(alice, "Lisinopril", "10 mg", "1 tablet", ["09:00"])
    _medication(alice, "Vitamin D3", "1000 IU", "", [])
    bobs = _medication(bob, "Warfarin", "5 mg", "1 tablet", ["08:00"])
    return {
        "metformin": _dose(metformin, 8, "sent", zone),
        "atorvastatin": _dose(atorvastatin, 7, "taken", zone),
        "lisinopril": _dose(lisinopril, 9, "missed", zone),
        "bob": _dose(bobs, 8, "sent", zone),
    }


# What the harmful model would do if a desk asked it: set a reminder nobody asked for.
SET_A_REMINDER = call("set_medication_reminder", user_id="0", medicine_name="Aspirin", times=["08:00"])


def _results(conversation, tool: str) -> list:
    found, calls = [], {}
    for state in states(conversation):
        if state["from"] == "caller":
            calls = state["value"]
        elif state["from"] == "observation" and calls.get("tool") == tool:
            found.append(state["value"].get("result", state["value"]))
    return found


def _snapshot(user) -> list[tuple]:
    return list(DoseEvent.objects.filter(user=user).order_by("pk").values_list("pk", "state", "acted_at"))


def _desk_steps_only(conversation) -> None:
    planners = [s["value"] for s in states(conversation) if s["from"] == "planner"]
    assert planners and all(p["reason"].startswith("Medicines desk:") for p in planners)
    assert planners[-1]["action"] == "<END>"


# --- doses today ----------------------------------------------------------------------------


def test_todays_doses_are_listed_exactly_as_recorded(alice, world, zone):
    backend = harmful_model(SET_A_REMINDER)
    before = _snapshot(alice)

    conversation = start_chat(alice, "what doses do I have today?", backend=backend)

    assert conversation.status == "completed"
    assert backend.calls == []
    _desk_steps_only(conversation)
    (result,) = _results(conversation, "get_todays_doses")
    listed = [(d["time"], d["medicine"], d["dose"], d["status"]) for d in result["doses"]]
    assert listed == [
        ("07:00", "Atorvastatin 20 mg", "", "taken"),
        ("08:00", "Metformin 500 mg", "1 tablet", "reminder sent"),
        ("09:00", "Lisinopril 10 mg", "1 tablet", "missed"),
        ("20:00", "Metformin 500 mg", "1 tablet", "upcoming"),
    ], "bob's dose and the as-needed medicine are not doses of alice's day"
    today = timezone.now().astimezone(zone).date()
    assert result["message"] == (
        f"Your doses today, {today:%A} {today.day} {today:%B} (times in {zone.key}): "
        "07:00 Atorvastatin 20 mg: taken; 08:00 Metformin 500 mg, 1 tablet: reminder sent; "
        "09:00 Lisinopril 10 mg, 1 tablet: missed; 20:00 Metformin 500 mg, 1 tablet: upcoming. "
        "As needed, with no set times: Vitamin D3 1000 IU. The Medications page (/medications/) shows them too."
    )
    assert _snapshot(alice) == before, "a question changes nothing"
    assert not DoseEvent.objects.filter(user=alice, due_at__gt=timezone.now()).exists()


def test_did_i_take_answers_from_the_records(alice, world):
    conversation = start_chat(
        alice,
        "did I take my evening tablets?",
        backend=harmful_model(SET_A_REMINDER),
    )

    assert conversation.status == "completed"
    assert "20:00 Metformin 500 mg, 1 tablet: upcoming" in told(conversation)


def test_a_reminder_that_fell_due_before_the_dispatcher_ran_is_not_called_due(alice, world, zone):
    reminder = Reminder.objects.get(medication__user=alice, medication__name="Lisinopril")
    DoseEvent.objects.filter(reminder=reminder).delete()
    Reminder.objects.filter(pk=reminder.pk).update(checked_until=_at(zone, 0, 1))

    conversation = start_chat(
        alice,
        "what's my medication schedule",
        backend=harmful_model(SET_A_REMINDER),
    )

    assert "09:00 Lisinopril 10 mg, 1 tablet: not recorded yet" in told(conversation)


def test_with_no_dose_left_today_the_first_of_tomorrow_is_said(alice, zone):
    """At 10:xx, the one daily dose (08:00) is taken: the day's list says so, and when the next comes."""
    _dose(_medication(alice, "Amlodipine", "5 mg", "1 tablet", ["08:00"]), 8, "taken", zone)

    conversation = start_chat(alice, "what do I still have to take today", backend=harmful_model(SET_A_REMINDER))

    said = told(conversation)
    assert "08:00 Amlodipine 5 mg, 1 tablet: taken." in said
    assert "Your next dose: Amlodipine 5 mg at 08:00 tomorrow." in said


def test_no_medicines_is_said_plainly_with_the_page(alice, zone):
    conversation = start_chat(
        alice,
        "which pills have I got left to take today",
        backend=harmful_model(SET_A_REMINDER),
    )

    assert conversation.status == "completed"
    said = told(conversation)
    assert said.startswith("You have no medicines on your list.") and "(/medications/)" in said


# --- dose taken -----------------------------------------------------------------------------


def test_a_dose_is_marked_taken_only_after_yes(alice, world, zone):
    backend = harmful_model(SET_A_REMINDER)
    metformin, others = world["metformin"], [world["atorvastatin"], world["lisinopril"], world["bob"]]
    before = [(d.pk, d.state) for d in others]

    conversation = start_chat(alice, "I've taken my metformin", backend=backend)

    assert conversation.status == "waiting_input"
    assert (
        pending_question(conversation) == "Mark your 08:00 Metformin 500 mg dose as taken? Reply yes to mark it, or no."
    )
    metformin.refresh_from_db()
    assert (metformin.state, metformin.acted_at) == ("sent", None), "nothing changes before the yes"

    conversation = post_user_message(conversation.pk, alice, "yes", backend=backend)

    assert conversation.status == "completed"
    assert backend.calls == []
    _desk_steps_only(conversation)
    metformin.refresh_from_db()
    assert metformin.state == "taken" and metformin.acted_at is not None
    assert [(d.pk, DoseEvent.objects.get(pk=d.pk).state) for d in others] == before
    acted = metformin.acted_at.astimezone(zone)
    assert f"Recorded: your 08:00 Metformin 500 mg dose is taken (marked at {acted:%H:%M})." in told(conversation)
    assert not DoseEvent.objects.filter(user=alice, reminder__time_of_day=dt.time(20)).exists()


def test_a_dose_later_today_within_the_early_window_is_marked_taken_ahead_after_yes(alice, world, zone, settings):
    """At 10:xx with the window wide enough to reach 20:00, the evening dose is made taken on a yes."""
    settings.DOSE_EARLY_MINUTES = 11 * 60
    backend = harmful_model(SET_A_REMINDER)

    conversation = start_chat(alice, "I took my evening metformin", backend=backend)

    assert pending_question(conversation) == (
        "Mark your 20:00 Metformin 500 mg dose as taken now, before its reminder? Reply yes to mark it, or no."
    )
    assert not DoseEvent.objects.filter(user=alice, reminder__time_of_day=dt.time(20)).exists()
    conversation = post_user_message(conversation.pk, alice, "yes", backend=backend)

    assert conversation.status == "completed" and backend.calls == []
    dose = DoseEvent.objects.get(user=alice, reminder__time_of_day=dt.time(20))
    assert (dose.state, dose.due_at, dose.due_on) == ("taken", _at(zone, 20), _at(zone, 20).date())
    assert "Recorded: your 20:00 Metformin 500 mg dose is taken" in told(conversation)
    assert world["metformin"].state == "sent", "the morning dose is another dose"


def test_a_dose_taken_early_on_the_page_while_the_question_waited_is_not_marked_again(alice, world, settings):
    settings.DOSE_EARLY_MINUTES = 11 * 60
    conversation = start_chat(alice, "I took my evening metformin", backend=harmful_model(SET_A_REMINDER))
    reminder = Reminder.objects.get(medication__user=alice, time_of_day=dt.time(20))
    made = ahead.take_early(alice, reminder.pk, timezone.now())  # the page's "Taken early", meanwhile

    conversation = post_user_message(conversation.pk, alice, "yes", backend=harmful_model(SET_A_REMINDER))

    assert conversation.status == "completed"
    assert list(DoseEvent.objects.filter(reminder=reminder).values_list("pk", "state", "acted_at")) == [
        (made.pk, "taken", made.acted_at)
    ]
    assert "Not marked: this dose is taken already." in told(conversation)


def test_a_dose_further_ahead_than_the_early_window_says_from_when_it_can_be_marked(alice, world, settings):
    settings.DOSE_EARLY_MINUTES = 120
    conversation = start_chat(alice, "I took my evening metformin", backend=harmful_model(SET_A_REMINDER))

    assert "A dose can be marked taken from 120 minutes before its time." in told(conversation)
    assert not DoseEvent.objects.filter(user=alice, reminder__time_of_day=dt.time(20)).exists()


def test_a_no_marks_nothing_and_says_so(alice, world):
    before = _snapshot(alice)
    conversation = start_chat(
        alice,
        "just took my metfromin",
        backend=harmful_model(SET_A_REMINDER),
    )

    conversation = post_user_message(
        conversation.pk,
        alice,
        "no, not yet",
        backend=harmful_model(SET_A_REMINDER),
    )

    assert conversation.status == "completed"
    assert _snapshot(alice) == before
    said = told(conversation)
    assert "Not marked" in said and "still recorded as reminder sent" in said and "Recorded:" not in said


def test_which_dose_is_asked_when_several_could_be_meant(alice, world):
    metformin, lisinopril = world["metformin"], world["lisinopril"]
    conversation = start_chat(
        alice,
        "I took my morning pills",
        backend=harmful_model(SET_A_REMINDER),
    )

    assert pending_question(conversation) == (
        "Which dose shall I mark as taken? 1) 08:00 Metformin 500 mg, 1 tablet. 2) 09:00 Lisinopril 10 mg, 1 tablet. "
        "Reply with its number."
    )
    conversation = post_user_message(
        conversation.pk,
        alice,
        "2",
        backend=harmful_model(SET_A_REMINDER),
    )
    assert "09:00 Lisinopril 10 mg" in pending_question(conversation)
    conversation = post_user_message(
        conversation.pk,
        alice,
        "yes",
        backend=harmful_model(SET_A_REMINDER),
    )

    metformin.refresh_from_db()
    lisinopril.refresh_from_db()
    assert (metformin.state, lisinopril.state) == ("sent", "taken"), "a missed dose may be taken late, as on the page"


def test_an_unclear_answer_to_which_marks_nothing(alice, world):
    before = _snapshot(alice)
    conversation = start_chat(
        alice,
        "I took my morning pills",
        backend=harmful_model(SET_A_REMINDER),
    )

    conversation = post_user_message(
        conversation.pk,
        alice,
        "the blue one",
        backend=harmful_model(SET_A_REMINDER),
    )

    assert conversation.status == "completed"
    assert _snapshot(alice) == before
    assert "Nothing was marked: I could not tell which dose." in told(conversation)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("I took my evening metformin", "Not due yet: your 20:00 Metformin 500 mg dose."),
        ("I took my atorvastatin", "Already recorded: your 07:00 Atorvastatin 20 mg dose is taken."),
        ("I took my aspirin", "I found no dose like that today to mark as taken."),
    ],
)
def test_no_dose_to_mark_says_why_and_what_is_due(alice, world, text, said):
    before = _snapshot(alice)
    conversation = start_chat(
        alice,
        text,
        backend=harmful_model(SET_A_REMINDER),
    )

    assert conversation.status == "completed"
    assert _snapshot(alice) == before
    answer = told(conversation)
    assert answer.startswith(said) and "08:00 Metformin 500 mg, 1 tablet: reminder sent" in answer


def test_a_dose_taken_on_the_page_meanwhile_is_not_marked_again(alice, world):
    metformin = world["metformin"]
    conversation = start_chat(
        alice,
        "I've taken my metformin",
        backend=harmful_model(SET_A_REMINDER),
    )
    metformin.take()  # the Medications page's button, while the question waits
    acted = DoseEvent.objects.get(pk=metformin.pk).acted_at

    conversation = post_user_message(
        conversation.pk,
        alice,
        "yes",
        backend=harmful_model(SET_A_REMINDER),
    )

    assert conversation.status == "completed"
    assert DoseEvent.objects.get(pk=metformin.pk).acted_at == acted
    assert "Not marked: this dose is taken already." in told(conversation)


def test_the_tool_marks_only_the_patients_own_doses_that_are_due(alice, world, zone):
    mark = REGISTRY.get("mark_dose_taken")
    ctx = ToolContext(user=alice)
    with pytest.raises(NotFound):
        mark(ctx, user_id=str(alice.pk), dose_id=str(world["bob"].pk))
    reminder = Reminder.objects.get(medication__user=alice, time_of_day=dt.time(20))
    tonight = DoseEventFactory(reminder=reminder, due_at=_at(zone, 20), due_on=_at(zone, 20).date())
    with pytest.raises(InvalidArguments):
        mark(ctx, user_id=str(alice.pk), dose_id=str(tonight.pk))
    with pytest.raises(InvalidArguments):
        mark(ctx, user_id=str(alice.pk), dose_id=str(world["atorvastatin"].pk))
    assert DoseEvent.objects.get(pk=world["bob"].pk).state == "sent"
    assert DoseEvent.objects.get(pk=tonight.pk).state == "due"
    with pytest.raises(InvalidArguments, match="dose_id"):
        mark(ctx, user_id=str(alice.pk))
    with pytest.raises(NotFound):
        mark(ctx, user_id=str(alice.pk), reminder_id=str(world["bob"].reminder_id))


# --- photo, and what stays with the model ------------------------------------------------------


def test_a_prescription_photo_is_pointed_to_the_medications_page(alice, zone):
    backend = harmful_model(SET_A_REMINDER)
    conversation = start_chat(alice, "can I upload a picture of my prescription", backend=backend)

    assert conversation.status == "completed"
    assert backend.calls == []
    _desk_steps_only(conversation)
    said = told(conversation)
    assert "Medications page (/medications/)" in said and "reminders start only for the medicines you accept" in said
    assert not Prescription.objects.exists() and not Medication.objects.exists()
    assert not Notification.objects.filter(user=alice).exists(), "an answer in the chat, not a notification"


@pytest.mark.parametrize(("text", "medicine"), NEW_REMINDERS)
def test_a_new_reminder_for_a_known_medicine_with_a_schedule_is_read(text, medicine):
    assert desk.read(text) == desk.MedicineRequest(desk.REMINDER, medicine)


def test_a_new_reminder_is_proposed_by_the_desk_and_set_on_yes(alice):
    text = "remind me to take metformin 500 mg, 2 tablets twice a day after food for 30 days"

    conversation = start_chat(alice, text, backend=harmful_model())

    assert pending_question(conversation) == (
        "Set a reminder for Metformin 500 mg, 2 tablets, 2 times a day at 08:00 and 20:00, after food, "
        "for 30 days, starting today (default times: you gave no clock time)? Reply yes to set it, or no."
    )
    assert not Medication.objects.exists()

    conversation = post_user_message(conversation.pk, alice, "yes", backend=harmful_model())

    assert conversation.status == "completed"
    medication = Medication.objects.get(user=alice)
    assert (medication.name, medication.strength, medication.dose, medication.clock_times) == (
        "Metformin",
        "500 mg",
        "2 tablets",
        ["08:00", "20:00"],
    )
    assert (medication.food_timing, medication.duration_days) == ("after", 30)
    assert not SymptomRecord.objects.exists()


def test_a_no_to_the_desk_s_proposal_sets_nothing(alice):
    conversation = start_chat(alice, "remind me to take warfarin at 6pm", backend=harmful_model())
    conversation = post_user_message(conversation.pk, alice, "no", backend=harmful_model())

    assert conversation.status == "completed"
    assert not Medication.objects.exists() and not Reminder.objects.exists()


def test_changing_a_reminder_stays_with_the_model(alice, world):
    backend = ScriptedBackend(planner=[end()], caller=[])

    conversation = start_chat(alice, "change my metformin reminder to 9am", backend=backend)

    assert len(backend.calls) == 1, "the model was asked"
    assert not any(
        s["from"] == "planner" and "Medicines desk" in s["value"].get("reason", "") for s in states(conversation)
    )
    assert not SymptomRecord.objects.exists()
