"""Prompt building for the planner and caller.

Prompts stay short (CAMPHOR §5.3, docs/models.md): the user details, one line per
tool (the caller also gets each tool's parameter names), and the most recent
states of the trajectory. The templates live beside this module as text.

``few_shot=True`` adds one worked example as a user/assistant exchange: what a
base model without trained adapters needs to answer in the right format.

Trained adapters get the *chat* format instead (:func:`build_chat`): the
trajectory as alternating turns, the role's own earlier outputs as assistant
turns and everything in between (user messages, observations, the planner's
actions for the caller) as user turns. Each step's prompt then extends the
previous step's prompt, so the key/value cache is reused across steps, and
one training sequence per conversation carries every step's sample (the
trainer packs them). Tools are not described (the adapters learn them, CAMPHOR
§5.3); the planner sees their names, shuffled per training sample (§6.2).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from agents.llm.base import Message, Role
from agents.memory import short_term
from agents.tools.registry import Registry
from agents.trajectory import render_caller, render_planner

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
    role: Role, states: list[dict[str, Any]], registry: Registry, *, few_shot: bool = False, memory: str = ""
) -> list[Message]:
    """The chat messages for ``role`` given the trajectory so far (system state first).

    ``memory``: the long-term memory line for this request (the planner's only). With trained
    adapters (``few_shot=False``) this is :func:`build_chat`."""
    if not few_shot:
        return build_chat(
            role, states, tool_names=sorted(tool.name for tool in registry), registry=registry, memory=memory
        )
    system_value = states[0]["value"] if states and states[0]["from"] == "system" else {}
    details = json.dumps(system_value.get("user_details", {}), ensure_ascii=False)
    system = template(role).format(user_details=details, tools=tool_lines(registry, with_parameters=role == "caller"))
    if memory and role == "planner":
        system += f"\nMemory: {memory}"
    # Earlier requests that do not fit are summarised (short-term memory), then the usual cut.
    states, earlier = summarised(states, limit=RECENT_STATES + 1)
    if earlier:
        system += f"\nEarlier in this chat: {earlier}"
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


# --- the chat format of the trained adapters ------------------------------------------

# Observations longer than this are cut in the prompt (lists of past records).
MAX_OBSERVATION_CHARS = 600
# A chat longer than this many states keeps its current request (and the latest earlier ones that
# fit) as turns; the requests before are summarised in the system message (short-term memory).
MAX_CHAT_STATES = 40


def chat_system(
    role: Role, states: list[dict[str, Any]], tool_names: list[str], *, memory: str = "", earlier: str = ""
) -> str:
    system_value = states[0]["value"] if states and states[0]["from"] == "system" else {}
    details = json.dumps(system_value.get("user_details", {}), ensure_ascii=False)
    text = template(f"{role}_chat").format(user_details=details)
    if role == "planner":
        text += "\nTools: " + ", ".join(tool_names)
        if memory:
            text += f"\nMemory: {memory}"
    if earlier:
        text += f"\nEarlier in this chat: {earlier}"
    return text


def summarised(states: list[dict[str, Any]], limit: int = MAX_CHAT_STATES) -> tuple[list[dict[str, Any]], str]:
    """(the states to show as turns, a summary of the requests left out): whole earlier requests
    are left out, oldest first, until the rest fits ``limit``; the current request always stays."""
    starts = [i for i, state in enumerate(states) if state["from"] == "user"]
    if len(states) <= limit or len(starts) < 2:
        return states, ""
    keep_from = starts[-1]
    for start in reversed(starts[:-1]):
        if len(states) - start + 1 > limit:
            break
        keep_from = start
    head = states[:1] if states and states[0]["from"] == "system" else []
    left_out = short_term.requests(states[len(head) : keep_from])
    lines = [f"({n}) {short_term.summary(request)}" for n, request in enumerate(left_out, 1)]
    return [*head, *states[keep_from:]], " ".join(lines)


def chat_line(role: Role, state: dict[str, Any]) -> str | None:
    """One non-own state as a line of a user turn (None: the role does not see it)."""
    kind, value = state["from"], state["value"]
    if kind == "user":
        return f"user: {value}"
    if kind == "observation":
        text = json.dumps(value, ensure_ascii=False)
        if len(text) > MAX_OBSERVATION_CHARS:
            text = text[: MAX_OBSERVATION_CHARS - 1] + "…"
        return f"observation: {text}"
    if kind == "planner" and role == "caller":
        return f"planner: {value.get('action', '')}"
    return None  # the planner does not see the caller's JSON: the observation follows its action


def own_output(role: Role, value: Any, registry: Registry | None = None) -> str:
    if role == "planner":
        return render_planner(value)
    if isinstance(value, dict) and "raw" in value:
        return str(value["raw"])
    return render_caller(value, registry)


def build_chat(
    role: Role,
    states: list[dict[str, Any]],
    *,
    tool_names: list[str],
    registry: Registry | None = None,
    memory: str = "",
) -> list[Message]:
    """The trajectory as chat turns for ``role``; the last message is the user turn to answer."""
    states, earlier = summarised(states)
    messages = [Message("system", chat_system(role, states, tool_names, memory=memory, earlier=earlier))]
    pending: list[str] = []
    for state in states[1:]:
        if state["from"] == role:
            messages.append(Message("user", "\n".join(pending)))
            messages.append(Message("assistant", own_output(role, state["value"], registry)))
            pending = []
            continue
        line = chat_line(role, state)
        if line is not None:
            pending.append(line)
    messages.append(Message("user", "\n".join(pending)))
    return messages
