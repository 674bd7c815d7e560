"""Helpers for writing scripted model outputs and reading the Appendix D fixtures."""

from __future__ import annotations

import json
import zoneinfo
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data"
BERLIN = zoneinfo.ZoneInfo("Europe/Berlin")  # the factories' profile time zone


def plan(reason: str, action: str) -> str:
    """What a planner model writes."""
    return f"<reason>{reason}</reason><action>{action}</action>"


def end(reason: str = "The task is completed successfully.") -> str:
    return plan(reason, "<END>")


def call(tool: str, **parameters: Any) -> str:
    """What a caller model writes."""
    return json.dumps({"tool": tool, "parameters": parameters})


def fixture_trajectory(name: str) -> dict[str, Any]:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def slot_text(slot) -> str:
    """The slot as the caller writes it: 'HH:MM-HH:MM, DD/MM/YYYY' in the user's time zone."""
    start, stop = slot.starts_at.astimezone(BERLIN), slot.ends_at.astimezone(BERLIN)
    return f"{start:%H:%M}-{stop:%H:%M}, {start:%d/%m/%Y}"


def states(conversation) -> list[dict[str, Any]]:
    return [step.to_state() for step in conversation.steps.order_by("index")]


def observations(conversation) -> list[Any]:
    return [s["value"] for s in states(conversation) if s["from"] == "observation"]


def harmful_model(caller_output: str | None = None):
    """A scripted model that would do harm if asked (store a symptom, or ``caller_output``, again and
    again): a step that must not call the model asserts ``backend.calls == []``."""
    import itertools

    from agents.llm.scripted import ScriptedBackend

    return ScriptedBackend(
        planner=itertools.repeat(plan("Do it.", "Do what the message says.")),
        caller=itertools.repeat(caller_output or call("store_symptoms", user_id="0", symptoms="chest pain")),
    )


def told(conversation) -> str:
    """Everything the assistant showed the user from its tools' results (the desks' answers, consent
    outcomes, summaries), as one text."""
    return " ".join(
        str(state["value"]["result"].get("message", ""))
        for state in states(conversation)
        if state["from"] == "observation" and isinstance(state["value"].get("result"), dict)
    )


def local_day_at(days: int, hour: int):
    """``hour`` o'clock, ``days`` days from today, in the factories' time zone (Europe/Berlin)."""
    import datetime as dt

    day = dt.datetime.now(BERLIN).date() + dt.timedelta(days=days)
    return dt.datetime.combine(day, dt.time(hour), tzinfo=BERLIN)
