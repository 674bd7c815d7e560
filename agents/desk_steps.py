"""How the runtime's desks write their steps and find them again (agents/*_desk.py).

A desk's planner steps begin with its name ("Appointments desk:"), so the chat page shows its answers
as written and the desk recognises, on resume, the question it asked itself. Its answers go through
``answer_user``: text rendered from the records, not the model's words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agents.models import Conversation
from agents.trajectory import END

if TYPE_CHECKING:
    from agents.runtime import Runtime


def plan(runner: Runtime, desk: str, why: str, action: str) -> None:
    runner.append("planner", {"reason": f"{desk} {why}", "action": action})


def answer(runner: Runtime, message: str) -> None:
    runner.execute_call({"tool": "answer_user", "parameters": {"user_id": runner.user_ref, "message": message}})


def tell(runner: Runtime, desk: str, why: str, message: str) -> None:
    plan(runner, desk, why, "Tell the user.")
    answer(runner, message)


def end(runner: Runtime, desk: str, why: str) -> bool:
    """The desk's last step: the request is over."""
    runner.append("planner", {"reason": f"{desk} {why}", "action": END})
    runner.set_status(Conversation.Status.COMPLETED)
    return True


def desk_tool(states: list[dict[str, Any]], desk: str) -> str | None:
    """The tool of the caller step before the last state, when ``desk`` chose it."""
    if len(states) < 3 or states[-2]["from"] != "caller" or states[-3]["from"] != "planner":
        return None
    reason = str((states[-3]["value"] or {}).get("reason", "")) if isinstance(states[-3]["value"], dict) else ""
    if not reason.startswith(desk):
        return None
    call = states[-2]["value"] if isinstance(states[-2]["value"], dict) else {}
    return str(call.get("tool", ""))


def users_answer(observation: dict[str, Any]) -> str:
    """What the user answered, from a question's observation (a plain answer or a consent's dict)."""
    value = observation["value"] if isinstance(observation["value"], dict) else {}
    result = value.get("result")
    return str(result.get("user", "") if isinstance(result, dict) else result or "")
