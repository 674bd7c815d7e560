"""The SOS guard: hard SOS start, hard SOS end and soft SOS always complete.

These three flows are fixed tool sequences (seed paper D.4 to D.6). The runtime
lets the model drive them, but checks every proposed call against the next
required step. When the model emits garbage, proposes a step out of order,
repeats itself, ends early, times out, raises or is not loaded at all, the
guard performs every missing step itself, with the same tools (so the same
database effects, the same outbox rows), writes them into the trajectory like
any other step, and records on the alert that it acted.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ValidationError
from django.template.loader import render_to_string

from agents.models import Conversation
from agents.tools.emergency import active_dispatch
from agents.trajectory import END
from health.models import Alert, AlertEvent, OutboundMessage
from health.sos.delivery import emergency_number, phase_delivery, settled_delivery, should_call_now
from health.sos.soft import soft_sos_notice
from health.validators import normalize_e164

if TYPE_CHECKING:
    from agents.runtime import Runtime

log = logging.getLogger(__name__)

# Coordinates are compared to this many degrees (~1 m): the ambulance must be
# sent where get_location said the user is, not where the model imagines.
LOCATION_TOLERANCE = 1e-5


@dataclass(frozen=True)
class RequiredStep:
    """One step of a fixed SOS sequence, and how the guard performs it itself."""

    tool: str
    action: str
    # Build the parameters from the database and the trajectory so far; None
    # means the step cannot be done (e.g. no ambulance was found to message).
    parameters: Callable[[Runtime], dict[str, Any] | None]
    recipient: str = ""  # for send_message: "ambulance" or "contacts"

    def matches(self, call: dict[str, Any], states: list[dict[str, Any]]) -> bool:
        if call.get("tool") != self.tool:
            return False
        params = call.get("parameters", {})
        if self.recipient == "ambulance":
            # The number must be the ambulance the trajectory found, not any
            # number send_message would accept (an emergency contact's, say).
            found = last_result(states, "search_ambulance") or last_result(states, "get_assigned_ambulance")
            return (
                isinstance(found, dict)
                and _same_number(params.get("phone_no"), found.get("phone_no"))
                and not params.get("to_emergency_contacts")
            )
        if self.recipient == "contacts":
            return params.get("to_emergency_contacts") is True and not params.get("phone_no")
        if self.tool == "search_ambulance":
            located = last_result(states, "get_location")
            given = params.get("location") or {}
            return isinstance(located, dict) and all(
                abs(float(given.get(key, 1e9)) - float(located[key])) <= LOCATION_TOLERANCE
                for key in ("latitude", "longitude")
            )
        return True


def _same_number(given: Any, expected: Any) -> bool:
    try:
        return normalize_e164(str(given)) == normalize_e164(str(expected))
    except ValidationError:
        return False


def last_result(states: list[dict[str, Any]], tool: str) -> Any:
    """The result of the latest successful call of ``tool`` in ``states`` (None if none)."""
    for position in range(len(states) - 1, 0, -1):
        state, previous = states[position], states[position - 1]
        if (
            state["from"] == "observation"
            and previous["from"] == "caller"
            and previous["value"].get("tool") == tool
            and "result" in state["value"]
        ):
            return state["value"]["result"]
    return None


# --- parameter builders: deterministic, from the database and the trajectory ----------


def _name(runtime: Runtime) -> str:
    user = runtime.conversation.user
    return user.get_full_name() or user.get_username()


def _location_text(runtime: Runtime) -> str:
    """Where get_location said the user is: coordinates (5 decimals, ~1 m) plus a map link the
    crew's phone opens without our app."""
    located = last_result(runtime.states, "get_location")
    if not isinstance(located, dict):
        return _text("_location.txt")
    lat, lon = float(located["latitude"]), float(located["longitude"])
    return _text("_location.txt", lat=f"{lat:.5f}", lon=f"{lon:.5f}")


def _assigned(runtime: Runtime):
    dispatch = active_dispatch(runtime.context(len(runtime.states)))
    return dispatch.ambulance if dispatch is not None else None


def _notify(text: Callable[[Runtime], str]) -> Callable[[Runtime], dict[str, Any]]:
    return lambda runtime: {"user_id": runtime.user_ref, "message": text(runtime)}


def _search(runtime: Runtime) -> dict[str, Any] | None:
    located = last_result(runtime.states, "get_location")
    if not isinstance(located, dict):
        return None
    return {"location": {"latitude": located["latitude"], "longitude": located["longitude"]}}


def _to_ambulance(text: Callable[[Runtime], str]) -> Callable[[Runtime], dict[str, Any] | None]:
    def build(runtime: Runtime) -> dict[str, Any] | None:
        ambulance = _assigned(runtime)
        return None if ambulance is None else {"phone_no": ambulance.phone, "text": text(runtime)}

    return build


def _to_contacts(text: Callable[[Runtime], str]) -> Callable[[Runtime], dict[str, Any]]:
    return lambda runtime: {"text": text(runtime), "to_emergency_contacts": True}


FALSE_ALARM = "FALSE ALARM"


def _text(template: str, **context: Any) -> str:
    """A text a person reads, from its template (agents/templates/agents/sos/) and recorded state.
    The first line is the notification's title, the rest its body; spaces are tidied per line."""
    rendered = render_to_string(f"agents/sos/{template}", context)
    return "\n".join(" ".join(line.split()) for line in rendered.splitlines() if line.strip())


def _reason(runtime: Runtime) -> str:
    alert = runtime.alert
    return alert.end_reason if alert is not None and alert.end_reason else Alert.EndReason.SAFE


def is_false_alarm(runtime: Runtime) -> bool:
    """Whether this end run closes a hard SOS the patient ended as a false alarm."""
    return _reason(runtime) == Alert.EndReason.FALSE_ALARM


def _end_to_ambulance(runtime: Runtime) -> str:
    return _text("end_to_ambulance.txt", reason=_reason(runtime), name=_name(runtime))


def _end_to_contacts(runtime: Runtime) -> str:
    return _text("end_to_contacts.txt", reason=_reason(runtime), name=_name(runtime))


def _who(runtime: Runtime, phase: str) -> dict[str, str]:
    """How the closing messages name the recipients: the ambulance by its id, contacts by name."""
    ambulance = _assigned(runtime)
    contacts = phase_delivery(runtime.alert, phase).contacts.names if runtime.alert is not None else ()
    names = ", ".join(contacts)
    plural = "contacts" if len(contacts) != 1 else "contact"
    return {
        "ambulance_who": f"the ambulance service ({ambulance.code})" if ambulance else "the ambulance service",
        "contacts_who": f"your emergency {plural} ({names})" if names else "your emergency contacts",
    }


def _start_summary(runtime: Runtime) -> str:
    """The closing message of the start: what the outbox says each SMS did (after waiting
    briefly for the provider's answers), never a fixed "help is on its way"."""
    alert = runtime.alert
    if alert is None:
        return f"The SOS sequence ran without an alert on record: call {emergency_number()} now."
    start = settled_delivery(alert, OutboundMessage.Phase.START)
    return _text(
        "start_summary.txt",
        start=start,
        call_now=start.undelivered
        or not start.ambulance.total
        or not start.contacts.total
        or should_call_now(alert, start),
        number=emergency_number(),
        **_who(runtime, OutboundMessage.Phase.START),
    )


def _end_summary(runtime: Runtime) -> str:
    alert = runtime.alert
    if alert is None:
        return "The SOS has ended."
    end = settled_delivery(alert, OutboundMessage.Phase.END)
    return _text(
        "end_summary.txt",
        end=end,
        reason=Alert.EndReason(_reason(runtime)).label.lower().replace("i'm", "you are"),
        **_who(runtime, OutboundMessage.Phase.END),
    )


def soft_sos_text(runtime: Runtime) -> str:
    """The soft SOS notification of D.4: the alert's vitals report as the vitals monitor worded
    it (``health.sos.soft.soft_sos_notice``), so the patient reads one text with the
    right units; notify_user refuses any other wording for a soft SOS."""
    return soft_sos_notice(runtime.alert).body


HARD_SOS_START = (
    RequiredStep(
        "notify_user",
        "Call notify_user to inform the user that the SOS process is being triggered.",
        _notify(lambda r: _text("start_notice.txt")),
    ),
    RequiredStep("get_location", "Call get_location to fetch the user's current coordinates.", lambda r: {}),
    RequiredStep(
        "search_ambulance",
        "Call search_ambulance with the location to find the nearest available ambulance.",
        _search,
    ),
    RequiredStep(
        "send_message",
        "Call send_message to notify the ambulance with the user's location and details.",
        _to_ambulance(lambda r: _text("start_to_ambulance.txt", name=_name(r), location=_location_text(r))),
        recipient="ambulance",
    ),
    RequiredStep(
        "send_message",
        "Call send_message to notify emergency contacts about the SOS and user's location.",
        _to_contacts(lambda r: _text("start_to_contacts.txt", name=_name(r), location=_location_text(r))),
        recipient="contacts",
    ),
    RequiredStep(
        "notify_user",
        "Call notify_user to inform the user about the completion of the SOS process.",
        _notify(_start_summary),
    ),
)

HARD_SOS_END = (
    RequiredStep(
        "notify_user",
        "Call notify_user to inform the user about the initiation of the End SOS process.",
        _notify(lambda r: _text("end_notice.txt")),
    ),
    RequiredStep(
        "get_assigned_ambulance",
        "Call get_assigned_ambulance to retrieve the ambulance details.",
        lambda r: {"user_id": r.user_ref},
    ),
    RequiredStep(
        "send_message",
        "Call send_message to inform the ambulance about the End SOS.",
        _to_ambulance(_end_to_ambulance),
        recipient="ambulance",
    ),
    RequiredStep(
        "send_message",
        "Call send_message to inform emergency contacts about the SOS resolution.",
        _to_contacts(_end_to_contacts),
        recipient="contacts",
    ),
    RequiredStep(
        "notify_user",
        "Call notify_user to inform the user about the successful completion of the End SOS process.",
        _notify(_end_summary),
    ),
)

SOFT_SOS = (
    RequiredStep(
        "notify_user",
        "Call notify_user to inform the user about the abnormal vitals.",
        _notify(soft_sos_text),
    ),
)

SEQUENCES: dict[str, tuple[RequiredStep, ...]] = {
    Conversation.Kind.HARD_SOS_START: HARD_SOS_START,
    Conversation.Kind.HARD_SOS_END: HARD_SOS_END,
    Conversation.Kind.SOFT_SOS: SOFT_SOS,
}


class SosGuard:
    """Checks proposed calls against a fixed sequence and completes what is missing."""

    def __init__(self, sequence: tuple[RequiredStep, ...], *, alert: Alert | None = None) -> None:
        self.sequence = sequence
        self.alert = alert  # the alert the run is about, when the caller knows it

    def progress(self, states: list[dict[str, Any]]) -> int:
        """How many required steps the trajectory has completed, in order, successfully."""
        done = 0
        for position in range(1, len(states)):
            state, previous = states[position], states[position - 1]
            if done == len(self.sequence):
                break
            if state["from"] != "observation" or previous["from"] != "caller" or "result" not in state["value"]:
                continue
            if self.sequence[done].matches(previous["value"], states[: position - 1]):
                done += 1
        return done

    def is_complete(self, states: list[dict[str, Any]]) -> bool:
        return self.progress(states) == len(self.sequence)

    def allows(self, call: dict[str, Any], states: list[dict[str, Any]]) -> bool:
        """Whether ``call`` is the next required step (anything after the last one is refused)."""
        done = self.progress(states)
        return done < len(self.sequence) and self.sequence[done].matches(call, states)

    def written(self, call: dict[str, Any], runtime: Runtime) -> dict[str, Any]:
        """``call`` with the guard's own parameters when it is the next required step's tool.

        The model chooses the next step; what an SOS step says and to whom is
        written from the records (the user's location, the dispatched
        ambulance, the outbox's delivery states, the patient's end reason),
        never taken from the model's text: a small model copies "help is on
        its way" from its training whatever the outbox says. A call of another
        tool is returned as it is, and refused by ``allows``.
        """
        done = self.progress(runtime.states)
        if done >= len(self.sequence) or call.get("tool") != self.sequence[done].tool:
            return call
        parameters = self.sequence[done].parameters(runtime)
        return call if parameters is None else {"tool": call["tool"], "parameters": parameters}

    def refusal(self, call: dict[str, Any], states: list[dict[str, Any]]) -> str:
        """Why ``call`` is refused, for the error observation."""
        done = self.progress(states)
        if done == len(self.sequence):
            return "SOS guard: the SOS sequence is complete; the only next action is <END>."
        step = self.sequence[done]
        if call.get("tool") != step.tool:
            return f"SOS guard: the next required step is {step.tool}."
        if step.tool == "search_ambulance":
            return "SOS guard: search_ambulance must use the location returned by get_location."
        if step.recipient:
            return f"SOS guard: this send_message step goes to the {step.recipient}."
        return f"SOS guard: these parameters are not allowed for {step.tool}."

    def complete(self, runtime: Runtime, *, reason: str) -> None:
        """Perform every missing step deterministically, end the run, and record that the guard acted."""
        done = self.progress(runtime.states)
        performed: list[str] = []
        failed: list[str] = []
        for step in self.sequence[done:]:
            parameters = step.parameters(runtime)
            if parameters is None:
                failed.append(f"{step.tool} (skipped: prerequisite missing)")
                continue
            reason_text = f"SOS guard: {reason}. Completing the required sequence."
            runtime.append("planner", {"reason": reason_text, "action": step.action})
            observation = runtime.execute_call({"tool": step.tool, "parameters": parameters})
            (performed if "result" in observation else failed).append(step.tool)
        runtime.append("planner", {"reason": "SOS guard: the SOS sequence is complete.", "action": END})
        runtime.set_status(
            Conversation.Status.COMPLETED if not failed else Conversation.Status.FAILED,
            error="" if not failed else f"SOS guard could not complete: {', '.join(failed)}",
        )
        log.warning("SOS guard acted (conversation %s): %s", runtime.conversation.pk, reason)
        alert = runtime.alert
        if alert is not None:
            Alert.objects.filter(pk=alert.pk).update(guard_acted=True)
            alert.guard_acted = True
            message = f"The SOS guard completed {len(performed)} step(s) the model did not ({reason})."
            AlertEvent.objects.create(
                alert=alert,
                kind="guard_acted",
                message=message[:255],
                data={
                    "conversation": runtime.conversation.pk,
                    "reason": reason,
                    "performed": performed,
                    "failed": failed,
                },
            )


def guard_for(kind: str, alert: Alert | None = None) -> SosGuard | None:
    """The guard of a conversation kind (about ``alert`` when known), or None
    for unguarded kinds (chat)."""
    sequence = SEQUENCES.get(kind)
    return SosGuard(sequence, alert=alert) if sequence is not None else None
