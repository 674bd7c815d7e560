"""The SOS guard completes hard SOS start/end and soft SOS whatever the model
does: garbage, loops, early <END>, wrong steps, exceptions, timeouts, no model."""

from __future__ import annotations

import itertools

import pytest

from agents.llm.base import BackendError
from agents.llm.scripted import Delay, ScriptedBackend
from agents.sos.flows import run_hard_sos_end, run_hard_sos_start, run_soft_sos
from health.models import Alert, AlertEvent, Dispatch, EmergencyContact, Notification, OutboundMessage
from tests.agents.helpers import call, end, plan, states
from tests.factories import AlertFactory


@pytest.fixture
def hard_alert(alice):
    return AlertFactory(user=alice, kind=Alert.Kind.HARD, condition="")


GUARD_START = "Hard SOS triggered. We are initiating emergency response procedures."


def garbage() -> ScriptedBackend:
    noise = "}}{{ lorem <reason> ipsum"
    return ScriptedBackend(planner=itertools.repeat(noise), caller=itertools.repeat(noise))


def assert_sos_started_by_the_guard(alert, alice_contacts, ambulance) -> None:
    alert.refresh_from_db()
    assert alert.guard_acted is True
    assert Dispatch.objects.get(alert=alert).ambulance == ambulance
    recipients = sorted(m.recipient for m in OutboundMessage.objects.filter(alert=alert))
    assert recipients == sorted([ambulance.phone, *(c.phone for c in alice_contacts)])
    event = AlertEvent.objects.get(alert=alert, kind="guard_acted")
    assert "SOS guard completed" in event.message
    assert alert.conversation.status == "completed"


def test_a_garbage_emitting_model_still_gets_the_ambulance_dispatched_and_contacts_messaged(
    hard_alert, alice_contacts, ambulances
):
    conversation = run_hard_sos_start(hard_alert.pk, backend=garbage())

    assert_sos_started_by_the_guard(hard_alert, alice_contacts, ambulances["near"])
    guard_calls = [s["value"]["tool"] for s in states(conversation) if s["from"] == "caller"]
    assert guard_calls == [
        "notify_user",
        "get_location",
        "search_ambulance",
        "send_message",
        "send_message",
        "notify_user",
    ]
    assert states(conversation)[-1]["value"]["action"] == "<END>"
    ambulance_message = OutboundMessage.objects.get(recipient_kind="ambulance")
    assert "ambulance needed for Alice at 52.52000, 13.40500" in ambulance_message.body
    assert "https://www.openstreetmap.org/?mlat=52.52000&mlon=13.40500" in ambulance_message.body


def test_a_raising_model_still_completes_the_hard_sos(hard_alert, alice_contacts, ambulances):
    backend = ScriptedBackend(planner=[RuntimeError("CUDA out of memory")])

    run_hard_sos_start(hard_alert.pk, backend=backend)

    assert_sos_started_by_the_guard(hard_alert, alice_contacts, ambulances["near"])
    assert "raised RuntimeError" in AlertEvent.objects.get(kind="guard_acted").data["reason"]


def test_a_model_that_times_out_mid_sequence_is_completed_by_the_guard(
    settings, alice, hard_alert, alice_contacts, ambulances
):
    settings.AGENT_CALL_TIMEOUT_SECONDS = 0.2
    backend = ScriptedBackend(
        planner=[plan("Hard SOS.", "Call notify_user."), Delay(2.0, plan("late", "too late"))],
        caller=[call("notify_user", user_id=str(alice.pk), message="Hard SOS triggered.")],
    )

    conversation = run_hard_sos_start(hard_alert.pk, backend=backend)

    assert_sos_started_by_the_guard(hard_alert, alice_contacts, ambulances["near"])
    # The model's own first step counts (in the guard's words): the user is not notified twice.
    assert Notification.objects.filter(user=alice, title=GUARD_START).count() == 1
    assert "timed out" in AlertEvent.objects.get(kind="guard_acted").data["reason"]
    assert AlertEvent.objects.get(kind="guard_acted").data["performed"] == [
        "get_location",
        "search_ambulance",
        "send_message",
        "send_message",
        "notify_user",
    ]
    assert conversation.status == "completed"


def test_no_model_loaded_still_completes_the_hard_sos(settings, hard_alert, alice_contacts, ambulances):
    settings.AGENT_BACKEND = "transformers"  # the model is not prepared in the test data folder: get_backend() refuses

    run_hard_sos_start(hard_alert.pk)

    assert_sos_started_by_the_guard(hard_alert, alice_contacts, ambulances["near"])
    assert AlertEvent.objects.get(kind="guard_acted").data["reason"] == "no model is loaded"


def test_a_step_out_of_order_is_refused_and_the_guard_takes_over(alice, hard_alert, alice_contacts, ambulances):
    backend = ScriptedBackend(
        planner=[plan("Hard SOS.", "Skip ahead and message the contacts.")],
        caller=[call("send_message", text="help", to_emergency_contacts=True)],
    )

    conversation = run_hard_sos_start(hard_alert.pk, backend=backend)

    assert states(conversation)[4] == {
        "from": "observation",
        "value": {"error": "SOS guard: the next required step is notify_user."},
    }
    assert OutboundMessage.objects.filter(body="help").count() == 0
    assert_sos_started_by_the_guard(hard_alert, alice_contacts, ambulances["near"])


def test_an_early_end_is_completed_by_the_guard(alice, hard_alert, alice_contacts, ambulances):
    backend = ScriptedBackend(planner=[end("Nothing to do.")])

    run_hard_sos_start(hard_alert.pk, backend=backend)

    assert_sos_started_by_the_guard(hard_alert, alice_contacts, ambulances["near"])


def test_a_model_that_loops_is_stopped_and_completed(alice, hard_alert, alice_contacts, ambulances):
    ref = str(alice.pk)
    backend = ScriptedBackend(
        planner=itertools.repeat(plan("Tell the user.", "Call notify_user.")),
        caller=itertools.repeat(call("notify_user", user_id=ref, message="Hard SOS triggered.")),
    )

    run_hard_sos_start(hard_alert.pk, backend=backend)

    assert_sos_started_by_the_guard(hard_alert, alice_contacts, ambulances["near"])
    assert Notification.objects.filter(title=GUARD_START).count() == 1


def test_an_ambulance_search_at_an_invented_location_searches_where_the_user_is(
    alice, hard_alert, alice_contacts, ambulances
):
    ref = str(alice.pk)
    backend = ScriptedBackend(
        planner=[plan("a", "notify"), plan("b", "locate"), plan("c", "search")],
        caller=[
            call("notify_user", user_id=ref, message="Hard SOS triggered."),
            call("get_location"),
            call("search_ambulance", location={"latitude": 48.14, "longitude": 11.58}),  # Munich, not Berlin
        ],
    )

    conversation = run_hard_sos_start(hard_alert.pk, backend=backend)

    # The step is the model's choice; where to search is the guard's, from get_location.
    searches = [
        s["value"] for s in states(conversation) if s["from"] == "caller" and s["value"]["tool"] == "search_ambulance"
    ]
    assert searches == [
        {"tool": "search_ambulance", "parameters": {"location": {"latitude": 52.52, "longitude": 13.405}}}
    ]
    assert Dispatch.objects.get(alert=hard_alert).distance_km < 2
    assert_sos_started_by_the_guard(hard_alert, alice_contacts, ambulances["near"])


def test_a_made_up_ambulance_number_is_refused_and_the_real_one_messaged(alice, hard_alert, alice_contacts, ambulances):
    ref = str(alice.pk)
    backend = ScriptedBackend(
        planner=[plan("a", "notify"), plan("b", "locate"), plan("c", "search"), plan("d", "message the ambulance")],
        caller=[
            call("notify_user", user_id=ref, message="Hard SOS triggered."),
            call("get_location"),
            call("search_ambulance", location={"latitude": 52.52, "longitude": 13.405}),
            call("send_message", phone_no="+14155550000", text="Come quickly"),
        ],
    )

    run_hard_sos_start(hard_alert.pk, backend=backend)

    assert not OutboundMessage.objects.filter(recipient="+14155550000").exists()
    assert_sos_started_by_the_guard(hard_alert, alice_contacts, ambulances["near"])


def test_hard_sos_end_with_garbage_still_stands_down_the_ambulance_and_the_contacts(
    hard_alert, alice_contacts, ambulances
):
    Dispatch.objects.create(alert=hard_alert, ambulance=ambulances["near"])

    conversation = run_hard_sos_end(hard_alert.pk, backend=garbage())

    assert conversation.status == "completed"
    bodies = {m.recipient_kind: m.body for m in OutboundMessage.objects.filter(alert=hard_alert)}
    assert "no longer required" in bodies["ambulance"]
    assert "The SOS has ended" in bodies["emergency_contact"]
    assert OutboundMessage.objects.filter(alert=hard_alert).count() == 3
    hard_alert.refresh_from_db()
    assert hard_alert.guard_acted is True


def test_soft_sos_with_a_crashing_model_still_notifies_the_user_with_the_vitals(alice):
    alert = AlertFactory(
        user=alice,
        kind=Alert.Kind.SOFT,
        condition="bradycardia",
        vitals_snapshot={"oxygen": 85, "heart_rate": 41, "sleep": {"deep": 75, "rem": 94}},
    )

    run_soft_sos(alert.pk, backend=ScriptedBackend(planner=[BackendError("model file missing")]))

    notification = Notification.objects.get(user=alice)
    assert notification.title == "Alert: very slow heart rate"
    assert notification.body.splitlines()[2:7] == [
        "Your vitals:",
        "SpO₂: 85 %",
        "Heart rate: 41 bpm",
        "Deep sleep: 75 minutes",
        "REM sleep: 94 minutes",
    ]
    alert.refresh_from_db()
    assert alert.guard_acted is True


def test_without_an_available_ambulance_the_guard_still_messages_the_contacts_and_says_so(
    alice, hard_alert, alice_contacts
):
    conversation = run_hard_sos_start(hard_alert.pk, backend=garbage())

    assert conversation.status == "failed"
    assert OutboundMessage.objects.filter(recipient_kind="emergency_contact").count() == 2
    last_notice = Notification.objects.filter(user=alice).order_by("-id").first()
    assert last_notice.title.startswith("Call 911 now")
    assert "No ambulance could be dispatched." in last_notice.body
    event = AlertEvent.objects.get(alert=hard_alert, kind="guard_acted")
    assert event.data["failed"] == ["search_ambulance", "send_message (skipped: prerequisite missing)"]


def test_a_contacts_number_in_place_of_the_ambulance_does_not_count_as_messaging_the_ambulance(
    alice, hard_alert, alice_contacts, ambulances
):
    ref = str(alice.pk)
    backend = ScriptedBackend(
        planner=[plan("a", "notify"), plan("b", "locate"), plan("c", "search"), plan("d", "message the ambulance")],
        caller=[
            call("notify_user", user_id=ref, message="Hard SOS triggered."),
            call("get_location"),
            call("search_ambulance", location={"latitude": 52.52, "longitude": 13.405}),
            call("send_message", phone_no=alice_contacts[0].phone, text="Ambulance needed"),
        ],
    )

    run_hard_sos_start(hard_alert.pk, backend=backend)

    # The model chose "message the ambulance"; the number and the words are the guard's.
    assert not OutboundMessage.objects.filter(body="Ambulance needed").exists()
    to_ambulance = OutboundMessage.objects.get(alert=hard_alert, recipient_kind="ambulance")
    assert to_ambulance.recipient == ambulances["near"].phone
    assert to_ambulance.body.startswith("EMERGENCY: ambulance needed for Alice")
    assert_sos_started_by_the_guard(hard_alert, alice_contacts, ambulances["near"])


def test_ending_an_sos_without_an_assigned_ambulance_still_tells_the_contacts(alice, hard_alert, alice_contacts):
    conversation = run_hard_sos_end(hard_alert.pk, backend=garbage())

    assert OutboundMessage.objects.filter(recipient_kind="emergency_contact").count() == 2
    assert not OutboundMessage.objects.filter(recipient_kind="ambulance").exists()
    last_notice = Notification.objects.filter(user=alice).order_by("-id").first()
    # Delivery starts when the test's transaction commits: not yet, and the text says so.
    assert last_notice.title == "The SOS has ended (you are safe now)."
    assert last_notice.body.splitlines()[1] == (
        "No ambulance was assigned to tell. "
        "The SMS to your emergency contacts (Dana, Eli) is still being sent: not confirmed yet."
    )
    assert conversation.status == "failed"
    assert AlertEvent.objects.get(alert=hard_alert, kind="guard_acted").data["failed"] == [
        "get_assigned_ambulance",
        "send_message (skipped: prerequisite missing)",
    ]


def test_a_contact_with_a_broken_number_does_not_stop_the_others_or_the_sos(
    alice, hard_alert, alice_contacts, ambulances
):
    # Data from before the number validators (bypassing save()).
    EmergencyContact.objects.filter(pk=alice_contacts[1].pk).update(phone="+1555")

    conversation = run_hard_sos_start(hard_alert.pk, backend=garbage())

    assert conversation.status == "completed"
    assert sorted(OutboundMessage.objects.values_list("recipient", flat=True)) == [
        "+14155550101",
        ambulances["near"].phone,
    ]
    assert {"result": {"sent": 1, "not_sent": ["Eli"]}} in [s["value"] for s in states(conversation)]


def test_an_sos_ended_as_a_false_alarm_is_ended_with_one_false_alarm_message_per_recipient(
    hard_alert, alice_contacts, ambulances
):
    # The user ended it through health.sos.request_end, saying it was a false alarm.
    Alert.objects.filter(pk=hard_alert.pk).update(end_reason=Alert.EndReason.FALSE_ALARM)
    Dispatch.objects.create(alert=hard_alert, ambulance=ambulances["near"])

    conversation = run_hard_sos_end(hard_alert.pk, backend=garbage())

    assert conversation.status == "completed"
    rows = OutboundMessage.objects.filter(alert=hard_alert)
    assert sorted(m.recipient_kind for m in rows) == ["ambulance", "emergency_contact", "emergency_contact"]
    assert all(m.body.startswith("FALSE ALARM: ") and "resolved" not in m.body for m in rows)
    assert "raised by mistake" in rows.get(recipient_kind="ambulance").body


@pytest.mark.parametrize(
    ("reason", "to_ambulance", "to_contacts"),
    [
        ("false_alarm", "FALSE ALARM: the SOS for Alice was raised by mistake.", "FALSE ALARM: the SOS from Alice"),
        ("help_arrived", "SOS update for Alice: help has arrived.", "SOS update: help has arrived for Alice."),
        ("safe", "SOS update: Alice says they are safe now.", "SOS update: Alice says they are safe now."),
    ],
)
def test_the_end_messages_say_the_patients_reason_whatever_the_model_wrote(
    alice, hard_alert, alice_contacts, ambulances, reason, to_ambulance, to_contacts
):
    near = ambulances["near"]
    Dispatch.objects.create(alert=hard_alert, ambulance=near)
    Alert.objects.filter(pk=hard_alert.pk).update(end_reason=reason)
    ref = str(alice.pk)
    backend = ScriptedBackend(
        planner=[plan("a", "notify"), plan("b", "ambulance"), plan("c", "message it"), plan("d", "contacts")],
        caller=[
            call("notify_user", user_id=ref, message="End"),
            call("get_assigned_ambulance", user_id=ref),
            call("send_message", phone_no=near.phone, text="The SOS has been resolved."),
            call("send_message", text="All good, it was resolved.", to_emergency_contacts=True),
        ],
    )

    run_hard_sos_end(hard_alert.pk, backend=backend)

    rows = OutboundMessage.objects.filter(alert=hard_alert)
    assert rows.get(recipient_kind="ambulance").body.startswith(to_ambulance)
    assert [m.body.startswith(to_contacts) for m in rows.filter(recipient_kind="emergency_contact")] == [True, True]
    assert not rows.filter(body__icontains="resolved").exists()


def test_a_slow_model_gets_a_time_budget_then_the_guard_sends_the_sos_at_once(
    settings, alice, hard_alert, alice_contacts, ambulances
):
    import time

    settings.AGENT_SOS_BUDGET_SECONDS = 1.0
    ref = str(alice.pk)
    # Each planner call takes 0.4 s: the model would need seconds for the six steps.
    backend = ScriptedBackend(
        planner=itertools.repeat(Delay(0.4, plan("Next.", "Do the next step."))),
        caller=itertools.cycle(
            [call("notify_user", user_id=ref, message="x"), call("get_location"), call("get_location")]
        ),
    )

    started = time.monotonic()
    run_hard_sos_start(hard_alert.pk, backend=backend)
    took = time.monotonic() - started

    assert_sos_started_by_the_guard(hard_alert, alice_contacts, ambulances["near"])
    assert AlertEvent.objects.get(kind="guard_acted").data["reason"] == "the model used up the SOS time budget"
    assert took < 3.0
