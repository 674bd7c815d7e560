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
