"""End-to-end scenario cases (for ``agent_scenarios``) from generated test conversations.

A case replays the conversation's user side only: the first message, the
answers to follow-up questions, and yes/no to the proposed appointment; the
expected outcome is what the generated conversation did (the specialization
it searched, whether it booked). The model under test must get there itself.
"""

from __future__ import annotations

import itertools
from typing import Any

from agentlab.data.flows import APPOINTMENT_CATEGORIES

PROPOSAL_TOOLS = ("confirm_appointment", "store_symptoms")


def case_from_trajectory(row: dict[str, Any]) -> dict[str, Any] | None:
    """The scenario case of one generated appointment conversation (None for other categories)."""
    if row["category"] not in APPOINTMENT_CATEGORIES:
        return None
    states = row["interaction_trajectory"]
    message = next(state["value"] for state in states if state["from"] == "user")
    calls = [state["value"] for state in states if state["from"] == "caller"]
    searched = [c["parameters"].get("specialization") for c in calls if c["tool"] == "get_available_specialists"]
    booked = any(c["tool"] == "confirm_appointment" for c in calls)
    answers = []
    seen_search = False
    for previous, state in itertools.pairwise(states):
        if previous["from"] == "caller" and previous["value"]["tool"] == "get_available_specialists":
            seen_search = True
        if (
            state["from"] == "observation"
            and previous["from"] == "caller"
            and previous["value"]["tool"] == "get_input_from_user"
            and not seen_search  # questions before the search are follow-ups, after it the proposal
        ):
            answers.append(str(state["value"]["result"]))
    return {
        "id": row["conversation"],
        "category": row["category"],
        "unseen": row.get("unseen", False),
        "message": message,
        "answers": answers,
        "accept_appointment": booked,
        "expect": {"specializations": searched[-1:], "booked": booked},
    }
