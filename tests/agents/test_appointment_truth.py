"""What the assistant says about appointments is true, and the patient's wishes are honoured:
the day and part of the day they said filter the offered slots (and when none fits, the result
says so and carries the nearest free times); "Booked" is said only of a confirmed appointment;
a declined proposal books nothing. Runs through the runtime with a scripted model."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from agents.llm.scripted import ScriptedBackend
from agents.runtime import pending_question
from agents.services import post_user_message, start_chat
from health.models import Appointment, Notification
from tests.agents.helpers import BERLIN, call, end, observations, plan, slot_text
from tests.factories import SlotFactory, SpecialistFactory


def _day(days: int) -> dt.date:
    return (timezone.now().astimezone(BERLIN) + dt.timedelta(days=days)).date()


def _slot(specialist, day: dt.date, hour: int):
    start = dt.datetime.combine(day, dt.time(hour), tzinfo=BERLIN)
    return SlotFactory(specialist=specialist, starts_at=start, ends_at=start + dt.timedelta(minutes=30))


@pytest.fixture
def gp(general_physician):
    return SpecialistFactory(name="Dr. Diego Arroyo", specialization=general_physician)


def _search(**extra) -> str:
    return call("get_available_specialists", symptoms="sore throat", specialization="general physician", **extra)


def _search_only(alice, text: str):
    backend = ScriptedBackend(planner=[plan("Find a GP.", "Find a general physician."), end()], caller=[_search()])
    return observations(start_chat(alice, text, backend=backend))[0]["result"]


def test_a_named_day_and_afternoon_pick_that_afternoon_not_the_earliest_slot(alice, gp):
    morning = _slot(gp, _day(2), 9)
    wanted_day = _day(3)
    afternoon = _slot(gp, wanted_day, 15)
    _slot(gp, wanted_day, 9)

    result = _search_only(alice, f"I have a sore throat. Can I see a doctor on {wanted_day:%A} afternoon?")

    assert result["available_slot"] == {"date": f"{wanted_day:%Y-%m-%d}", "time": "15:00-15:30"}
    assert result["fits_preference"] is True
    assert result["preference"].startswith(f"{wanted_day:%A}")
    assert morning.appointments.count() == 0 and afternoon.appointments.count() == 0


def test_a_free_window_the_user_gave_finds_a_slot_inside_it(alice, gp):
    day = _day(3)
    nine = _slot(gp, day, 9)
    backend = ScriptedBackend(
        planner=[plan("Find a GP.", "Find a general physician."), end()],
        caller=[_search(user_schedule={"date": f"{day:%Y-%m-%d}", "time_range": "08:00-18:00"})],
    )

    conversation = start_chat(alice, f"I have a sore throat. I'm free on {day:%Y-%m-%d}, 08:00-18:00.", backend=backend)

    result = observations(conversation)[0]["result"]
    assert result["available_slot"] == {"date": f"{day:%Y-%m-%d}", "time": "09:00-09:30"}
    assert "fits_preference" not in result and "alternatives" not in result
    assert nine.appointments.count() == 0


def test_something_in_the_afternoon_as_an_answer_filters_the_next_search(alice, ref, gp):
    _slot(gp, _day(2), 9)
    afternoon = _slot(gp, _day(2), 14)
    backend = ScriptedBackend(
        planner=[
            plan("Find a GP.", "Find a general physician."),
            plan("One is free.", "Suggest it."),
            plan("The user wants another time.", "Search again."),
            end(),
        ],
        caller=[_search(), call("get_input_from_user", user_id=ref, questions="Book it?"), _search()],
    )
    conversation = start_chat(alice, "I have a sore throat.", backend=backend)

    conversation = post_user_message(conversation.pk, alice, "Something in the afternoon", backend=backend)

    first, _answer, second = observations(conversation)
    assert first["result"]["available_slot"]["time"] == "09:00-09:30"
    assert second["result"]["available_slot"] == {
        "date": f"{afternoon.starts_at.astimezone(BERLIN):%Y-%m-%d}",
        "time": "14:00-14:30",
    }
    assert second["result"]["fits_preference"] is True


def test_when_no_slot_fits_the_result_says_so_and_offers_the_nearest(alice, gp):
    wanted_day = _day(3)
    before, after = _slot(gp, _day(2), 9), _slot(gp, _day(4), 10)
    _slot(gp, wanted_day, 9)

    result = _search_only(alice, f"Could I book an appointment {wanted_day:%A} afternoon? My throat hurts.")

    assert result["fits_preference"] is False
    assert "No general physician is free" in result["note"]
    offered = [(a["date"], a["time"]) for a in result["alternatives"]]
    assert (f"{wanted_day:%Y-%m-%d}", "09:00-09:30") in offered
    assert len(offered) == 3
    assert {before.pk, after.pk} and result["available_slot"] == {"date": offered[0][0], "time": offered[0][1]}


def test_symptoms_and_greetings_about_the_morning_are_not_a_preference(alice, gp):
    _slot(gp, _day(2), 9)

    result = _search_only(alice, "Good afternoon. I throw up every morning since Monday.")

    assert "preference" not in result
    assert result["available_slot"]["time"] == "09:00-09:30"


def _booking_script(ref, slot, message: str, *, ask: bool) -> ScriptedBackend:
    when, specialist_id = slot_text(slot), str(slot.specialist_id)
    planner = [plan("Suggest it.", "Ask the user.")] if ask else []
    caller = [call("get_input_from_user", user_id=ref, questions="Dr. Diego Arroyo is free. Book it?")] if ask else []
    planner += [plan("Confirm it.", "Confirm the appointment."), plan("Done.", "Tell the user."), end()]
    caller += [
        call("confirm_appointment", user_id=ref, specialist_id=specialist_id, appointment_time_date=when),
        call("notify_user", user_id=ref, message=message),
    ]
    return ScriptedBackend(planner=planner, caller=caller)


def test_yes_to_a_proposal_books_it_and_the_chat_says_booked_from_the_record(alice, ref, gp):
    slot = _slot(gp, _day(2), 9)
    backend = _booking_script(ref, slot, "Your items are confirmed, see you!", ask=True)
    conversation = start_chat(alice, "I have a sore throat.", backend=backend)

    post_user_message(conversation.pk, alice, "yes", backend=backend)

    assert Appointment.objects.get(user=alice).state == Appointment.State.CONFIRMED
    notice = Notification.objects.get(user=alice, kind="assistant")
    assert notice.body.startswith("Booked: your appointment with Dr. Diego Arroyo")
    assert "09:00\u201309:30 (Europe/Berlin)" in notice.body


def test_without_a_yes_the_slot_is_only_held_and_never_called_booked(alice, ref, gp):
    slot = _slot(gp, _day(2), 9)

    start_chat(alice, "I have a sore throat.", backend=_booking_script(ref, slot, "Booked! 09:00", ask=False))

    assert Appointment.objects.get(user=alice).state == Appointment.State.HELD
    notice = Notification.objects.get(user=alice, kind="assistant")
    assert notice.body.startswith("Held \u2014 not booked yet")
    assert "Booked" not in notice.body


def test_a_declined_proposal_books_nothing_even_if_the_model_confirms(alice, ref, gp):
    slot = _slot(gp, _day(2), 9)
    backend = _booking_script(ref, slot, "Your appointment is booked.", ask=True)
    conversation = start_chat(alice, "I have a sore throat.", backend=backend)

    conversation = post_user_message(conversation.pk, alice, "no", backend=backend)

    assert "declined" in observations(conversation)[1]["error"]
    assert not Appointment.objects.filter(user=alice).exists()
    notice = Notification.objects.get(user=alice, kind="assistant")
    assert notice.body == "No appointment has been booked for you."


def _copied_wrong(ref, slot, wrong_day: dt.date) -> ScriptedBackend:
    """A model that found ``slot`` and then copied another day into its question and its booking."""
    wrong = f"09:00-09:30, {wrong_day:%d/%m/%Y}"
    return ScriptedBackend(
        planner=[
            plan("Find a GP.", "Find a general physician."),
            plan("One is free.", "Ask the user."),
            plan("The user agreed.", "Confirm it."),
            end(),
        ],
        caller=[
            _search(),
            call(
                "get_input_from_user",
                user_id=ref,
                questions=f"Dr. Diego Arroyo has an opening on {wrong_day:%Y-%m-%d} at 09:00. Book it?",
            ),
            call(
                "confirm_appointment", user_id=ref, specialist_id=str(slot.specialist_id), appointment_time_date=wrong
            ),
        ],
    )


def test_a_question_naming_a_day_no_search_found_asks_about_the_slot_found(alice, ref, gp):
    day = _day(4)
    slot = _slot(gp, day, 9)
    conversation = start_chat(alice, "I have a sore throat.", backend=_copied_wrong(ref, slot, _day(0)))

    question = pending_question(conversation)

    assert f"{day:%Y-%m-%d}" in question and "09:00-09:30" in question
    assert f"{_day(0):%Y-%m-%d}" not in question
    assert not Appointment.objects.filter(user=alice).exists()


def test_yes_to_the_slot_the_question_named_books_it_though_the_model_copied_another_day(alice, ref, gp):
    day = _day(4)
    slot = _slot(gp, day, 9)
    backend = _copied_wrong(ref, slot, _day(0))
    conversation = start_chat(alice, "I have a sore throat.", backend=backend)

    conversation = post_user_message(conversation.pk, alice, "yes", backend=backend)

    appointment = Appointment.objects.get(user=alice)
    assert appointment.slot_id == slot.pk and appointment.state == Appointment.State.CONFIRMED
    assert observations(conversation)[2] == {"result": True}


@pytest.mark.parametrize(
    "written",
    [
        "Dr. Diego Arroyo is free on {day} at 09:00-09:30. Shall I book it?",
        "Did the sore throat start on 2026-01-02 at 07:00?",  # no offer: not about a slot
    ],
)
def test_a_question_about_the_slot_found_or_about_no_slot_is_asked_as_written(alice, ref, gp, written):
    day = _day(4)
    _slot(gp, day, 9)
    written = written.format(day=f"{day:%Y-%m-%d}")
    backend = ScriptedBackend(
        planner=[plan("Find a GP.", "Find a general physician."), plan("One is free.", "Ask the user."), end()],
        caller=[_search(), call("get_input_from_user", user_id=ref, questions=written)],
    )

    assert pending_question(start_chat(alice, "I have a sore throat.", backend=backend)) == written


def test_a_slot_nobody_asked_about_is_still_refused(alice, ref, gp):
    slot = _slot(gp, _day(4), 9)
    backend = ScriptedBackend(
        planner=[plan("Find a GP.", "Find a general physician."), plan("Book.", "Book it."), end()],
        caller=[
            _search(),
            call("confirm_appointment", user_id=ref, specialist_id=str(slot.specialist_id),
                 appointment_time_date=f"09:00-09:30, {_day(0):%d/%m/%Y}"),
        ],
    )  # fmt: skip

    conversation = start_chat(alice, "I have a sore throat.", backend=backend)

    assert "no slot starting at 09:00" in observations(conversation)[1]["error"]
    assert not Appointment.objects.filter(user=alice).exists()


def test_a_second_specialist_in_the_same_slot_is_refused_in_words(alice, ref, gp, general_physician):
    slot = _slot(gp, _day(2), 9)
    Appointment.book(user=alice, slot_id=slot.pk)
    other = _slot(SpecialistFactory(name="Dr. Other", specialization=general_physician), _day(2), 9)
    backend = _booking_script(ref, other, "Booked.", ask=True)
    conversation = start_chat(alice, "I have a sore throat.", backend=backend)

    conversation = post_user_message(conversation.pk, alice, "yes", backend=backend)

    error = observations(conversation)[1]["error"]
    assert "overlaps your confirmed appointment with Dr. Diego Arroyo" in error
    assert Appointment.objects.filter(user=alice).count() == 1
