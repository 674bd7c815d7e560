"""Replaying a recorded trajectory (the seed paper's §6.1.1 format) against the real tools.

The recorded planner and caller outputs drive a scripted backend through the live runtime; each
recorded observation is compared with the one the tools produce now. The data generator checks
every generated conversation this way; tests replay the paper's Appendix D recordings.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from agents.llm.scripted import ScriptedBackend
from agents.models import Conversation
from agents.runtime import Runtime, link_alert
from agents.tools import REGISTRY
from agents.trajectory import render_caller, render_planner, title_from, validate_trajectory


@dataclass
class ObservationCheck:
    """One recorded observation beside the one the real tools produced."""

    position: int  # of the observation in the recording
    tool: str
    expected: Any
    actual: Any

    @property
    def matches(self) -> bool:
        return self.expected == self.actual


@dataclass
class ReplayReport:
    conversation: Conversation
    checks: list[ObservationCheck] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and all(check.matches for check in self.checks)

    def mismatches(self) -> list[ObservationCheck]:
        return [check for check in self.checks if not check.matches]


def _answer_text(observation: dict[str, Any]) -> str:
    # Appendix D records answers as "text" (D.1, D.2) or {"user": "text"} (D.3).
    result = observation.get("result")
    if isinstance(result, dict) and isinstance(result.get("user"), str):
        return result["user"]
    return result if isinstance(result, str) else json.dumps(result)


def _consented(observation: dict[str, Any]) -> bool:
    """An observation of a tool that asked the user first (a consent question: a reminder, a text to a
    contact): its result carries the user's answer as "user"."""
    result = observation.get("result")
    return isinstance(result, dict) and isinstance(result.get("user"), str)


def replay(data: Any, user, *, kind: str = Conversation.Kind.CHAT, alert=None, clock=None) -> ReplayReport:
    """Run a recorded trajectory's planner and caller outputs against the real tools.

    The recorded outputs drive a scripted backend; the recorded answers to
    ``get_input_from_user``/``follow_up_with_user`` and to consent questions are posted as the
    user's replies, and later user requests as new messages. Returns the new conversation and, for
    each recorded observation, whether the real tools produced the same one. ``clock`` is the "now" the
    tools see (default: the real clock); the data pipeline replays at the
    recorded query time.
    """
    states = validate_trajectory(data)
    planner = [render_planner(s["value"]) for s in states if s["from"] == "planner"]
    caller = [render_caller(s["value"], REGISTRY) for s in states if s["from"] == "caller"]
    first_user = next((i for i, s in enumerate(states) if s["from"] == "user"), None)
    user_text = states[first_user]["value"] if first_user is not None else ""
    # What the user says after the first request, in order: answers to
    # questions (the run is waiting) and new requests (the run has ended).
    inputs: list[tuple[str, str]] = []
    recorded: list[tuple[int, str, Any]] = []  # (position, tool, observation) of non-answer observations
    last_tool = ""
    for position, state in enumerate(states):
        if state["from"] == "caller":
            last_tool = state["value"]["tool"]
        elif state["from"] == "user" and position != first_user:
            inputs.append((Conversation.Status.COMPLETED, state["value"]))
        elif state["from"] == "observation":
            suspends = last_tool in REGISTRY and REGISTRY.get(last_tool).suspends
            if suspends or _consented(state["value"]):
                inputs.append((Conversation.Status.WAITING_INPUT, _answer_text(state["value"])))
            if not suspends:
                # A consent tool's result (the reminder set after the user's yes) is the tools' own
                # and is compared; an asking tool's result is only the user's answer.
                recorded.append((position, last_tool, state["value"]))

    backend = ScriptedBackend(planner=planner, caller=caller)
    conversation = Conversation.objects.create(user=user, kind=kind, title=title_from(user_text))
    if alert is not None:
        link_alert(alert, conversation)
    timing = {"clock": clock} if clock is not None else {}
    runtime = Runtime(conversation, backend, **timing)
    runtime.begin(user_text, system=states[0]["value"])
    runtime.run()
    report = ReplayReport(conversation=conversation)
    for expected_status, text in inputs:
        conversation.refresh_from_db()
        if conversation.status != expected_status:
            report.problems.append(
                f"The recording has the user speak while the replay is {conversation.status}, not {expected_status}."
            )
            break
        runtime = Runtime(conversation, backend, **timing)
        runtime.add_user_message(text)
        runtime.run()
    conversation.refresh_from_db()
    actual = [
        (step.payload, _tool_of(conversation, step.index))
        for step in conversation.steps.filter(role="observation").order_by("index")
    ]
    actual = [(payload, tool) for payload, tool in actual if not (tool in REGISTRY and REGISTRY.get(tool).suspends)]
    for i, (position, tool_name, expected) in enumerate(recorded):
        got = actual[i][0] if i < len(actual) else None
        report.checks.append(ObservationCheck(position=position, tool=tool_name, expected=expected, actual=got))
    if len(actual) > len(recorded):
        report.problems.append(f"The replay produced {len(actual) - len(recorded)} more observations than recorded.")
    if conversation.status != Conversation.Status.COMPLETED:
        report.problems.append(f"The replay ended {conversation.status}: {conversation.error}".strip())
    return report


def _tool_of(conversation: Conversation, observation_index: int) -> str:
    caller = conversation.steps.filter(role="caller", index__lt=observation_index).order_by("-index").first()
    return caller.payload.get("tool", "") if caller and isinstance(caller.payload, dict) else ""
