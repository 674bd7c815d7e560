"""Short-term memory: the working state of a conversation, read from its trajectory.

The trajectory (the ``AgentStep`` rows) already holds everything that happened, so the state is
derived from it rather than stored twice: per request (a user message and what followed), the
complaint, the symptoms the tools were given, the questions asked and their answers, the
specializations triage ranked, the slots offered (numbered, so "the first one" has a referent) and
what was booked. ``summary`` writes a request as one compact line; the planner's prompt carries
the lines of earlier requests when their turns no longer fit (``agents.prompts``), so a long chat
is summarised instead of cut, and "actually make it Thursday" still knows what "it" is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

BOOKING_TOOLS = ("book_appointment", "confirm_appointment")
ASKING_TOOLS = ("get_input_from_user", "follow_up_with_user")
SYMPTOM_TOOLS = ("store_symptoms", "match_specialization", "get_available_specialists", "retrieve_past_complaints")


@dataclass
class Request:
    """What one request of the conversation gathered so far."""

    said: str
    symptoms: list[str] = field(default_factory=list)
    answers: list[tuple[str, str]] = field(default_factory=list)  # (question, answer)
    specializations: list[str] = field(default_factory=list)
    offered: list[dict[str, str]] = field(default_factory=list)  # name, specialist_id, date, time
    booked: dict[str, str] | None = None
    done: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "said": self.said,
            "symptoms": self.symptoms,
            "answers": [list(pair) for pair in self.answers],
            "specializations": self.specializations,
            "offered": self.offered,
            "booked": self.booked,
            "done": self.done,
        }


def requests(states: list[dict[str, Any]]) -> list[Request]:
    """The conversation's requests in order (the last one is the current one)."""
    found: list[Request] = []
    call: dict[str, Any] | None = None
    for state in states:
        role, value = state["from"], state["value"]
        if role == "user":
            found.append(Request(said=str(value)))
            call = None
            continue
        if not found:
            continue
        current = found[-1]
        if role == "planner" and isinstance(value, dict) and str(value.get("action", "")).strip() == "<END>":
            current.done = True
        elif role == "caller" and isinstance(value, dict):
            call = value
            symptoms = (value.get("parameters") or {}).get("symptoms")
            if value.get("tool") in SYMPTOM_TOOLS and isinstance(symptoms, str) and symptoms.strip():
                for symptom in (s.strip() for s in symptoms.split(",")):
                    if symptom and symptom.lower() not in (s.lower() for s in current.symptoms):
                        current.symptoms.append(symptom)
        elif role == "observation" and call is not None and isinstance(value, dict) and "result" in value:
            _observe(current, call, value["result"])
            call = None
    return found


def _observe(request: Request, call: dict[str, Any], result: Any) -> None:
    tool, parameters = call.get("tool"), call.get("parameters") or {}
    if tool in ASKING_TOOLS:
        question = parameters.get("questions") or parameters.get("current_symptoms") or ""
        answer = result.get("user") if isinstance(result, dict) else result
        request.answers.append((str(question), str(answer)))
    elif tool == "match_specialization" and isinstance(result, dict):
        request.specializations = [str(s) for s in result.get("specializations", [])]
    elif tool == "get_available_specialists" and isinstance(result, dict):
        offers = [result, *result.get("alternatives", [])]
        request.offered = [_offer(offer) for offer in offers if offer.get("specialist_id")]
    elif tool in BOOKING_TOOLS and result is True:
        request.booked = {
            "specialist_id": str(parameters.get("specialist_id", "")),
            "when": str(parameters.get("appointment_time_date", "")),
            "name": next(
                (o["name"] for o in request.offered if o["specialist_id"] == parameters.get("specialist_id")), ""
            ),
        }


def _offer(offer: dict[str, Any]) -> dict[str, str]:
    slot = offer.get("available_slot") or offer
    return {
        "specialist_id": str(offer.get("specialist_id", "")),
        "name": str(offer.get("name", "")),
        "date": str(slot.get("date", "")),
        "time": str(slot.get("time", "")),
    }


def summary(request: Request, limit: int = 360) -> str:
    """One compact line, what matters most first: what was said and booked, then triage, the
    numbered offers and the latest answers (cut at ``limit`` characters)."""
    parts = [f'said "{_cut(request.said, 60)}"']
    if request.booked:
        who = request.booked["name"] or f"specialist {request.booked['specialist_id']}"
        parts.append(f"booked {who} at {request.booked['when']}")
    elif request.offered:
        parts.append("nothing booked")
    if request.symptoms:
        parts.append("symptoms: " + ", ".join(request.symptoms[:6]))
    if request.specializations:
        parts.append("triage: " + ", ".join(request.specializations[:3]))
    if request.offered:
        offers = [f"[{i}] {o['name']} {o['date']} {o['time']}".strip() for i, o in enumerate(request.offered[:3], 1)]
        parts.append("offered " + "; ".join(offers))
    for question, answer in request.answers[-2:]:
        parts.append(f'asked "{_cut(question, 50)}" -> "{_cut(answer, 50)}"')
    return _cut("; ".join(parts), limit)


def _cut(text: str, limit: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
