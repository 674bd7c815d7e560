"""Trajectories in the seed paper's §6.1.1 format: parse, validate, export, import.

A trajectory is a list of states ``{"from": role, "value": ...}``:

* ``system``: ``{"user_details": {"user_id", "name", "timestamp"}}``
* ``user``: the user's text
* ``planner``: ``{"reason", "action"}`` (``"<END>"`` as the action when done)
* ``caller``: ``{"tool", "parameters"}``
* ``observation``: ``{"result": ...}`` (``{"error": ...}`` when the call failed)

Appendix D wraps the list as ``{"interaction_trajectory": [...]}``; both
forms are accepted. Models speak the planner as
``<reason>…</reason><action>…</action>`` and the caller as one JSON object.
Replaying a recording against the real tools is offline work and lives with the lab, not here.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from agents.errors import UnparseableOutput
from agents.models import AgentStep, Conversation

END = "<END>"
ROLES = ("system", "user", "planner", "caller", "observation")
MAX_STATES = 1000


# --- one step ----------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One state of a trajectory with what producing it cost (like smolagents'
    ActionStep, in the seed paper's format). Steps the runtime or the guard
    wrote themselves have no latency or token counts."""

    index: int
    role: str
    value: Any
    latency_ms: int | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None

    def to_state(self) -> dict[str, Any]:
        """The §6.1.1 state: ``{"from": role, "value": value}``."""
        return {"from": self.role, "value": self.value}

    def to_event(self, conversation_id: int) -> dict[str, Any]:
        """The ``agent_step`` websocket payload: the state plus its cost."""
        return {
            "conversation": conversation_id,
            "index": self.index,
            "from": self.role,
            "value": self.value,
            "latency_ms": self.latency_ms,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
        }

    def to_row(self, conversation: Conversation) -> AgentStep:
        return AgentStep(
            conversation=conversation,
            index=self.index,
            role=self.role,
            payload=self.value,
            latency_ms=self.latency_ms,
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
        )

    @classmethod
    def from_row(cls, row: AgentStep) -> Step:
        return cls(row.index, row.role, row.payload, row.latency_ms, row.prompt_tokens, row.completion_tokens)


# --- model text <-> state values ---------------------------------------------


def render_planner(value: dict[str, Any]) -> str:
    """A planner state as the planner model writes it."""
    return f"<reason>{value.get('reason', '')}</reason><action>{value.get('action', '')}</action>"


def parse_planner(text: str) -> dict[str, str]:
    """``<reason>…</reason><action>…</action>`` -> ``{"reason", "action"}``.

    The closing ``</action>`` is optional (it is the stop sequence); a missing
    ``<reason>`` gives an empty reason. Text without an ``<action>`` is refused.
    """
    action = re.search(r"<action>(.*?)(?:</action>|$)", text, re.DOTALL)
    if action is None or not action.group(1).strip():
        raise UnparseableOutput("The planner output has no <action>…</action>.")
    reason = re.search(r"<reason>(.*?)(?:</reason>|<action>|$)", text, re.DOTALL)
    return {"reason": reason.group(1).strip() if reason else "", "action": action.group(1).strip()}


def is_end(planner_value: dict[str, Any]) -> bool:
    return str(planner_value.get("action", "")).strip() == END


def render_caller(value: dict[str, Any], registry: Any = None) -> str:
    """A caller state as the caller model writes it: with the tool ``registry``, parameters in the
    tool's schema order (as the data generator writes them), whatever order the database gave back
    (PostgreSQL's jsonb sorts keys). The format module knows no tools: the caller hands them in."""
    parameters = value.get("parameters", {})
    tool = value.get("tool")
    if registry is not None and isinstance(parameters, dict) and tool in registry:
        parameters = registry.get(tool).ordered(parameters)
    return json.dumps({"tool": tool, "parameters": parameters}, ensure_ascii=False)


def parse_caller(text: str) -> dict[str, Any]:
    """The first JSON object in ``text`` as ``{"tool": str, "parameters": dict}``, or UnparseableOutput."""
    start = text.find("{")
    if start == -1:
        raise UnparseableOutput('The caller output is not JSON: expected {"tool": ..., "parameters": {...}}.')
    try:
        call, _ = json.JSONDecoder().raw_decode(text[start:])
    except json.JSONDecodeError as exc:
        raise UnparseableOutput(f"The caller output is not valid JSON ({exc.msg} at character {exc.pos}).") from exc
    if not isinstance(call, dict) or not isinstance(call.get("tool"), str) or not call["tool"].strip():
        raise UnparseableOutput('The caller output must be {"tool": "<name>", "parameters": {...}}.')
    parameters = call.get("parameters", {})
    if not isinstance(parameters, dict):
        raise UnparseableOutput("'parameters' must be a JSON object.")
    return {"tool": call["tool"].strip(), "parameters": parameters}


# --- validation ------------------------------------------------------------------


class TrajectoryError(ValueError):
    """A trajectory file that does not follow §6.1.1; ``errors`` lists every problem."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("; ".join(errors))
        self.errors = errors


def _check_state(position: int, state: Any) -> list[str]:
    where = f"state {position}"
    if not isinstance(state, dict):
        return [f"{where}: must be an object with 'from' and 'value'."]
    errors = [f"{where}: unexpected key {key!r}." for key in state if key not in ("from", "value")]
    role, value = state.get("from"), state.get("value")
    if role not in ROLES:
        return [*errors, f"{where}: 'from' must be one of {', '.join(ROLES)}."]
    if "value" not in state:
        return [*errors, f"{where}: 'value' is missing."]
    if role == "system":
        details = value.get("user_details") if isinstance(value, dict) else None
        if not isinstance(details, dict) or not isinstance(details.get("user_id"), str):
            errors.append(f"{where}: a system value needs user_details with a string user_id.")
    elif role == "user":
        if not isinstance(value, str):
            errors.append(f"{where}: a user value must be a string.")
    elif role == "planner":
        if not isinstance(value, dict) or not isinstance(value.get("action"), str):
            errors.append(f"{where}: a planner value needs a string 'action'.")
        elif not isinstance(value.get("reason", ""), str):
            errors.append(f"{where}: a planner 'reason' must be a string.")
    elif role == "caller":
        if not isinstance(value, dict) or not isinstance(value.get("tool"), str):
            errors.append(f"{where}: a caller value needs a string 'tool'.")
        elif not isinstance(value.get("parameters", {}), dict):
            errors.append(f"{where}: caller 'parameters' must be an object.")
    elif not isinstance(value, dict) or not ({"result", "error"} & set(value)):
        errors.append(f"{where}: an observation value needs 'result' (or 'error').")
    return errors


def validate_trajectory(data: Any) -> list[dict[str, Any]]:
    """The list of states in ``data`` (a list, or ``{"interaction_trajectory": [...]}``).

    Raises TrajectoryError listing every problem: the shape of each state, a
    single leading system state, and an observation only after a caller.
    """
    if isinstance(data, dict) and "interaction_trajectory" in data:
        data = data["interaction_trajectory"]
    if not isinstance(data, list):
        raise TrajectoryError(["A trajectory must be a list of states (or {'interaction_trajectory': [...]})."])
    if not data:
        raise TrajectoryError(["The trajectory is empty."])
    if len(data) > MAX_STATES:
        raise TrajectoryError([f"The trajectory has {len(data)} states; at most {MAX_STATES} are accepted."])
    errors: list[str] = []
    for position, state in enumerate(data):
        errors += _check_state(position, state)
    if errors:
        raise TrajectoryError(errors)
    roles = [state["from"] for state in data]
    if roles[0] != "system":
        errors.append("state 0: a trajectory starts with the system state.")
    later_systems = [i for i in range(1, len(roles)) if roles[i] == "system"]
    errors += [f"state {i}: only the first state may be a system state." for i in later_systems]
    if errors:
        raise TrajectoryError(errors)
    return data


# --- export / import -------------------------------------------------------------


def export_conversation(conversation: Conversation) -> list[dict[str, Any]]:
    """The conversation as a §6.1.1 trajectory: one state per stored step, in order."""
    return [step.to_state() for step in conversation.steps.order_by("index")]


def import_trajectory(user, data: Any, *, kind: str = Conversation.Kind.CHAT, title: str = "") -> Conversation:
    """Store a validated trajectory as a new conversation of ``user`` (a record; nothing runs)."""
    states = validate_trajectory(data)
    ended = states[-1]["from"] == "planner" and is_end(states[-1]["value"])
    first_user = next((s["value"] for s in states if s["from"] == "user"), "")
    with transaction.atomic():
        conversation = Conversation.objects.create(
            user=user,
            kind=kind,
            title=title or title_from(first_user),
            status=Conversation.Status.COMPLETED if ended else Conversation.Status.IDLE,
        )
        AgentStep.objects.bulk_create(
            Step(index, state["from"], state["value"]).to_row(conversation) for index, state in enumerate(states)
        )
    return conversation


def title_from(text: str) -> str:
    """A conversation title from its first message: one line, at most 60 characters."""
    words = " ".join(str(text).split())
    return words if len(words) <= 60 else words[:59] + "…"
