"""Chat answers that make records store only what the user said (the safety rule "nothing the user
did not say is stored or scheduled"). Through the chat API, with the model's output scripted:
the scripted model invents what a small model invents, and the tools keep it out."""

from __future__ import annotations

import datetime as dt
import itertools

import pytest
from django.utils import timezone

from agents.tools import said
from health.models import Medication, SymptomRecord
from tests.agents.helpers import BERLIN, call, end, plan


def chat(api, text: str, capture) -> int:
    with capture(execute=True):
        response = api.post("/api/conversations/", {"text": text}, format="json")
    assert response.status_code == 201
    return response.data["id"]


def tool_outcomes(conversation_id: int, tool: str) -> list[dict]:
    from agents.models import Conversation

    conversation = Conversation.objects.get(pk=conversation_id)
    steps = [step.to_state() for step in conversation.steps.order_by("index")]
    return [
        after["value"]
        for before, after in itertools.pairwise(steps)
        if before["from"] == "caller" and before["value"].get("tool") == tool and after["from"] == "observation"
    ]


@pytest.fixture
def remind(alice, alice_api, scripted_backend, django_capture_on_commit_callbacks):
    """Chat ``text``; the scripted model sets a reminder with ``parameters``, the user says yes to
    the proposal (when there is one), then the model ends."""

    def run(text: str, **parameters) -> dict:
        scripted_backend(
            planner=[plan("The user wants a reminder.", "Set the reminder."), end()],
            caller=[call("set_medication_reminder", user_id=str(alice.pk), **parameters)],
        )
        conversation_id = chat(alice_api, text, django_capture_on_commit_callbacks)
        if alice_api.get(f"/api/conversations/{conversation_id}/").data["status"] == "waiting_input":
            assert not Medication.objects.filter(user=alice).exists()  # proposed, not yet stored
            with django_capture_on_commit_callbacks(execute=True):
                response = alice_api.post(
                    f"/api/conversations/{conversation_id}/messages/", {"text": "Yes."}, format="json"
                )
            assert response.status_code in (200, 201, 202), response.data
        return tool_outcomes(conversation_id, "set_medication_reminder")[-1]

    return run


def test_a_chat_reminder_keeps_no_invented_dose_and_twice_a_day_is_two_default_times(alice, remind):
    outcome = remind(
        "Remind me to take metformin twice a day",
        medicine_name="Metformin",
        times=["08:00", "14:00", "20:00"],
        dose="200mg",
    )

    medication = Medication.objects.get(user=alice)
    assert (medication.name, medication.dose, medication.times_per_day) == ("Metformin", "", 2)
    assert medication.clock_times == ["08:00", "20:00"] and medication.default_times
    assert [f"{r.time_of_day:%H:%M}" for r in medication.reminders.filter(enabled=True)] == ["08:00", "20:00"]
    result = outcome["result"]
    assert (result["dose"], result["reminder_times"], result["default_times"]) == (None, ["08:00", "20:00"], True)
    # What the user reads is rendered from the stored rows, with where to change it.
    message = result["message"]
    assert message.startswith("Metformin, 2 times a day at 08:00 and 20:00.")
    assert "default times" in message and "No dose is set" in message
    assert "Change it here: /medications/" in message
    assert "200" not in message


def test_clock_times_and_a_dose_the_user_said_are_kept(alice, remind):
    outcome = remind(
        "Please remind me to take metformin 500 mg, 1 tablet at 9am and 9pm after meals for 7 days",
        medicine_name="Metformin 500 mg",
        times=["08:00", "20:00"],
        dose="1 tablet",
        duration_days=5,
        food_timing="after",
    )

    medication = Medication.objects.get(user=alice)
    assert (medication.name, medication.strength, medication.dose, medication.clock_times) == (
        "Metformin",
        "500 mg",
        "1 tablet",
        ["09:00", "21:00"],
    )
    assert (medication.default_times, medication.duration_days, medication.food_timing) == (False, 7, "after")
    assert "default" not in outcome["result"]["message"]
    assert outcome["result"]["message"].startswith("Metformin 500 mg, 1 tablet, 2 times a day at 09:00 and 21:00")


def test_twice_a_day_after_meals_for_30_days_goes_into_the_schedule_that_fires(alice, remind):
    outcome = remind(
        "remind me to take metformin 500 mg twice a day after meals for 30 days",
        medicine_name="Metformin 500 mg",
        times=["08:00", "20:00"],
        duration_days=30,
        food_timing="after",
    )

    medication = Medication.objects.get(user=alice)
    assert (medication.name, medication.strength, medication.dose) == ("Metformin", "500 mg", "")
    assert (medication.times_per_day, medication.clock_times, medication.default_times) == (2, ["08:00", "20:00"], True)
    assert (medication.food_timing, medication.duration_days) == ("after", 30)
    assert medication.end_date - medication.start_date == dt.timedelta(days=29)
    assert [(f"{r.time_of_day:%H:%M}", r.enabled) for r in medication.reminders.all()] == [
        ("08:00", True),
        ("20:00", True),
    ]
    assert outcome["result"]["message"].startswith("Metformin 500 mg, 2 times a day at 08:00 and 20:00, after food")
    assert "default times" in outcome["result"]["message"]


def test_a_strength_the_user_did_not_say_is_not_stored(alice, remind):
    remind("remind me to take metformin twice a day", medicine_name="Metformin 850 mg", times=["08:00", "20:00"])

    assert Medication.objects.values_list("name", "strength").get() == ("Metformin", "")


@pytest.mark.parametrize(
    ("text", "times"),
    [
        ("metformin 500 mg BD", ["08:00", "20:00"]),
        ("amoxicillin every 8 hours", ["06:00", "14:00", "22:00"]),
        ("take my sertraline at bedtime", ["21:00"]),
        ("remind me about lisinopril at 7:30", ["07:30"]),
    ],
)
def test_the_schedule_comes_from_the_user_s_words(alice, remind, text, times):
    medicine = next(word for word in text.split() if word in ("metformin", "amoxicillin", "sertraline", "lisinopril"))
    remind(text, medicine_name=medicine.title(), times=["10:00"])
    assert Medication.objects.get(user=alice).clock_times == times


def test_a_reminder_with_no_schedule_asks_instead_of_inventing_one(alice, remind):
    outcome = remind("Remind me to take metformin", medicine_name="Metformin", times=["08:00"])

    assert "did not say how often" in outcome["error"]
    assert not Medication.objects.filter(user=alice).exists()


def test_a_medicine_the_user_did_not_name_is_refused(alice, remind):
    outcome = remind("remind me to take my pills twice a day", medicine_name="Aspirin", times=["08:00", "20:00"])

    assert "did not name the medicine" in outcome["error"]
    assert not Medication.objects.filter(user=alice).exists()


def test_changing_the_times_through_the_api_moves_the_reminders_and_clears_the_default_flag(alice, alice_api, remind):
    remind("Remind me to take metformin twice a day", medicine_name="Metformin", times=["08:00", "20:00"])
    medication = Medication.objects.get(user=alice)

    response = alice_api.patch(f"/api/medications/{medication.pk}/", {"clock_times": ["07:00", "19:00"]}, format="json")

    assert response.status_code == 200 and response.data["default_times"] is False
    assert [f"{r.time_of_day:%H:%M}" for r in medication.reminders.filter(enabled=True)] == ["07:00", "19:00"]


# --- symptoms ----------------------------------------------------------------------------------


@pytest.fixture
def store(alice, alice_api, scripted_backend, django_capture_on_commit_callbacks):
    """Chat ``text``; the scripted model stores ``symptoms``, then ends."""

    def run(text: str, symptoms: str) -> dict:
        scripted_backend(
            planner=[plan("Symptoms reported.", "Store the symptoms."), end()],
            caller=[call("store_symptoms", user_id=str(alice.pk), symptoms=symptoms, timestamp="2026-03-01T10:00:00")],
        )
        conversation_id = chat(alice_api, text, django_capture_on_commit_callbacks)
        return tool_outcomes(conversation_id, "store_symptoms")[0]

    return run


@pytest.mark.parametrize(
    ("text", "symptoms"),
    [
        ("my vitals looked odd today", "symptoms"),
        ("my vitals looked odd today", "vitals"),
        ("my blood pressure readings this week were odd", "high blood pressure readings"),
        ("I want to lose weight", "weight loss"),
        ("I want to lose weight", "lose weight"),
    ],
)
def test_a_question_or_request_creates_no_symptom_record(alice, store, text, symptoms):
    outcome = store(text, symptoms)

    assert "error" in outcome
    assert not SymptomRecord.objects.filter(user=alice).exists()


def test_symptoms_the_user_did_not_say_are_not_stored(alice, store):
    outcome = store("I have a headache and a cough", "headache, cough, fever")

    assert outcome == {"result": True}
    assert SymptomRecord.objects.get(user=alice).symptoms == ["headache", "cough"]


def test_when_none_of_the_model_s_symptoms_was_said_the_user_s_own_are_stored(alice, store):
    outcome = store("I have a headache and my tummy hurts", "chest pain, shortness of breath")

    assert outcome == {"result": True}
    assert SymptomRecord.objects.get(user=alice).symptoms == ["headache", "abdominal pain"]


def test_a_complaint_without_a_bank_symptom_is_stored_as_the_user_wrote_it(alice, store):
    outcome = store("I feel awful and my knee is swollen", "chest pain, shortness of breath")

    assert outcome == {"result": True}
    assert SymptomRecord.objects.get(user=alice).symptoms == ["I feel awful", "my knee is swollen"]


def test_the_user_s_own_words_leave_out_questions_and_what_they_said_of_their_diary(alice, store):
    text = "I feel exhausted and my knee is swollen. It's been a month. Can you help? I'm free on Monday, 10:00-16:00."

    outcome = store(text, "muscle cramps, fever")

    assert outcome == {"result": True}
    assert SymptomRecord.objects.get(user=alice).symptoms == ["fatigue", "my knee is swollen"]


def test_a_negative_phrase_is_one_sentence_s_not_a_no_said_elsewhere():
    # "I don't feel like eating" says loss of appetite; "I eat junk food" and a later "No, nothing
    # else." do not.
    assert said.symptoms_in("I don't feel like eating") == ["loss of appetite"]
    answered = "I feel exhausted and I eat a lot of junk food.\nNo, nothing else."
    assert "loss of appetite" not in said.symptoms_in(answered)
    assert not said.symptom_said("loss of appetite", "I feel like eating cake. No, nothing else.")


def test_symptoms_none_of_whose_words_the_user_said_are_refused_when_no_clause_can_be_kept(alice, store):
    # One clause too long to store as a symptom, naming no symptom of the bank.
    text = "I have been feeling awful for weeks now ever since we moved into the new flat in town by the river"
    outcome = store(text, "chest pain, shortness of breath")

    assert "did not say" in outcome["error"]
    assert not SymptomRecord.objects.filter(user=alice).exists()


def test_lay_words_and_typos_still_name_the_symptom_but_an_added_one_is_dropped(alice, store):
    store("I've been burning up since yesterday and I have jont pain", "fever, joint pain, chest pain")

    assert SymptomRecord.objects.get(user=alice).symptoms == ["fever", "joint pain"]


# --- the rules ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "times", "defaults"),
    [
        ("twice a day", ["08:00", "20:00"], True),
        ("2 times daily", ["08:00", "20:00"], True),
        ("b.i.d.", ["08:00", "20:00"], True),
        ("TDS", ["08:00", "14:00", "20:00"], True),
        ("four times a day", ["08:00", "12:00", "16:00", "20:00"], True),
        ("every 12 hours", ["08:00", "20:00"], True),
        ("once daily in the morning", ["08:00"], True),
        ("at 9 and 21", ["09:00", "21:00"], False),
        ("at 7, 13 and 19", ["07:00", "13:00", "19:00"], False),
        ("at 08:00 and 20:30", ["08:00", "20:30"], False),
        ("500 mg at 8pm", ["20:00"], False),
    ],
)
def test_schedules_are_read_from_the_user_s_words(text, times, defaults):
    found = said.schedule(text)
    assert [f"{t:%H:%M}" for t in found.times] == times and found.defaults is defaults


@pytest.mark.parametrize("text", ["remind me to take metformin", "3 times a week", "take 2 tablets"])
def test_no_daily_schedule_is_read_where_the_user_gave_none(text):
    assert said.schedule(text) is None


def test_a_count_that_contradicts_the_clock_times_is_a_conflict():
    with pytest.raises(said.ScheduleConflict):
        said.schedule("three times a day at 8 and 20")


@pytest.mark.parametrize(
    ("dose", "text", "kept"),
    [
        ("200mg", "metformin twice a day", False),
        ("1 tablet", "metformin 1 tablet twice a day", True),
        ("2 tablets", "two tablets at night", True),
        ("0.5 tablet", "half a tablet at night", True),
        ("1 tablet", "metformin twice a day", False),
    ],
)
def test_a_dose_is_kept_only_when_the_user_gave_its_number_and_unit(dose, text, kept):
    assert said.dose_said(dose, text) is kept


def test_durations_are_read_in_days():
    assert [said.duration_days(t) for t in ("for 7 days", "for two weeks", "for a month", "daily")] == [
        7,
        14,
        30,
        None,
    ]


def test_the_start_day_is_today_unless_the_user_said_tomorrow(alice, remind):
    remind(
        "Remind me to take metformin twice a day", medicine_name="Metformin", times=["08:00"], start_date="2031-01-01"
    )
    assert Medication.objects.get(user=alice).start_date == timezone.now().astimezone(BERLIN).date()


@pytest.mark.parametrize("times", [["9am"], ["set_medication_reminder_time"], []])
def test_the_model_s_malformed_times_are_not_used_the_user_s_words_are(alice, remind, times):
    """The model wrote "9am" (or a placeholder) for "at 9am": the times come from the user's words,
    so the call is not refused over them (it was, until the step limit)."""
    outcome = remind(
        "Can you remind me to take my paracetamol at 9am?", medicine_name="Paracetamol", times=times, start_date="soon"
    )

    assert "error" not in outcome, outcome
    assert Medication.objects.get(user=alice).clock_times == ["09:00"]


@pytest.mark.parametrize(
    "name, text, kept",
    [
        ("Vitamin D@12:00", "remind me to take vitamin d at night", "Vitamin D"),  # a time glued on by a model
        ("Metformin 200mg", "remind me to take metformin", "Metformin"),  # a strength nobody said
        ("Metformin 500 mg", "metformin 500 mg twice a day", "Metformin 500 mg"),
        ("Ibuprofen/Paracetamol", "take ibuprofen/paracetamol at 8am", "Ibuprofen/Paracetamol"),
        ("Warfarin", "remind me to take my pills", ""),
    ],
)
def test_a_medicine_name_keeps_only_what_the_user_said(name, text, kept):
    assert said.name_said(name, text) == kept
