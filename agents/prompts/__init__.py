"""Prompt building for the planner and caller.

Prompts stay short (CAMPHOR §5.3, DESIGN.md): the user details, one line per
tool (the caller also gets each tool's parameter names), and the most recent
states of the trajectory. The templates live beside this module as text.

``few_shot=True`` adds one worked example as a user/assistant exchange: what a
base model without trained adapters needs to answer in the right format.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from agents.llm.base import Message, Role
from agents.tools.registry import Registry

PROMPTS_DIR = Path(__file__).resolve().parent
# The first user message plus this many latest states are shown: enough for
# the appointment flow, bounded for long chats.
RECENT_STATES = 14


@cache
def template(role: Role) -> str:
    return (PROMPTS_DIR / f"{role}.txt").read_text(encoding="utf-8").strip()


@cache
def example(role: Role) -> tuple[str, str]:
    """The worked example for ``role``: (trajectory lines, the expected answer)."""
    text = (PROMPTS_DIR / f"{role}_example.txt").read_text(encoding="utf-8")
    prompt, _, answer = text.partition("\n=== answer ===\n")
    return prompt.strip(), answer.strip()


def tool_lines(registry: Registry, *, with_parameters: bool) -> str:
    lines = []
    for tool in sorted(registry, key=lambda t: t.name):
        if with_parameters:
            params = ", ".join(
                name if name in tool.parameters["required"] else f"{name}?" for name in tool.parameters["properties"]
            )
            lines.append(f"- {tool.name}({params}): {tool.description}")
        else:
            lines.append(f"- {tool.name}: {tool.description}")
    return "\n".join(lines)


def render_state(state: dict[str, Any]) -> str:
    """One trajectory state as one line of the prompt."""
    role, value = state["from"], state["value"]
    if role == "user":
        return f"user: {value}"
    if role == "planner":
        return f"planner: <reason>{value.get('reason', '')}</reason><action>{value.get('action', '')}</action>"
    return f"{role}: {json.dumps(value, ensure_ascii=False)}"


def build_messages(
    role: Role, states: list[dict[str, Any]], registry: Registry, *, few_shot: bool = False
) -> list[Message]:
    """The chat messages for ``role`` given the trajectory so far (system state first)."""
    system_value = states[0]["value"] if states and states[0]["from"] == "system" else {}
    details = json.dumps(system_value.get("user_details", {}), ensure_ascii=False)
    system = template(role).format(user_details=details, tools=tool_lines(registry, with_parameters=role == "caller"))
    history = states[1:]
    first_user = next((i for i, state in enumerate(history) if state["from"] == "user"), None)
    if len(history) > RECENT_STATES:
        recent = history[-RECENT_STATES:]
        if first_user is not None and history[first_user] not in recent:
            recent = [history[first_user], *recent]
        history = recent
    lines = [render_state(state) for state in history]
    lines.append("planner:" if role == "planner" else "caller:")
    shots: list[Message] = []
    if few_shot:
        prompt, answer = example(role)
        shots = [Message("user", prompt), Message("assistant", answer)]
    return [Message("system", system), *shots, Message("user", "\n".join(lines))]
