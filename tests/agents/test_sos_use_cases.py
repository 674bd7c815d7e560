"""Soft SOS, hard SOS start and hard SOS end (seed paper D.4 to D.6) driven by a
model that follows the sequence: the guard stays out, the database shows the
dispatch and the outbox rows go to the right recipients only."""

from __future__ import annotations

import itertools

from agents.llm.scripted import ScriptedBackend
from agents.sos.flows import run_hard_sos_end, run_hard_sos_start, run_soft_sos
from health.models import Alert, Dispatch, Notification, OutboundMessage
from tests.agents.helpers import call, end, observations, plan, states
from tests.factories import AlertFactory, DeviceFactory


def hard_start_script(ref: str, ambulance_phone: str, location: dict) -> ScriptedBackend:
    return ScriptedBackend(
        planner=[
            plan("User has triggered a hard SOS.", "Call notify_user to inform the user."),
            plan("The user has been notified.", "Call get_location to fetch the user's current coordinates."),
            plan("Location retrieved.", "Call search_ambulance with the location."),
            plan("Nearest ambulance identified.", "Call send_message to notify the ambulance."),
            plan("Ambulance notified.", "Call send_message to notify emergency contacts."),
            plan("Contacts notified.", "Call notify_user about the completion of the SOS process."),
            end("The SOS process is completed successfully."),
        ],
        caller=[
            call("notify_user", user_id=ref, symptoms="Hard SOS triggered. We are initiating emergency response."),
            call("get_location"),
            call("search_ambulance", location=location),
            call("send_message", phone_no=ambulance_phone, text="Ambulance needed at location {52.6, 13.5}"),
            call("send_message", text="SOS triggered by Alice", to_emergency_contacts=True),
            call("notify_user", user_id=ref, symptoms="An ambulance is on its way."),
        ],
    )


def test_hard_sos_start_dispatches_the_nearest_available_ambulance_and_messages_it_and_the_contacts(
    alice, ref, alice_contacts, bob_contact, ambulances
):
    device = DeviceFactory(user=alice)
    device.last_latitude, device.last_longitude = 52.6, 13.5
    device.save()
    alert = AlertFactory(user=alice, kind=Alert.Kind.HARD, condition="")
    near = ambulances["near"]
    backend = hard_start_script(ref, near.phone, {"latitude": 52.6, "longitude": 13.5})

    conversation = run_hard_sos_start(alert.pk, backend=backend)

    assert conversation.status == "completed"
    assert observations(conversation)[1:3] == [
        {"result": {"latitude": 52.6, "longitude": 13.5}},
        {"result": {"ambulance_id": "AMB-NEAR", "phone_no": near.phone}},
    ]
    dispatch = Dispatch.objects.get(alert=alert)
    assert dispatch.ambulance == near
    assert 8 < dispatch.distance_km < 10  # Berlin (52.53, 13.41) to (52.6, 13.5)
    near.refresh_from_db()
    assert near.available is False
    sent = {(m.recipient, m.recipient_kind) for m in OutboundMessage.objects.filter(alert=alert)}
    assert sent == {
        (near.phone, "ambulance"),
        ("+14155550101", "emergency_contact"),
        ("+14155550102", "emergency_contact"),
    }
    assert not OutboundMessage.objects.filter(recipient=bob_contact.phone).exists()
    alert.refresh_from_db()
    assert alert.guard_acted is False
    assert alert.conversation == conversation
    assert Notification.objects.filter(user=alice, kind="alert").count() == 2


def test_hard_sos_start_falls_back_to_the_home_location(alice, ref, alice_contacts, ambulances):
    alert = AlertFactory(user=alice, kind=Alert.Kind.HARD, condition="")
    backend = hard_start_script(ref, ambulances["near"].phone, {"latitude": 52.52, "longitude": 13.405})

    conversation = run_hard_sos_start(alert.pk, backend=backend)

    assert observations(conversation)[1] == {"result": {"latitude": 52.52, "longitude": 13.405}}
    assert Dispatch.objects.get(alert=alert).ambulance.code == "AMB-NEAR"


def test_hard_sos_end_messages_the_assigned_ambulance_and_the_contacts(alice, ref, alice_contacts, ambulances):
    alert = AlertFactory(user=alice, kind=Alert.Kind.HARD, condition="")
    near = ambulances["near"]
    Dispatch.objects.create(alert=alert, ambulance=near, distance_km=1.0)
    backend = ScriptedBackend(
        planner=[
            plan("User has triggered an End SOS.", "Call notify_user."),
            plan("User informed.", "Call get_assigned_ambulance to retrieve the ambulance details."),
            plan("Ambulance retrieved.", "Call send_message to inform the ambulance."),
            plan("Ambulance informed.", "Call send_message to inform emergency contacts."),
            plan("Contacts informed.", "Call notify_user about completion."),
            end(),
        ],
        caller=[
            call("notify_user", user_id=ref, symptoms="End SOS triggered. We are notifying all relevant parties."),
            call("get_assigned_ambulance", user_id=ref),
            call("send_message", phone_no=near.phone, text="The SOS has been resolved."),
            call("send_message", text="The SOS has been resolved.", to_emergency_contacts=True),
            call("notify_user", user_id=ref, symptoms="The SOS process has been successfully ended."),
        ],
    )

    conversation = run_hard_sos_end(alert.pk, backend=backend)

    assert conversation.status == "completed"
    assert observations(conversation)[1] == {"result": {"ambulance_id": "AMB-NEAR", "phone_no": near.phone}}
    kinds = sorted(m.recipient_kind for m in OutboundMessage.objects.filter(alert=alert))
    assert kinds == ["ambulance", "emergency_contact", "emergency_contact"]
    alert.refresh_from_db()
    assert alert.guard_acted is False


SOFT_REPORT = (
    "Low blood oxygen for 60 s (3 readings).\n\nYour vitals:\nSpO₂: 85 %\n\nWhat to do:\n"
    "- Sit upright, breathe slowly and re-measure with the watch snug on your wrist.\n"
    "- If it stays like this, book an appointment with a pulmonologist.\n"
    "- If you have chest pain, trouble breathing, fainting or confusion, call emergency services or press SOS now."
)


def soft_alert(alice):
    return AlertFactory(
        user=alice,
        kind=Alert.Kind.SOFT,
        condition="hypoxia",
        summary="Low blood oxygen for 60 s (3 readings).",
        vitals_snapshot={"oxygen": 85},
    )


def test_soft_sos_notifies_the_user_of_the_abnormal_vitals_and_messages_nobody(alice, ref, alice_contacts):
    alert = soft_alert(alice)
    backend = ScriptedBackend(
        planner=[plan("A soft SOS was triggered.", "Call notify_user about the abnormal vitals."), end()],
        caller=[call("notify_user", user_id=ref, symptoms=SOFT_REPORT)],
    )

    conversation = run_soft_sos(alert.pk, backend=backend)

    assert conversation.status == "completed"
    # The model reads the seed paper's request; the patient's conversation list reads the alert.
    assert states(conversation)[1] == {"from": "user", "value": "Soft SOS triggered. Abnormal Vitals: {'oxygen': 85}"}
    assert conversation.title == "Alert: low blood oxygen"
    notification = Notification.objects.get(user=alice)
    assert (notification.title, notification.body, notification.level) == (
        "Alert: low blood oxygen",
        SOFT_REPORT,
        "warning",
    )
    assert not OutboundMessage.objects.exists()
    alert.refresh_from_db()
    assert alert.guard_acted is False


def test_a_soft_sos_report_the_model_words_itself_never_reaches_the_patient(alice, ref, alice_contacts):
    """The model once wrote "Spo2: 86.0 mmHg": the patient gets the alert's own report instead."""
    alert = soft_alert(alice)
    backend = ScriptedBackend(
        planner=[plan("A soft SOS was triggered.", "Call notify_user about the abnormal vitals."), end()],
        caller=[call("notify_user", user_id=ref, symptoms="Soft SOS triggered.\nSpo2: 85.0 mmHg")],
    )

    conversation = run_soft_sos(alert.pk, backend=backend)

    assert conversation.status == "completed"
    assert [n.body for n in Notification.objects.filter(user=alice)] == [SOFT_REPORT]
    # What the chat shows of the run is the same report, never the model's wording.
    trajectory = states(conversation)
    delivered = [
        call["value"]["parameters"]
        for call, seen in itertools.pairwise(trajectory)
        if call["from"] == "caller" and call["value"]["tool"] == "notify_user" and "result" in seen["value"]
    ]
    assert [p.get("message") or p.get("symptoms") for p in delivered] == [SOFT_REPORT]


def test_running_an_sos_twice_reuses_the_conversation_and_sends_nothing_twice(alice, ref, alice_contacts, ambulances):
    alert = AlertFactory(user=alice, kind=Alert.Kind.HARD, condition="")
    backend = hard_start_script(ref, ambulances["near"].phone, {"latitude": 52.52, "longitude": 13.405})

    first = run_hard_sos_start(alert.pk, backend=backend)
    second = run_hard_sos_start(alert.pk, backend=ScriptedBackend())

    assert second.pk == first.pk
    assert OutboundMessage.objects.count() == 3
    assert Dispatch.objects.count() == 1
