"""What a tool may read of its own conversation: the user's words and earlier tool results.

Tools act on what happened in the conversation, not on a small model's
paraphrase of it. Both readers take the conversation's stored steps (the
§6.1.1 states) and never look outside that conversation.
"""

from __future__ import annotations

import itertools
from typing import Any

from agents.trajectory import export_conversation

# Tools whose observation is the user's answer to a question.
QUESTION_TOOLS = ("get_input_from_user", "follow_up_with_user")


def _states(conversation) -> list[dict[str, Any]]:
    if conversation is None:
        return []
    return export_conversation(conversation)


def _request_states(conversation) -> list[dict[str, Any]]:
    """The states from the user's latest message on ([] when the user has said nothing)."""
    states = _states(conversation)
    latest = max((i for i, state in enumerate(states) if state["from"] == "user"), default=None)
    return [] if latest is None else states[latest:]


def said_in_request(conversation) -> str:
    """The user's latest message and their answers to the questions asked after it ("" without a
    conversation). Earlier requests of a long chat are left out: they are about something else."""
    return " ".join(request_parts(conversation))


def request_parts(conversation) -> list[str]:
    """What :func:`said_in_request` joins: the user's latest message, then each answer in order."""
    states = _request_states(conversation)
    if not states:
        return []
    words = [str(states[0]["value"])]
    for previous, state in itertools.pairwise(states):
        if state["from"] == "observation" and previous["from"] == "caller":
            call = previous["value"] if isinstance(previous["value"], dict) else {}
            if call.get("tool") in QUESTION_TOOLS:
                result = state["value"].get("result") if isinstance(state["value"], dict) else None
                answer = result.get("user", "") if isinstance(result, dict) else result
                if answer:
                    words.append(str(answer))
    return words


def _calls(states: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """(tool, observation) of each call in ``states``, in order; the observation holds ``result`` or
    ``error``."""
    calls = []
    for previous, state in itertools.pairwise(states):
        if previous["from"] == "caller" and state["from"] == "observation":
            call = previous["value"] if isinstance(previous["value"], dict) else {}
            calls.append((str(call.get("tool", "")), state["value"] if isinstance(state["value"], dict) else {}))
    return calls


def last_result(conversation, tool: str, *, request_only: bool = False) -> Any:
    """The result of the latest successful ``tool`` call in this conversation (or, with
    ``request_only``, since the user's latest message), else None."""
    states = _request_states(conversation) if request_only else _states(conversation)
    found = None
    for name, observation in _calls(states):
        if name == tool and "result" in observation:
            found = observation["result"]
    return found


def calls_in_request(conversation) -> list[tuple[str, dict[str, Any]]]:
    """(tool, observation) of each call made since the user's latest message, in order."""
    return _calls(_request_states(conversation))


def answered_questions(conversation) -> list[tuple[str, str]]:
    """(question as the model wrote it, the user's answer) for each ``get_input_from_user`` call
    answered since the user's latest message, in order."""
    pairs = []
    for previous, state in itertools.pairwise(_request_states(conversation)):
        if state["from"] == "observation" and previous["from"] == "caller":
            call = previous["value"] if isinstance(previous["value"], dict) else {}
            result = state["value"].get("result") if isinstance(state["value"], dict) else None
            if call.get("tool") == "get_input_from_user" and isinstance(call.get("parameters"), dict):
                pairs.append((str(call["parameters"].get("questions", "")), str(result or "")))
    return pairs
