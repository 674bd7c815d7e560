"""Tools on the real models, called through the registry with an injected context."""

from __future__ import annotations

import datetime as dt

import pytest

from agents.tools import REGISTRY, InvalidArguments, NotAuthorised, NotFound, ToolContext
from agents.tools.emergency import haversine_km
from agents.tools.health_data import split_strength
from health.models import Alert, DailyReport, Dispatch, Medication, OutboundMessage, Slot
from tests.agents.helpers import BERLIN
from tests.factories import (
    AlertFactory,
    AppointmentFactory,
    DailyReportFactory,
    DeviceFactory,
    SlotFactory,
    SpecialistFactory,
    SpecializationFactory,
    SymptomRecordFactory,
    VitalReadingFactory,
)


def run(tool: str, ctx: ToolContext, **parameters):
    REGISTRY.get(tool).validate(parameters)
    return REGISTRY.get(tool)(ctx, **parameters)


@pytest.fixture
def ctx(alice) -> ToolContext:
    return ToolContext(user=alice)


def test_haversine_gives_the_great_circle_distance():
    assert haversine_km(52.52, 13.405, 48.137, 11.575) == pytest.approx(504, abs=1)
    assert haversine_km(0, 0, 0, 180) == pytest.approx(20015, abs=1)


def test_specialists_are_searched_within_the_users_date_and_time_range(ctx, gp_slot, tomorrow_at_ten):
    later = SlotFactory(
        specialist=SpecialistFactory(name="Dr. Late", specialization=gp_slot.specialist.specialization),
        starts_at=tomorrow_at_ten + dt.timedelta(hours=5),
        ends_at=tomorrow_at_ten + dt.timedelta(hours=5, minutes=30),
    )
    schedule = {"date": f"{tomorrow_at_ten:%Y-%m-%d}", "time_range": "14:00-18:00"}

    found = run("get_available_specialists", ctx, symptoms="cough", specialization="GP", user_schedule=schedule)

    assert found == {
        "specialist_id": str(later.specialist_id),
        "name": "Dr. Late (General Physician)",
        "available_slot": {"date": f"{tomorrow_at_ten:%Y-%m-%d}", "time": "15:00-15:30"},
    }


def test_held_and_past_slots_are_not_offered(ctx, gp_slot, general_physician):
    AppointmentFactory(slot=gp_slot)
    past = dt.datetime.now(tz=BERLIN) - dt.timedelta(hours=2)
    SlotFactory(
        specialist=SpecialistFactory(specialization=general_physician),
        starts_at=past,
        ends_at=past + dt.timedelta(minutes=30),
    )

    with pytest.raises(NotFound, match="No general physician has a free slot"):
        run("get_available_specialists", ctx, symptoms="cough", specialization="general physician")


def test_a_search_offers_no_slot_that_starts_within_the_hour(ctx, general_physician):
    now = dt.datetime.now(tz=BERLIN).replace(second=0, microsecond=0)
    specialist = SpecialistFactory(specialization=general_physician)
    soon, later = now + dt.timedelta(minutes=20), now + dt.timedelta(hours=2)
    for start in (soon, later):
        SlotFactory(specialist=specialist, starts_at=start, ends_at=start + dt.timedelta(minutes=30))

    found = run("get_available_specialists", ctx, symptoms="cough", specialization="general physician")

    assert found["available_slot"] == {
        "date": f"{later:%Y-%m-%d}",
        "time": f"{later:%H:%M}-{later + dt.timedelta(minutes=30):%H:%M}",
    }


def test_a_search_takes_the_date_the_user_wrote_over_another_the_model_passed(alice, gp_slot, tomorrow_at_ten):
    said = f"Fever and a cough. I'm free on {tomorrow_at_ten:%Y-%m-%d}, 09:00-17:00."
    ctx = ToolContext(user=alice, conversation=_conversation_of(alice, {"from": "user", "value": said}))
    today = {"date": f"{tomorrow_at_ten - dt.timedelta(days=1):%Y-%m-%d}", "time_range": "09:00-17:00"}

    found = run("get_available_specialists", ctx, symptoms="fever", specialization="GP", user_schedule=today)

    assert found["available_slot"] == {"date": f"{tomorrow_at_ten:%Y-%m-%d}", "time": "10:00-10:30"}
    # Without a date in the user's words (or outside a conversation) the model's date stands.
    with pytest.raises(NotFound, match="free slot on"):
        run("get_available_specialists", ToolContext(user=alice), symptoms="fever", user_schedule=today)


def test_a_timestamp_the_model_copied_as_the_date_is_dropped_when_the_user_named_no_date(alice, gp_slot):
    said = "I worry about everything and I feel restless"
    ctx = ToolContext(user=alice, conversation=_conversation_of(alice, {"from": "user", "value": said}))
    copied = {"date": f"{dt.date.today():%Y-%m-%d}T20:18:10"}

    found = run("get_available_specialists", ctx, symptoms="restless", specialization="GP", user_schedule=copied)

    assert found["specialist_id"] == str(gp_slot.specialist_id)
    # Outside a conversation nothing says where it came from: it is refused as malformed.
    with pytest.raises(InvalidArguments, match="not in YYYY-MM-DD"):
        run("get_available_specialists", ToolContext(user=alice), symptoms="fever", user_schedule=copied)


def test_an_unknown_specialization_lists_the_known_ones(ctx, general_physician):
    with pytest.raises(NotFound, match="Known specializations: general physician"):
        run("get_available_specialists", ctx, symptoms="rash", specialization="wizard")


def test_past_complaints_match_by_symptom_words_within_the_date_range(ctx, alice, bob):
    SymptomRecordFactory(user=alice, text="mild body aches", recorded_at=dt.datetime(2024, 6, 2, 9, tzinfo=BERLIN))
    SymptomRecordFactory(user=alice, text="body ache again", recorded_at=dt.datetime(2025, 1, 5, 9, tzinfo=BERLIN))
    SymptomRecordFactory(user=alice, text="itchy eyes", recorded_at=dt.datetime(2024, 7, 1, 9, tzinfo=BERLIN))
    SymptomRecordFactory(user=bob, text="body aches", recorded_at=dt.datetime(2024, 6, 3, 9, tzinfo=BERLIN))

    found = run(
        "retrieve_past_complaints",
        ctx,
        user_id=str(alice.pk),
        symptoms="fever, body aches",
        date_range={"start_date": "2024-01-01", "end_date": "2024-12-31"},
    )

    assert found == [{"date": "2024-06-02", "symptoms": "mild body aches"}]


def test_the_location_prefers_the_alert_then_the_freshest_device_then_home(alice):
    assert run("get_location", ToolContext(user=alice)) == {"latitude": 52.52, "longitude": 13.405}
    device = DeviceFactory(user=alice)
    device.last_latitude, device.last_longitude = 50.0, 8.0
    device.save()
    assert run("get_location", ToolContext(user=alice)) == {"latitude": 50.0, "longitude": 8.0}
    alert = AlertFactory(user=alice, kind=Alert.Kind.HARD, latitude=1.5, longitude=2.5)
    assert run("get_location", ToolContext(user=alice, alert=alert)) == {"latitude": 1.5, "longitude": 2.5}


def test_an_unknown_location_is_reported(bob):
    bob.profile.home_latitude = bob.profile.home_longitude = None
    bob.profile.save()

    with pytest.raises(NotFound, match="location is unknown"):
        run("get_location", ToolContext(user=bob))


def test_the_nearest_available_ambulance_is_dispatched_once(alice, ambulances):
    alert = AlertFactory(user=alice, kind=Alert.Kind.HARD)
    other_alert = AlertFactory(kind=Alert.Kind.HARD)
    ctx = ToolContext(user=alice, alert=alert)
    berlin = {"latitude": 52.52, "longitude": 13.405}

    first = run("search_ambulance", ctx, location=berlin)
    again = run("search_ambulance", ctx, location=berlin)
    for_someone_else = run("search_ambulance", ToolContext(user=other_alert.user, alert=other_alert), location=berlin)

    assert first == again == {"ambulance_id": "AMB-NEAR", "phone_no": "+14155560001"}
    assert for_someone_else["ambulance_id"] == "AMB-FAR"  # the near one is taken, the busy one unavailable
    assert Dispatch.objects.filter(alert=alert).count() == 1
    assert alert.events.get(kind="ambulance_assigned").data == {"ambulance": "AMB-NEAR", "distance_km": 1.162}


def test_no_available_ambulance_is_reported(alice, db):
    alert = AlertFactory(user=alice, kind=Alert.Kind.HARD)

    with pytest.raises(NotFound, match="No ambulance is available"):
        run("search_ambulance", ToolContext(user=alice, alert=alert), location={"latitude": 0.0, "longitude": 0.0})


def test_a_patient_who_turned_sms_off_gets_no_messages_sent(alice, alice_contacts):
    alice.profile.sms_opt_in = False
    alice.profile.save()

    with pytest.raises(NotAuthorised, match="turned off SMS"):
        run("send_message", ToolContext(user=alice), text="hi", to_emergency_contacts=True)
    assert not OutboundMessage.objects.exists()


def test_a_message_needs_a_recipient(ctx):
    with pytest.raises(InvalidArguments, match="Give phone_no or set to_emergency_contacts"):
        run("send_message", ctx, text="hi")


def test_a_notification_needs_text(ctx, alice):
    with pytest.raises(InvalidArguments, match="needs the text"):
        run("notify_user", ctx, user_id=str(alice.pk))


def test_a_medication_reminder_creates_the_medication_and_one_reminder_per_time(ctx, alice):
    result = run(
        "set_medication_reminder",
        ctx,
        user_id=str(alice.pk),
        medicine_name="Amoxicillin 500 mg",
        times=["20:00", "08:00", "14:00"],
        dose="1 tablet",
        duration_days=5,
        food_timing="after",
        start_date="2026-03-01",
    )
    run(
        "set_medication_reminder",
        ctx,
        user_id=str(alice.pk),
        medicine_name="Amoxicillin 500 mg",
        times=["08:00", "14:00", "20:00"],
        start_date="2026-03-01",
    )

    assert (result["medicine"], result["reminder_times"]) == ("Amoxicillin 500 mg", ["08:00", "14:00", "20:00"])
    medication = Medication.objects.get(user=alice)
    assert (medication.times_per_day, medication.end_date, medication.food_timing) == (3, dt.date(2026, 3, 5), "after")
    assert [f"{r.time_of_day:%H:%M}" for r in medication.reminders.all()] == ["08:00", "14:00", "20:00"]


def test_a_chat_reminder_goes_into_the_schedule_with_the_strength_apart(ctx, alice):
    run(
        "set_medication_reminder",
        ctx,
        user_id=str(alice.pk),
        medicine_name="Amoxicillin 500mg",
        times=["08:00"],
        start_date="2026-03-01",
    )

    medication = Medication.objects.get(user=alice)
    assert (medication.name, medication.strength) == ("Amoxicillin", "500 mg")
    # The schedule's mark: dispatch owes no dose from before the reminder existed.
    assert medication.reminders.get().checked_until is not None


@pytest.mark.parametrize(
    ("written", "parts"),
    [
        ("Metformin 500 mg", ("Metformin", "500 mg")),
        ("Metformin  500MG", ("Metformin", "500 MG")),
        ("Amoxicillin 250 mg/5 ml", ("Amoxicillin", "250 mg/5ml")),
        ("Hydrocortisone cream 1%", ("Hydrocortisone cream", "1%")),
        ("Vitamin D3 60000 IU", ("Vitamin D3", "60000 IU")),
        ("Metformin", ("Metformin", "")),
        ("Dolo 650", ("Dolo 650", "")),
    ],
)
def test_the_strength_written_after_a_medicine_name_is_split_off(written, parts):
    assert split_strength(written) == parts


def test_a_malformed_reminder_time_is_refused(ctx, alice):
    with pytest.raises(InvalidArguments, match="not in HH:MM format"):
        run("set_medication_reminder", ctx, user_id=str(alice.pk), medicine_name="X", times=["8 am"])


def test_latest_vitals_take_each_metric_from_its_latest_reading(ctx, alice):
    device = DeviceFactory(user=alice)
    now = dt.datetime(2026, 3, 1, 12, tzinfo=BERLIN)
    VitalReadingFactory(device=device, measured_at=now, heart_rate=80, spo2=None)
    VitalReadingFactory(device=device, measured_at=now - dt.timedelta(hours=1), heart_rate=70, spo2=96.0)

    vitals = run("get_latest_vitals", ctx, user_id=str(alice.pk))

    assert (vitals["heart_rate"], vitals["spo2"]) == (80, 96.0)
    assert vitals["spo2_measured_at"] == "2026-03-01T11:00+01:00"


def test_a_stored_daily_report_is_found_by_date(ctx, alice):
    alice.date_joined = dt.datetime(2026, 2, 1, tzinfo=dt.UTC)
    alice.save()
    DailyReportFactory(user=alice, date=dt.date(2026, 3, 1), narrative="Quiet day.", metrics={"steps": 4200})
    DailyReportFactory(user=alice, date=dt.date(2026, 3, 2), narrative="Low oxygen at night.", anomalies=["spo2"])

    report = run("get_daily_report", ctx, user_id=str(alice.pk), date="2026-03-01")

    assert (report["summary"], report["steps"]) == ("Quiet day.", 4200)
    with pytest.raises(NotFound):
        run("get_daily_report", ctx, user_id=str(alice.pk), date="2020-01-01")  # before the account existed


def test_without_a_date_todays_report_is_built_from_what_is_recorded_so_far(alice):
    now = dt.datetime(2026, 3, 2, 18, 0, tzinfo=BERLIN)
    alice.date_joined = now - dt.timedelta(days=10)
    alice.save()
    device = DeviceFactory(user=alice)
    VitalReadingFactory(device=device, measured_at=now - dt.timedelta(hours=2), heart_rate=64, spo2=97.0, steps=120)
    VitalReadingFactory(device=device, measured_at=now - dt.timedelta(hours=1), heart_rate=80, spo2=95.0, steps=0)
    ctx = ToolContext(user=alice, clock=lambda: now)

    report = run("get_daily_report", ctx, user_id=str(alice.pk))

    assert report["date"] == "2026-03-02" and report["complete"] is False
    assert (report["heart_rate"]["min"], report["heart_rate"]["max"], report["steps"]) == (64, 80, 120)
    assert report["summary"].startswith("Up to 18:00. Heart rate 64\u201380 bpm")
    assert DailyReport.objects.filter(user=alice, date=dt.date(2026, 3, 2)).count() == 1
    with pytest.raises(InvalidArguments):
        run("get_daily_report", ctx, user_id=str(alice.pk), date="2026-03-03")


def test_appointment_history_lists_the_users_entries(ctx, alice, gp_slot):
    from agents.llm.scripted import ScriptedBackend
    from agents.services import start_chat
    from tests.agents.helpers import call, end, plan, slot_text

    when = slot_text(gp_slot)
    backend = ScriptedBackend(
        planner=[plan("a", "save"), end()],
        caller=[
            call(
                "save_appointment_history",
                user_id=str(alice.pk),
                symptoms="cough",
                specialist_id=str(gp_slot.specialist_id),
                appointment_time_date=when,
            )
        ],
    )
    start_chat(alice, "Remember my GP visit.", backend=backend)

    history = run("get_appointment_history", ctx, user_id=str(alice.pk))

    start = gp_slot.starts_at.astimezone(BERLIN)
    assert history == [
        {
            "date": f"{start:%Y-%m-%d}",
            "time": "10:00",
            "specialist": "Dr. Diego Arroyo",
            "specialization": "general physician",
            "symptoms": "cough",
        }
    ]


def test_a_preferred_time_of_day_is_found_beyond_the_first_days(ctx, general_physician, tomorrow_at_ten):
    specialist = SpecialistFactory(specialization=general_physician)
    # A month of daytime slots (more than one page of the scan), then one evening slot.
    morning = tomorrow_at_ten.replace(hour=6)
    daytime = [morning + dt.timedelta(days=day, minutes=30 * n) for day in range(30) for n in range(20)]
    Slot.objects.bulk_create(
        Slot(specialist=specialist, starts_at=t, ends_at=t + dt.timedelta(minutes=30)) for t in daytime
    )
    evening = tomorrow_at_ten + dt.timedelta(days=30, hours=9)
    SlotFactory(specialist=specialist, starts_at=evening, ends_at=evening + dt.timedelta(minutes=30))

    found = run("get_available_specialists", ctx, symptoms="cough", user_schedule={"time_range": "18:00-20:00"})

    assert found["available_slot"] == {"date": f"{evening:%Y-%m-%d}", "time": "19:00-19:30"}


def test_stored_symptoms_are_a_set_even_when_the_model_loops(ctx, alice):
    from health.models import SymptomRecord

    looping = "weight gain, muscle wasting, muscle wasting, Muscle wasting, unexplained unexplained tiredness"
    assert run("store_symptoms", ctx, user_id=str(alice.pk), symptoms=looping, timestamp="2026-11-20T10:00:00")
    record = SymptomRecord.objects.get(user=alice)
    assert record.symptoms == ["weight gain", "muscle wasting", "unexplained tiredness"]


def test_triage_reads_a_looping_symptom_list_as_the_clean_one(ctx):
    clean = run("match_specialization", ctx, symptoms="itchy rash, dry skin")
    looping = run("match_specialization", ctx, symptoms="itchy rash, dry skin, dry skin, dry skin dry skin, itchy rash")
    assert looping == clean
    assert clean["specializations"][0] == "dermatologist"


def _conversation_of(user, *states):
    from agents.trajectory import import_trajectory

    system = {"from": "system", "value": {"user_details": {"user_id": str(user.pk), "name": "A", "timestamp": ""}}}
    return import_trajectory(user, [system, *states])


def _asked(answer: str) -> list[dict]:
    return [
        {"from": "planner", "value": {"reason": "Too vague.", "action": "Ask about more symptoms."}},
        {"from": "caller", "value": {"tool": "get_input_from_user", "parameters": {"user_id": "1", "questions": "?"}}},
        {"from": "observation", "value": {"result": answer}},
    ]


def test_triage_follows_what_the_user_said_not_the_models_reading_of_it(alice):
    said = "hey i flush really easily and my eye is bright red"
    conversation = _conversation_of(alice, {"from": "user", "value": said})
    in_chat = ToolContext(user=alice, conversation=conversation)

    # A small model misread the message (seen in a scenario run): nobody said "urination".
    misread = run("match_specialization", in_chat, symptoms="frequent urination, watery eyes")
    faithful = run("match_specialization", in_chat, symptoms="facial flushing, red eye")

    assert misread == faithful
    # Both things said lead the ranking: the flushing (rosacea, a dermatologist's) and the red eye.
    assert set(faithful["specializations"][:2]) == {"dermatologist", "ophthalmologist"}
    assert "urologist" not in misread["specializations"]
    # Outside a conversation there is nothing else to go on: the list is the query.
    bare = run("match_specialization", ToolContext(user=alice), symptoms="frequent urination, watery eyes")
    assert bare["specializations"][0] == "urologist"


def test_triage_hears_the_answers_to_follow_up_questions_of_this_request_only(alice):
    conversation = _conversation_of(
        alice,
        {"from": "user", "value": "my knee has been swollen and stiff for weeks"},
        {"from": "planner", "value": {"reason": "Done.", "action": "<END>"}},
        {"from": "user", "value": "Something else now: I feel off and can't say why."},
        *_asked("my skin itches all over and I have an itchy red rash"),
    )

    matched = run("match_specialization", ToolContext(user=alice, conversation=conversation), symptoms="feeling off")

    assert matched["specializations"][0] == "dermatologist"
    assert "orthopedist" not in matched["specializations"]


def test_a_search_that_names_no_specialization_goes_to_the_conversations_triage_result(
    alice, general_physician, tomorrow_at_ten
):
    dermatology = SpecializationFactory(name="dermatologist")
    skin = SlotFactory(
        specialist=SpecialistFactory(name="Dr. Skin", specialization=dermatology),
        starts_at=tomorrow_at_ten,
        ends_at=tomorrow_at_ten + dt.timedelta(minutes=30),
    )
    SlotFactory(specialist=SpecialistFactory(specialization=general_physician), starts_at=tomorrow_at_ten)
    conversation = _conversation_of(
        alice,
        {"from": "user", "value": "itchy rash"},
        {"from": "caller", "value": {"tool": "match_specialization", "parameters": {"symptoms": "itchy rash"}}},
        {"from": "observation", "value": {"result": {"specializations": ["dermatologist", "allergist"]}}},
    )

    found = run("get_available_specialists", ToolContext(user=alice, conversation=conversation), symptoms="rash")
    default = run("get_available_specialists", ToolContext(user=alice), symptoms="rash")

    assert found["specialist_id"] == str(skin.specialist_id)
    assert default["name"].endswith("(General Physician)")
