"""Emergency tools: where the user is, the nearest ambulance, and SMS.

``send_message`` is the one tool that reaches outside the device, so it
decides recipients itself: the user's emergency contacts, or the ambulance
dispatched to the user's SOS. A number the model wrote is only accepted if it
is one of those; a made-up number is refused, never messaged.
"""

from __future__ import annotations

import math
from typing import TypedDict

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from agents.errors import InvalidArguments, NotAuthorised, NotFound, ToolError
from agents.tools.context import ToolContext
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
) -> bool | dict:
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
    recipients: list[tuple[str, str, str]] = []  # (number, name, kind)
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
                idempotency_key=f"agent:{conversation_id}:{ctx.step_index}:{number}",
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
