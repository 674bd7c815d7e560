"""Trajectories in the seed paper's format: the Appendix D examples survive an
import -> export round trip unchanged (replaying a recording is tests/agentlab/test_replay.py)."""

from __future__ import annotations

import json

import pytest

from agents.llm.scripted import ScriptedBackend
from agents.services import start_chat
from agents.trajectory import (
    TrajectoryError,
    export_conversation,
    import_trajectory,
    parse_caller,
    parse_planner,
    render_caller,
    render_planner,
)
from tests.agents.helpers import call, end, fixture_trajectory, plan

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
