"""The decline guard: a declined appointment still leaves the complaint and the referral on record.

In the seed paper's decline flow (D.2) the assistant finds a specialist, proposes the appointment,
and when the user says no it stores the symptoms and tells the user so. A small model sometimes
ends right after the "no", or loops until the step limit: the user's complaint was then lost, and
so was the specialist triage chose for it. Like the SOS guard (agents.sos.guard), this guard runs
after the model, with the same tools, and writes its steps into the trajectory like any other:

- no specialist searched in this request: ``match_specialization`` (unless it ran) and
  ``get_available_specialists`` for the specialization triage ranked first (a search; nothing is
  held or booked);
- no symptoms stored: ``store_symptoms`` with the bank symptoms the user named and did not deny
  (:func:`agents.tools.said.symptoms_in`) and, as written, each short clause of a complaint that
  names none of them ("my knee is swollen").
  ``store_symptoms`` keeps only what the user said, so the guard cannot store a symptom the user
  did not name;
- when it did one of these and the user was not told after the "no": ``notify_user`` with
  ``agents/decline_notice.txt``.

It acts only when the user declined an offered appointment in this request and the request names
a complaint (:func:`agents.tools.said.names_a_complaint`); it never calls the model.
"""

from __future__ import annotations

import itertools
import logging
import re
from typing import TYPE_CHECKING, Any

from django.template.loader import render_to_string

from agents.models import Conversation
from agents.tools import said
from agents.tools.symptoms import complaint
from agents.tools.transcript import QUESTION_TOOLS
from agents.trajectory import END

if TYPE_CHECKING:
    from agents.runtime import Runtime

log = logging.getLogger(__name__)

SEARCH = "get_available_specialists"
MATCH = "match_specialization"
STORE = "store_symptoms"
NOTIFY = "notify_user"

# A question that offers an appointment (or one asked after a specialist was found).
_PROPOSAL = re.compile(
    r"\b(book|books|booking|appointments?|schedul(?:e|ing)|reserve|slot|shall\s+i|would\s+you\s+like\s+to\s+see)\b",
    re.IGNORECASE,
)
# The user's no: "No, thank you.", "not now", "maybe later", "I'll pass"; not "no problem" or "not sure".
_DECLINE = re.compile(
    r"^\W*(?!no\s+(?:problem|worries)\b|not\s+sure\b)"
    r"(?:no|nope|nah|not|don'?t|do\s+not|decline[ds]?|cancel|never\s*mind|maybe\s+later|later|"
    r"i'?ll\s+pass|pass|i'?d\s+rather\s+not|i\s+(?:don'?t|do\s+not)\s+(?:want|need))\b",
    re.IGNORECASE,
)


def _request(states: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The states of the current request: from the user's latest message on."""
    latest = max((i for i, state in enumerate(states) if state["from"] == "user"), default=0)
    return states[latest:]


def _calls(states: list[dict[str, Any]]) -> list[tuple[int, dict[str, Any], dict[str, Any]]]:
    """(position, call, observation) of each executed call in ``states``."""
    found = []
    for position, (previous, state) in enumerate(itertools.pairwise(states), start=1):
        if previous["from"] == "caller" and state["from"] == "observation":
            call = previous["value"] if isinstance(previous["value"], dict) else {}
            value = state["value"] if isinstance(state["value"], dict) else {}
            found.append((position, call, value))
    return found


def _answer(value: dict[str, Any]) -> str:
    result = value.get("result")
    return str(result.get("user", "") if isinstance(result, dict) else result or "")


def declined_at(states: list[dict[str, Any]]) -> int | None:
    """Where the user declined the appointment offered in this request (the answer's position in
    ``states``), or None when no appointment was offered or the user's last answer to an offer was
    not a no."""
    request = _request(states)
    offset = len(states) - len(request)
    found = False
    answer_at: int | None = None
    for position, call, value in _calls(request):
        if call.get("tool") == SEARCH and "result" in value:
            found = True
        if call.get("tool") in QUESTION_TOOLS and "result" in value:
            question = " ".join(str(v) for v in (call.get("parameters") or {}).values())
            if found or _PROPOSAL.search(question):
                answer_at = position if _DECLINE.match(_answer(value)) else None
    return None if answer_at is None else offset + answer_at


def _referral(request: list[dict[str, Any]]) -> str:
    """The specialization found in this request: the specialist searched, else triage's first."""
    for _, call, value in reversed(_calls(request)):
        if call.get("tool") == SEARCH:
            result = value.get("result")
            named = re.search(r"\(([^()]+)\)\s*$", str(result.get("name", ""))) if isinstance(result, dict) else None
            if named:
                return named.group(1).lower()
            if (call.get("parameters") or {}).get("specialization"):
                return str(call["parameters"]["specialization"]).lower()
    for _, call, value in reversed(_calls(request)):
        result = value.get("result")
        if call.get("tool") == MATCH and isinstance(result, dict) and result.get("specializations"):
            return str(result["specializations"][0]).lower()
    return ""


def notice(symptoms: str, specialization: str) -> str:
    article = "an" if specialization[:1] in ("a", "e", "i", "o", "u") else "a"
    rendered = render_to_string(
        "agents/decline_notice.txt",
        {"symptoms": symptoms, "specialization": specialization, "article": article},
    )
    return " ".join(rendered.split())


def complete(runtime: Runtime, *, reason: str) -> bool:
    """Do what a declined chat left undone and end it; False (nothing done) when the user did not
    decline an offered appointment, the request names no complaint, or the search and the stored
    symptoms are both there."""
    if runtime.guard is not None or runtime.conversation.kind != Conversation.Kind.CHAT:
        return False
    declined = declined_at(runtime.states)
    if declined is None:
        return False
    request = _request(runtime.states)
    text = "\n".join(
        [str(request[0]["value"])] + [_answer(v) for _, c, v in _calls(request) if c.get("tool") in QUESTION_TOOLS]
    )
    if not said.names_a_complaint(text):
        return False
    symptoms = ", ".join(complaint(text)) or str(request[0]["value"])[:500]
    done = {c.get("tool") for _, c, v in _calls(request) if "result" in v}
    searched = any(c.get("tool") == SEARCH for _, c, _ in _calls(request))
    told = any(c.get("tool") == NOTIFY and "result" in v for _, c, v in _calls(runtime.states[declined:]))
    steps: list[tuple[str, dict[str, Any]]] = []
    if not searched and MATCH not in done:
        steps.append(
            ("Find which specializations treat the complaint.", {"tool": MATCH, "parameters": {"symptoms": symptoms}})
        )
    if not searched:
        steps.append(
            (
                "Find a specialist of the specialization triage chose.",
                {"tool": SEARCH, "parameters": {"symptoms": symptoms}},
            )
        )
    if STORE not in done:
        local = runtime.clock().astimezone(runtime.context(len(runtime.states)).tz).replace(tzinfo=None)
        parameters = {
            "user_id": runtime.user_ref,
            "symptoms": symptoms,
            "timestamp": local.isoformat(timespec="seconds"),
        }
        steps.append(("Store the symptoms for future reference.", {"tool": STORE, "parameters": parameters}))
    if not steps:
        return False  # the model stored and searched: how it told the user is its own
    log.warning("decline guard acted (conversation %s): %s", runtime.conversation.pk, reason)
    stored = STORE in done
    for action, call in steps:
        runtime.append(
            "planner", {"reason": f"Decline guard: the user declined the appointment; {reason}.", "action": action}
        )
        observation = runtime.execute_call(call)
        stored = stored or (call["tool"] == STORE and "result" in observation)
    if not told:
        runtime.append(
            "planner",
            {
                "reason": "Decline guard: the user declined the appointment.",
                "action": "Tell the user what is on record.",
            },
        )
        kept = _stored_symptoms(runtime) if stored else ""
        runtime.execute_call(
            {
                "tool": NOTIFY,
                "parameters": {
                    "user_id": runtime.user_ref,
                    "message": notice(kept, _referral(_request(runtime.states))),
                },
            }
        )
    runtime.append("planner", {"reason": "Decline guard: the complaint and the referral are on record.", "action": END})
    runtime.set_status(Conversation.Status.COMPLETED)
    return True


def _stored_symptoms(runtime: Runtime) -> str:
    record = runtime.conversation.symptom_records.order_by("-pk").first()
    return ", ".join(record.symptoms) if record is not None and record.symptoms else ""
