"""Trajectories in the seed paper's format: the Appendix D examples survive an
import -> export round trip unchanged, and replaying a recording runs its
planner/caller outputs against the real tools and checks each observation."""

from __future__ import annotations

import json

import pytest

from agents.llm.scripted import ScriptedBackend
from agents.models import Conversation
from agents.services import post_user_message, run_hard_sos_start, start_chat
from agents.trajectory import (
    TrajectoryError,
    export_conversation,
    import_trajectory,
    parse_caller,
    parse_planner,
    render_caller,
    render_planner,
    replay,
)
from health.models import Alert, Ambulance, Dispatch, OutboundMessage
from tests.agents.helpers import call, end, fixture_trajectory, plan
from tests.factories import AlertFactory, AmbulanceFactory, DeviceFactory

APPENDIX_D = [
    "d1_appointment_generic.json",
    "d2_appointment_rejected.json",
    "d3_appointment_follow_up.json",
    "d4_soft_sos.json",
    "d5_hard_sos_start.json",
    "d6_hard_sos_end.json",
]


@pytest.mark.parametrize("name", APPENDIX_D)
def test_an_appendix_d_trajectory_survives_import_and_export_unchanged(alice, name):
    recorded = fixture_trajectory(name)

    conversation = import_trajectory(alice, recorded)

    assert export_conversation(conversation) == recorded["interaction_trajectory"]
    assert json.loads(json.dumps(export_conversation(conversation))) == recorded["interaction_trajectory"]


@pytest.mark.parametrize("name", APPENDIX_D)
def test_every_planner_and_caller_state_of_appendix_d_reads_back_from_model_text(name):
    for state in fixture_trajectory(name)["interaction_trajectory"]:
        if state["from"] == "planner":
            assert parse_planner(render_planner(state["value"])) == state["value"]
        elif state["from"] == "caller":
            assert parse_caller(render_caller(state["value"])) == state["value"]


def test_a_runtime_conversation_exports_and_imports_to_the_same_trajectory(alice, bob):
    backend = ScriptedBackend(planner=[plan("Locate.", "Get the location."), end()], caller=[call("get_location")])
    original = start_chat(alice, "Where am I?", backend=backend)

    copy = import_trajectory(bob, export_conversation(original))

    assert export_conversation(copy) == export_conversation(original)
    assert copy.user == bob and copy.status == "completed"


def test_a_trajectory_must_start_with_its_system_state():
    with pytest.raises(TrajectoryError) as error:
        import_trajectory(None, [{"from": "user", "value": "hi"}, {"from": "system", "value": {}}])

    assert error.value.errors == ["state 1: a system value needs user_details with a string user_id."]


def test_a_second_system_state_is_refused(alice):
    system = {"from": "system", "value": {"user_details": {"user_id": "1"}}}

    with pytest.raises(TrajectoryError, match="state 2: only the first state may be a system state"):
        import_trajectory(alice, [system, {"from": "user", "value": "hi"}, system])


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
