"""Every event the server pushes to a user's open pages over the websocket, with its payload.

One list for both sides: ``core.realtime.push_to_user`` accepts only these names, and the pages
read the same names from the ``live-events`` JSON that ``frontend/templates/frontend/base.html``
renders from :func:`names` (``frontend/static/frontend/js/events.js`` exports them as ``EVENT``).
"""

from __future__ import annotations

import enum
from typing import Any, NotRequired, TypedDict


class Event(enum.StrEnum):
    HELLO = "hello"  # sent by the consumer when a page connects
    AGENT_STEP = "agent_step"  # a step of a conversation was written (the live agent log)
    AGENT_STATUS = "agent_status"  # a conversation's status changed
    AGENT_QUESTION = "agent_question"  # the assistant asks the user and waits
    AGENT_MESSAGE = "agent_message"  # the assistant could not finish: the message the user reads
    NOTIFICATION = "notification"  # a notification was created (the bell, the notification list)
    ALERT = "alert"  # a soft or hard SOS alert changed state
    OUTBOX = "outbox"  # an SOS text reached its outcome (sent, not sent, failed)
    VITALS = "vitals"  # new vitals readings were stored
    WATCH = "watch"  # the simulated watch's feed changed
    PRESCRIPTION = "prescription"  # a prescription's reading moved on (queued, reading, read, failed)
    DOSE = "dose"  # a dose event was created or changed (due, reminded, taken, snoozed, skipped, missed)


class HelloPayload(TypedDict):
    user: str


class AgentStepPayload(TypedDict):
    conversation: int
    index: int
    role: str
    value: Any


class AgentStatusPayload(TypedDict):
    conversation: int
    status: str
    question: NotRequired[str]


class AgentQuestionPayload(TypedDict):
    conversation: int
    question: str


class AgentMessagePayload(TypedDict):
    conversation: int
    text: str


class NotificationPayload(TypedDict):
    id: int
    kind: str
    level: str
    title: str
    body: str


class AlertPayload(TypedDict):
    id: int
    kind: str
    state: str
    condition: str
    countdown_ends_at: str | None


class PrescriptionPayload(TypedDict):
    id: int
    status: str
    error: str


class DosePayload(TypedDict):
    id: int
    medication: int
    state: str
    due_at: str


class OutboxPayload(TypedDict):
    id: int
    alert: int


PAYLOADS: dict[Event, type] = {
    Event.HELLO: HelloPayload,
    Event.AGENT_STEP: AgentStepPayload,
    Event.AGENT_STATUS: AgentStatusPayload,
    Event.AGENT_QUESTION: AgentQuestionPayload,
    Event.AGENT_MESSAGE: AgentMessagePayload,
    Event.NOTIFICATION: NotificationPayload,
    Event.ALERT: AlertPayload,
    Event.OUTBOX: OutboxPayload,
    Event.PRESCRIPTION: PrescriptionPayload,
    Event.DOSE: DosePayload,
    Event.VITALS: dict,  # the stored readings, as health.vitals serialises them
    Event.WATCH: dict,  # the simulator's state, as health.simulator.feed serialises it
}


def names() -> dict[str, str]:
    """``{"ALERT": "alert", ...}``: what the pages read to subscribe by name."""
    return {event.name: event.value for event in Event}
