"""What the Action Manager adds to the Health Manager's daily report (``health.reports.hooks``).

- **Key points of the day's conversations**: one line per conversation the patient had that day, the
  title (their own first words) and what the assistant did for them, read from the stored steps (a
  tool call counts only when its observation is not an error). Lookups the assistant made ("read
  the vitals") are left out: they changed nothing.
- **The narrator**: the planner's backend writes a short summary from the computed facts, when
  ``REPORT_MODEL_NARRATIVE`` is on. The Health Manager keeps it only if it passes the fact check.

Registered in ``AgentsConfig.ready()``.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import re
from pathlib import Path
from typing import Any

from django.conf import settings
from django.template.loader import render_to_string

from agents.llm.base import BackendError, Message
from agents.models import AgentStep, Conversation
from health.models import Appointment, OutboundMessage

PROMPT = Path(__file__).resolve().parent / "prompts" / "daily_report.txt"
# Tool calls that changed something for the patient, as the report names them.
DONE = {
    "match_specialization": "found the kind of specialist to see",
    "save_appointment_history": "saved the appointment to the history",
    "set_medication_reminder": "set a medicine reminder",
    "store_symptoms": "noted the symptoms",
    "search_ambulance": "looked for an ambulance",
}


def conversation_points(user_id: int, start: dt.datetime, end: dt.datetime) -> list[str]:
    """One line per conversation of the user with a step in [start, end), oldest first."""
    conversations = (
        Conversation.objects.filter(user_id=user_id, steps__created_at__gte=start, steps__created_at__lt=end)
        .distinct()
        .order_by("created_at")
    )
    points = []
    for conversation in conversations:
        steps = list(
            AgentStep.objects.filter(
                conversation=conversation,
                created_at__gte=start,
                created_at__lt=end,
                role__in=(AgentStep.Role.CALLER, AgentStep.Role.OBSERVATION),
            ).order_by("index")
        )
        done: list[str] = []
        for call, answer in itertools.pairwise(steps):
            if call.role != AgentStep.Role.CALLER or answer.role != AgentStep.Role.OBSERVATION:
                continue
            failed = isinstance(answer.payload, dict) and "error" in answer.payload
            phrase = None if failed else _what_was_done(conversation, call, answer)
            if phrase and phrase not in done:
                done.append(phrase)
        points.append(
            " ".join(
                render_to_string(
                    "agents/report_point.txt",
                    {"conversation": conversation, "kind": conversation.get_kind_display(), "done": done},
                ).split()
            )
        )
    return points


# What a booking or a text did is read from its record, never from the model's call: a slot the
# tool held is not "booked" until the patient confirms it, and a queued or refused text is not "sent".
_APPOINTMENT_TOOLS = ("book_appointment", "confirm_appointment")
_APPOINTMENT_DONE = {"confirmed": "booked an appointment", "completed": "booked an appointment",
                     "held": "held an appointment slot for you to confirm (not booked yet)"}  # fmt: skip
_MESSAGE_DONE = {"sent": "sent a text message", "queued": "queued a text message (not sent yet)",
                 "undelivered": "tried to send a text message that was not delivered"}  # fmt: skip


def _what_was_done(conversation: Conversation, call: AgentStep, answer: AgentStep) -> str | None:
    tool = (call.payload or {}).get("tool", "")
    result = answer.payload.get("result") if isinstance(answer.payload, dict) else None
    if tool in _APPOINTMENT_TOOLS:
        states = set(Appointment.objects.filter(conversation=conversation).values_list("state", flat=True))
        for state in ("confirmed", "completed", "held"):
            if state in states:
                return _APPOINTMENT_DONE[state]
        return None
    if tool == "send_message":
        return _message_done(conversation, call, result)
    if isinstance(result, dict) and result.get("status") in ("not sent", "not set"):
        return None  # the user said no, or the tool refused: nothing was done
    return DONE.get(tool)


def _message_done(conversation: Conversation, call: AgentStep, result: Any) -> str | None:
    rows = OutboundMessage.objects.filter(
        user_id=conversation.user_id, idempotency_key__startswith=f"agent:{conversation.pk}:{call.index}:"
    )
    statuses = set(rows.values_list("status", flat=True))
    if not statuses:
        return None  # nothing was queued (declined, over the limit, refused)
    if OutboundMessage.Status.SENT in statuses:
        return _MESSAGE_DONE["sent"]
    if OutboundMessage.Status.QUEUED in statuses:
        return _MESSAGE_DONE["queued"]
    return _MESSAGE_DONE["undelivered"]


def narrate(facts: dict[str, Any]) -> str | None:
    """A short summary of the day by the planner's backend; None when no model is available."""
    from agents.services import load_backend  # the services import the runtime and its tools: deferred

    backend = load_backend()
    if backend is None:
        return None
    shown = {key: value for key, value in facts.items() if key not in ("conversations", "symptoms")}
    messages = [
        Message("system", PROMPT.read_text(encoding="utf-8")),
        Message("user", json.dumps(shown, ensure_ascii=False)),
    ]
    try:
        generation = backend.generate("planner", messages, ("\n\n",), timeout=settings.AGENT_CALL_TIMEOUT_SECONDS)
    except BackendError:
        return None
    # A planner adapter may still answer in its own format: keep the words, not the tags.
    return re.sub(r"<[^>]+>", " ", generation.text).strip() or None
