"""Replaying a recording (agentlab.replay) runs its planner/caller outputs against the real tools
and checks each observation: the paper's Appendix D recordings and exported conversations."""

from __future__ import annotations

import json

from agentlab.replay import replay
from agents.llm.scripted import ScriptedBackend
from agents.models import Conversation
from agents.services import post_user_message, start_chat
from agents.sos.flows import run_hard_sos_start
from agents.trajectory import export_conversation
from health.models import Alert, Ambulance, Dispatch, OutboundMessage
from tests.agents.helpers import call, end, fixture_trajectory, plan
from tests.factories import AlertFactory, AmbulanceFactory, DeviceFactory


def with_valid_number(trajectory: dict, paper_number: str, number: str) -> dict:
    # The paper's ambulance numbers are not valid E.164 numbers, which the
    # outbox refuses; the replay uses a valid stand-in.
    return json.loads(json.dumps(trajectory).replace(paper_number, number))


def test_replaying_d5_hard_sos_start_reproduces_every_recorded_observation(alice, alice_contacts):
    device = DeviceFactory(user=alice)
    device.last_latitude, device.last_longitude = 23.5326, 139.7524
    device.save()
    AmbulanceFactory(code="AMBpF0E", phone="+14155560030", latitude=23.53, longitude=139.75)
    AmbulanceFactory(code="AMB-FAR", phone="+14155560031", latitude=35.68, longitude=139.76)
    alert = AlertFactory(user=alice, kind=Alert.Kind.HARD, condition="")
    recording = with_valid_number(fixture_trajectory("d5_hard_sos_start.json"), "+146910850030", "+14155560030")

    report = replay(recording, alice, kind=Conversation.Kind.HARD_SOS_START, alert=alert)

    assert report.ok, (report.problems, report.mismatches())
    assert [check.tool for check in report.checks] == [
        "notify_user",
        "get_location",
        "search_ambulance",
        "send_message",
        "send_message",
        "notify_user",
    ]
    assert Dispatch.objects.get(alert=alert).ambulance.code == "AMBpF0E"
    assert OutboundMessage.objects.filter(alert=alert).count() == 3
    alert.refresh_from_db()
    assert alert.guard_acted is False


def test_replaying_d6_hard_sos_end_reproduces_every_recorded_observation(alice, alice_contacts):
    alert = AlertFactory(user=alice, kind=Alert.Kind.HARD, condition="")
    ambulance = AmbulanceFactory(code="AMBUaTg", phone="+14155560046", available=False)
    Dispatch.objects.create(alert=alert, ambulance=ambulance)
    recording = with_valid_number(fixture_trajectory("d6_hard_sos_end.json"), "+235135781046", "+14155560046")

    report = replay(recording, alice, kind=Conversation.Kind.HARD_SOS_END, alert=alert)

    assert report.ok, (report.problems, report.mismatches())
    assert sorted(OutboundMessage.objects.values_list("recipient_kind", flat=True)) == [
        "ambulance",
        "emergency_contact",
        "emergency_contact",
    ]


def test_a_replay_against_a_different_world_reports_the_differences_and_the_guard_keeps_it_safe(alice, alice_contacts):
    AmbulanceFactory(code="AMB-OTHER", phone="+14155560099", latitude=52.5, longitude=13.4)
    alert = AlertFactory(user=alice, kind=Alert.Kind.HARD, condition="")
    recording = with_valid_number(fixture_trajectory("d5_hard_sos_start.json"), "+146910850030", "+14155560030")

    report = replay(recording, alice, kind=Conversation.Kind.HARD_SOS_START, alert=alert)

    assert not report.ok
    located, searched = report.mismatches()[:2]
    assert (located.tool, located.actual) == ("get_location", {"result": {"latitude": 52.52, "longitude": 13.405}})
    # The recording sends the ambulance to the paper's coordinates, not to
    # where this user is: the guard writes the search from get_location, and
    # the ambulance near this user is dispatched.
    assert (searched.tool, searched.actual) == (
        "search_ambulance",
        {"result": {"ambulance_id": "AMB-OTHER", "phone_no": "+14155560099"}},
    )
    assert Dispatch.objects.get(alert=alert).ambulance.code == "AMB-OTHER"
    to_ambulance = OutboundMessage.objects.get(alert=alert, recipient_kind="ambulance")
    assert to_ambulance.recipient == "+14155560099" and "52.52000, 13.40500" in to_ambulance.body


def test_replaying_d4_reports_the_observation_the_paper_left_out(alice):
    alert = AlertFactory(user=alice, kind=Alert.Kind.SOFT, condition="hypoxia")

    report = replay(fixture_trajectory("d4_soft_sos.json"), alice, kind=Conversation.Kind.SOFT_SOS, alert=alert)

    assert report.problems == ["The replay produced 1 more observations than recorded."]
    assert report.conversation.status == "completed"


def test_an_exported_chat_with_a_question_replays_identically(alice, gp_slot):
    ref = str(alice.pk)
    backend = ScriptedBackend(
        planner=[
            plan("A GP fits.", "Find a general physician."),
            plan("Found one.", "Ask the user."),
            plan("Declined.", "Store the symptoms."),
            end(),
        ],
        caller=[
            call("get_available_specialists", symptoms="cough", specialization="general physician"),
            call("get_input_from_user", user_id=ref, questions="Book Dr. Diego Arroyo?"),
            call("store_symptoms", user_id=ref, symptoms="cough", timestamp="2026-01-05T09:00:00"),
        ],
    )
    original = start_chat(alice, "I keep coughing.", backend=backend)
    original = post_user_message(original.pk, alice, "No thanks", backend=backend)

    report = replay(export_conversation(original), alice)

    assert report.ok, (report.problems, report.mismatches())
    assert len(report.checks) == 2
    assert export_conversation(report.conversation)[1:] == export_conversation(original)[1:]


def test_a_replayed_sos_after_the_ambulance_was_released_dispatches_it_again(alice, alice_contacts, ambulances):
    first_alert = AlertFactory(user=alice, kind=Alert.Kind.HARD, condition="")
    backend = ScriptedBackend(planner=["garbage"])
    original = run_hard_sos_start(first_alert.pk, backend=backend)
    Dispatch.objects.filter(alert=first_alert).update(released_at=first_alert.created_at)
    Ambulance.objects.filter(code="AMB-NEAR").update(available=True)
    Alert.objects.filter(pk=first_alert.pk).update(state=Alert.State.RESOLVED)
    second_alert = AlertFactory(user=alice, kind=Alert.Kind.HARD, condition="")

    report = replay(export_conversation(original), alice, kind=Conversation.Kind.HARD_SOS_START, alert=second_alert)

    assert report.ok, (report.problems, report.mismatches())
    assert Dispatch.objects.get(alert=second_alert).ambulance.code == "AMB-NEAR"


def test_a_recording_with_a_second_request_replays_both(alice):
    backend = ScriptedBackend(
        planner=[plan("Locate.", "Get the location."), end(), end("Nothing more to do.")],
        caller=[call("get_location")],
    )
    original = start_chat(alice, "Where am I?", backend=backend)
    original = post_user_message(original.pk, alice, "Thanks!", backend=backend)

    report = replay(export_conversation(original), alice)

    assert report.ok, (report.problems, report.mismatches())
    assert [s["from"] for s in export_conversation(report.conversation)].count("user") == 2
