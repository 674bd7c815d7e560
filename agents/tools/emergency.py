"""Emergency tools: where the user is, the nearest ambulance, and SMS.

``send_message`` is the one tool that reaches outside the device, so it
decides recipients itself: the user's emergency contacts, or the ambulance
dispatched to the user's SOS. A number the model wrote is only accepted if it
is one of those; a made-up number is refused, never messaged.
"""

from __future__ import annotations

import math
from typing import TypedDict

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from agents.errors import InvalidArguments, NotAuthorised, NotFound, ToolError
from agents.models import Conversation
from agents.tools.context import ToolContext
from agents.tools.interaction import AskUser, clear_yes, resuming
from agents.tools.registry import tool
from health.messaging.outbox import queue_sms
from health.models import Alert, AlertEvent, Ambulance, Dispatch, OutboundMessage
from health.validators import normalize_e164

EARTH_RADIUS_KM = 6371.0088


class Location(TypedDict):
    latitude: float
    longitude: float


def haversine_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Great-circle distance between two points, in kilometres."""
    phi1, phi2 = math.radians(lat1), math.radians(lat2)
    dphi, dlambda = math.radians(lat2 - lat1), math.radians(lon2 - lon1)
    a = math.sin(dphi / 2) ** 2 + math.cos(phi1) * math.cos(phi2) * math.sin(dlambda / 2) ** 2
    return 2 * EARTH_RADIUS_KM * math.asin(math.sqrt(a))


def current_location(ctx: ToolContext) -> tuple[float, float] | None:
    """The best known position: the alert's own fix, the freshest device fix, then home."""
    alert = ctx.alert
    if alert is not None and alert.latitude is not None and alert.longitude is not None:
        return alert.latitude, alert.longitude
    device = (
        ctx.user.devices.filter(revoked_at__isnull=True, last_latitude__isnull=False, last_longitude__isnull=False)
        .order_by("-last_located_at", "-id")
        .first()
    )
    if device is not None:
        return device.last_latitude, device.last_longitude
    profile = getattr(ctx.user, "profile", None)
    if profile is not None and profile.home_latitude is not None and profile.home_longitude is not None:
        return profile.home_latitude, profile.home_longitude
    return None


@tool
def get_location(ctx: ToolContext) -> dict:
    """Fetches the GPS coordinates of the user's current location."""
    position = current_location(ctx)
    if position is None:
        raise NotFound("The user's location is unknown: no device position and no home address.")
    return {"latitude": position[0], "longitude": position[1]}


def active_dispatch(ctx: ToolContext) -> Dispatch | None:
    """The unreleased dispatch for this run's alert, else for the user's latest active hard SOS."""
    dispatches = Dispatch.objects.filter(released_at__isnull=True, alert__user=ctx.user).select_related("ambulance")
    if ctx.alert is not None:
        found = dispatches.filter(alert=ctx.alert).first()
        if found is not None:
            return found
    return (
        dispatches.filter(alert__kind=Alert.Kind.HARD, alert__state__in=Alert.ACTIVE_STATES)
        .order_by("-dispatched_at")
        .first()
    )


def _ambulance_result(ambulance: Ambulance) -> dict:
    return {"ambulance_id": ambulance.code, "phone_no": ambulance.phone}


@tool
def search_ambulance(ctx: ToolContext, location: Location) -> dict:
    """Finds the nearest available ambulance to the given location and dispatches it to the user's SOS.

    Args:
        location: The user's current location as {latitude: float, longitude: float}.
    """
    latitude, longitude = location["latitude"], location["longitude"]
    if not (-90 <= latitude <= 90 and -180 <= longitude <= 180):
        raise InvalidArguments("location is outside the range of latitudes and longitudes.")
    alert = ctx.alert
    if alert is None or alert.kind != Alert.Kind.HARD:
        raise NotAuthorised("An ambulance can only be dispatched for the user's hard SOS.")
    existing = active_dispatch(ctx)
    if existing is not None and existing.alert_id == alert.pk:
        return _ambulance_result(existing.ambulance)  # already dispatched: never send a second one
    busy = Dispatch.objects.filter(released_at__isnull=True).values("ambulance_id")
    candidates = sorted(
        Ambulance.objects.filter(available=True).exclude(pk__in=busy),
        key=lambda ambulance: haversine_km(latitude, longitude, ambulance.latitude, ambulance.longitude),
    )
    for ambulance in candidates:
        distance = haversine_km(latitude, longitude, ambulance.latitude, ambulance.longitude)
        try:
            with transaction.atomic():
                # The partial unique constraint on active dispatches decides a
                # race between two alerts wanting the same ambulance.
                Dispatch.objects.create(alert=alert, ambulance=ambulance, distance_km=round(distance, 3))
                Ambulance.objects.filter(pk=ambulance.pk).update(available=False)
        except IntegrityError:
            continue
        AlertEvent.objects.create(
            alert=alert,
            kind="ambulance_assigned",
            message=f"Ambulance {ambulance.code} dispatched ({distance:.1f} km away).",
            data={"ambulance": ambulance.code, "distance_km": round(distance, 3)},
        )
        return _ambulance_result(ambulance)
    raise NotFound("No ambulance is available right now.")


@tool
def get_assigned_ambulance(ctx: ToolContext, user_id: str) -> dict:
    """Retrieves the ambulance assigned to the user's SOS.

    Args:
        user_id: Unique identifier for the user.
    """
    ctx.check_user(user_id)
    dispatch = active_dispatch(ctx)
    if dispatch is None:
        raise NotFound("No ambulance is assigned to the user.")
    return _ambulance_result(dispatch.ambulance)


@tool
def send_message(
    ctx: ToolContext, text: str, phone_no: str | None = None, to_emergency_contacts: bool = False
) -> bool | dict | AskUser:
    """Sends a text message to the user's assigned ambulance (phone_no) or to all the user's emergency contacts.

    Args:
        text: The message text to send.
        phone_no: The phone number to send the message to (only the assigned ambulance's number is allowed).
        to_emergency_contacts: Whether to send the message to all emergency contacts.
    """
    if not text.strip():
        raise InvalidArguments("text must not be empty.")
    if not phone_no and not to_emergency_contacts:
        raise InvalidArguments("Give phone_no or set to_emergency_contacts to true.")
    kind = getattr(ctx.conversation, "kind", None)
    if ctx.conversation is not None and kind not in _SOS_KINDS:
        return _ask_before_sending(ctx, text, phone_no, to_emergency_contacts)
    # An SOS (or a call outside any conversation, which no model makes): sent at once, unasked.
    recipients = _recipients(ctx, phone_no, to_emergency_contacts)
    return _queue(ctx, text, recipients)


def _recipients(ctx: ToolContext, phone_no: str | None, to_emergency_contacts: bool) -> list[tuple[str, str, str]]:
    """(number, name, kind) of everyone the message may go to; refuses anyone else and SMS turned off."""
    recipients: list[tuple[str, str, str]] = []
    if phone_no:
        recipients.append(_authorised_number(ctx, phone_no))
    if to_emergency_contacts:
        contacts = list(ctx.user.emergency_contacts.all())
        if not contacts:
            raise NotFound("The user has no emergency contacts.")
        recipients += [(c.phone, c.name, OutboundMessage.RecipientKind.EMERGENCY_CONTACT) for c in contacts]
    profile = getattr(ctx.user, "profile", None)
    if profile is not None and not profile.sms_opt_in:
        raise NotAuthorised("The user has turned off SMS on their behalf.")
    return recipients


def _queue(ctx: ToolContext, text: str, recipients: list[tuple[str, str, str]]) -> bool | dict:
    conversation_id = getattr(ctx.conversation, "pk", "none")
    phase = _PHASES.get(getattr(ctx.conversation, "kind", ""), OutboundMessage.Phase.NONE)
    not_sent: list[str] = []
    for number, name, kind in recipients:
        try:
            queue_sms(
                user=ctx.user,
                recipient=number,
                recipient_kind=kind,
                recipient_name=name,
                body=text,
                # One key per (conversation, step, recipient): a replayed step
                # finds the message it already queued.
                idempotency_key=_key(conversation_id, ctx.step_index, number),
                alert=ctx.alert,
                phase=phase,
            )
        except ValidationError:
            # A stored number that is no longer valid must not stop the
            # message to everyone else.
            not_sent.append(name)
    if len(not_sent) == len(recipients):
        raise ToolError(f"No message could be queued: invalid number for {', '.join(not_sent)}.")
    if not_sent:
        return {"sent": len(recipients) - len(not_sent), "not_sent": not_sent}
    return True


def _key(conversation_id: object, step_index: int, number: str) -> str:
    return f"agent:{conversation_id}:{step_index}:{number}"


# --- outside an SOS: the user agrees to each message first, and a conversation sends only a few ------

# The conversations whose messages go out at once: the SOS flows (agents/sos/guard.py drives them).
_SOS_KINDS = frozenset({Conversation.Kind.HARD_SOS_START, Conversation.Kind.HARD_SOS_END, Conversation.Kind.SOFT_SOS})


def _sent_in_conversation(ctx: ToolContext) -> int:
    """How many messages (one per send_message call, to one or more recipients) this conversation sent."""
    keys = OutboundMessage.objects.filter(
        user=ctx.user, idempotency_key__startswith=f"agent:{ctx.conversation.pk}:"
    ).values_list("idempotency_key", flat=True)
    return len({key.split(":")[2] for key in keys})


def _limit() -> int:
    return int(getattr(settings, "AGENT_MAX_MESSAGES_PER_CONVERSATION", 3))


def _ask_before_sending(ctx: ToolContext, text: str, phone_no: str | None, to_emergency_contacts: bool) -> AskUser:
    """Outside an SOS a message leaves only after the user agreed to this text going to these people.

    The tool asks (the run suspends like get_input_from_user) and queues the message only on a clear
    yes; any other answer queues nothing. It refuses at once when the recipient is not allowed or
    this conversation already sent AGENT_MAX_MESSAGES_PER_CONVERSATION messages. Called again on
    resume, it builds the same question; what changed meanwhile makes the answer a "not sent"."""
    if ctx.conversation.kind != Conversation.Kind.CHAT:
        raise NotAuthorised("Outside an SOS a message needs the user's agreement, and only a chat can ask for it.")
    try:
        recipients = _recipients(ctx, phone_no, to_emergency_contacts)
        if not resuming(ctx) and _sent_in_conversation(ctx) >= _limit():
            raise NotAuthorised(
                f"This conversation already sent {_limit()} messages, the most one conversation may send. "
                "Nothing was sent."
            )
    except ToolError as exc:
        if not resuming(ctx):
            raise
        problem = str(exc)
        return AskUser(
            question="Send this text message?",
            answer=lambda reply: {"status": "not sent", "user": reply, "message": f"Not sent: {problem}"},
        )
    names = _names([name for _number, name, _kind in recipients])
    question = f'Shall I text {names} this message: "{text.strip()}"? Reply yes to send it, or no.'

    def answer(reply: str) -> dict:
        if not clear_yes(reply):
            return {
                "status": "not sent",
                "user": reply,
                "message": f"Not sent: you did not agree to text {names}. Nothing was sent.",
            }
        if _sent_in_conversation(ctx) >= _limit() and not _already_queued(ctx, recipients):
            return {
                "status": "not sent",
                "user": reply,
                "message": f"Not sent: this conversation already sent {_limit()} messages, the most allowed.",
            }
        try:
            with transaction.atomic():
                _queue(ctx, text, recipients)
        except ToolError as exc:
            return {"status": "not sent", "user": reply, "message": f"Not sent: {exc}"}
        return {"user": reply, **_outbox_status(ctx, recipients)}

    return AskUser(question=question, answer=answer)


def _already_queued(ctx: ToolContext, recipients: list[tuple[str, str, str]]) -> bool:
    keys = [_key(ctx.conversation.pk, ctx.step_index, number) for number, _name, _kind in recipients]
    return OutboundMessage.objects.filter(idempotency_key__in=keys).exists()


_STATUS_WORDS = {
    OutboundMessage.Status.QUEUED: "queued, not sent yet",
    OutboundMessage.Status.SENT: "sent",
    OutboundMessage.Status.FAILED: "failed, not sent",
    OutboundMessage.Status.NOT_SENT: "not sent",
}


def _outbox_status(ctx: ToolContext, recipients: list[tuple[str, str, str]]) -> dict:
    """Each recipient's message as the outbox records it: what the user reads is the record's status."""
    rows = []
    for number, name, _kind in recipients:
        message = OutboundMessage.objects.filter(idempotency_key=_key(ctx.conversation.pk, ctx.step_index, number))
        message = message.first()
        status = message.status if message is not None else OutboundMessage.Status.NOT_SENT
        rows.append({"to": name, "status": status})
    parts = [f"{row['to']}: {_STATUS_WORDS.get(row['status'], row['status'])}" for row in rows]
    statuses = {row["status"] for row in rows}
    undelivered = set(OutboundMessage.UNDELIVERED_STATUSES)
    if statuses == {OutboundMessage.Status.SENT}:
        overall = "sent"
    elif statuses <= undelivered:
        overall = "not sent"
    elif statuses & undelivered:
        overall = "partly not sent"
    else:
        overall = "queued"
    return {"status": overall, "messages": rows, "message": f"Your text message to {'; '.join(parts)}."}


def _names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


# Which part of an SOS a message belongs to, by the flow that sends it: the SOS
# page and the assistant's closing message report each part from the outbox.
_PHASES = {"hard_sos_start": OutboundMessage.Phase.START, "hard_sos_end": OutboundMessage.Phase.END}


def _authorised_number(ctx: ToolContext, phone_no: str) -> tuple[str, str, str]:
    try:
        number = normalize_e164(phone_no)
    except ValidationError as exc:
        raise NotAuthorised(f"{phone_no!r} is not the number of the assigned ambulance.") from exc
    dispatch = active_dispatch(ctx)
    if dispatch is not None and _same_number(dispatch.ambulance.phone, number):
        return number, dispatch.ambulance.code, OutboundMessage.RecipientKind.AMBULANCE
    contact = ctx.user.emergency_contacts.filter(phone=number).first()
    if contact is not None:
        return number, contact.name, OutboundMessage.RecipientKind.EMERGENCY_CONTACT
    raise NotAuthorised(
        f"{phone_no!r} is neither the assigned ambulance nor an emergency contact; messages go only to those."
    )


def _same_number(stored: str, number: str) -> bool:
    try:
        return normalize_e164(stored) == number
    except ValidationError:
        return False
