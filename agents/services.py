"""What the rest of the app calls to use the Action Manager.

Chat: :func:`start_chat` and :func:`post_user_message` record the user's text
at once and run the agent in a Celery task (or inline, when a backend is
passed in). SOS: the Health Manager calls :func:`run_hard_sos_start`,
:func:`run_hard_sos_end` and :func:`run_soft_sos` with an alert id; each is
idempotent (a redelivered task finds the conversation it already started) and
completes even without a model, thanks to the guard.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterable

from django.core.exceptions import ImproperlyConfigured
from django.db import transaction

from agents.llm import ModelBackend, get_backend
from agents.models import AgentStep, Conversation
from agents.runtime import Runtime, link_alert
from agents.trajectory import title_from
from health.flows import Run
from health.models import Alert, AlertEvent
from health.monitor.soft_sos import soft_sos_notice

log = logging.getLogger(__name__)


class ConversationBusy(Exception):
    """The conversation cannot take a message now (still running, or run by the system)."""


def load_backend() -> ModelBackend | None:
    """The configured backend, or None when it is not available (logged, not raised)."""
    try:
        return get_backend()
    except ImproperlyConfigured as exc:
        log.warning("agent model unavailable: %s", exc)
        return None


def run_conversation(conversation_id: int, *, backend: ModelBackend | None = None) -> str:
    """Run (or resume) a conversation that is waiting for the agent; return its status.

    A conversation that is not ``running`` is left alone: a redelivered task
    must not run a finished or suspended conversation again.
    """
    conversation = Conversation.objects.select_related("user").get(pk=conversation_id)
    if conversation.status != Conversation.Status.RUNNING:
        return conversation.status
    return Runtime(conversation, backend if backend is not None else load_backend()).run()


def _dispatch(conversation: Conversation, backend: ModelBackend | None) -> None:
    if backend is not None:
        Runtime(conversation, backend).run()
        return
    from agents.tasks import run_conversation_task  # agents.tasks wraps this module's services: deferred

    # After commit: the worker must see the step we just wrote.
    transaction.on_commit(lambda: run_conversation_task.delay(conversation.pk))


def start_chat(user, text: str, *, backend: ModelBackend | None = None) -> Conversation:
    """Open a chat with the user's request and start the agent on it."""
    conversation = Conversation.objects.create(
        user=user, kind=Conversation.Kind.CHAT, title=title_from(text), status=Conversation.Status.IDLE
    )
    Runtime(conversation, None).begin(text)
    _dispatch(conversation, backend)
    conversation.refresh_from_db()
    return conversation


def post_user_message(conversation_id: int, user, text: str, *, backend: ModelBackend | None = None) -> Conversation:
    """Add the user's message to their conversation: the answer to a pending
    question (the run resumes), or a new request. Raises Conversation.DoesNotExist
    for another user's conversation and ConversationBusy while the agent works."""
    with transaction.atomic():
        conversation = (
            Conversation.objects.select_for_update().select_related("user").get(pk=conversation_id, user=user)
        )
        if conversation.kind != Conversation.Kind.CHAT:
            raise ConversationBusy("This conversation is run by the system and takes no messages.")
        if conversation.status == Conversation.Status.RUNNING:
            raise ConversationBusy("The assistant is still working on this conversation.")
        Runtime(conversation, None).add_user_message(text)
    _dispatch(conversation, backend)
    conversation.refresh_from_db()
    return conversation


# --- SOS ---------------------------------------------------------------------------------

SOS_REQUESTS = {
    Conversation.Kind.HARD_SOS_START: (Alert.Kind.HARD, lambda alert: "Hard SOS triggered"),
    Conversation.Kind.HARD_SOS_END: (Alert.Kind.HARD, lambda alert: "End SOS triggered"),
    Conversation.Kind.SOFT_SOS: (
        Alert.Kind.SOFT,
        lambda alert: f"Soft SOS triggered. Abnormal Vitals: {alert.vitals_snapshot or {}}",
    ),
}


def _sos_title(alert: Alert, kind: str, request: str) -> str:
    """What the conversation list calls a system-run conversation: a soft SOS by its alert
    ("Alert: low blood oxygen"), not by the request the model reads (which holds a raw dict)."""
    if kind == Conversation.Kind.SOFT_SOS:
        return soft_sos_notice(alert).title[:160]
    return request[:160]


def _sos_conversation(alert: Alert, kind: str) -> Conversation:
    with transaction.atomic():
        # Lock the alert: two deliveries of the same task must share one conversation.
        alert = Alert.objects.select_for_update().select_related("user").get(pk=alert.pk)
        event = AlertEvent.objects.filter(alert=alert, kind="agent_conversation", data__conversation_kind=kind).first()
        if event is not None:
            return Conversation.objects.select_related("user").get(pk=event.data["conversation"])
        request = SOS_REQUESTS[kind][1](alert)
        conversation = Conversation.objects.create(user=alert.user, kind=kind, title=_sos_title(alert, kind, request))
        link_alert(alert, conversation)
        Runtime(conversation, None).begin(request)
        return conversation


def _run_sos(alert_id: int, kind: str, backend: ModelBackend | None) -> Conversation:
    alert = Alert.objects.select_related("user").get(pk=alert_id)
    expected = SOS_REQUESTS[kind][0]
    if alert.kind != expected:
        raise ValueError(f"Alert {alert_id} is a {alert.kind} alert; {kind} needs a {expected} alert.")
    conversation = _sos_conversation(alert, kind)
    if conversation.status == Conversation.Status.RUNNING:
        Runtime(conversation, backend if backend is not None else load_backend()).run()
        conversation.refresh_from_db()
    return conversation


def run_hard_sos_start(alert_id: int, *, backend: ModelBackend | None = None) -> Conversation:
    """Notify the user, locate them, dispatch the nearest ambulance, message it and the contacts."""
    return _run_sos(alert_id, Conversation.Kind.HARD_SOS_START, backend)


def run_hard_sos_end(alert_id: int, *, backend: ModelBackend | None = None) -> Conversation:
    """Tell the user, the assigned ambulance and the contacts that the SOS is over.

    Releasing the dispatch and resolving the alert stay with the Health Manager,
    after this returns: the ambulance must still be assigned to be messaged.
    """
    return _run_sos(alert_id, Conversation.Kind.HARD_SOS_END, backend)


def run_soft_sos(alert_id: int, *, backend: ModelBackend | None = None) -> Conversation:
    """Notify the user of abnormal vitals (seed paper D.4)."""
    return _run_sos(alert_id, Conversation.Kind.SOFT_SOS, backend)


class SosFlows:
    """The Action Manager's SOS flows as the Health Manager calls them (``health.flows``):
    registered in ``AgentsConfig.ready()``, so ``health`` never imports ``agents``."""

    def run(self, alert_id: int, kind: str) -> Run:
        conversation = _run_sos(alert_id, kind, None)
        return Run(conversation_id=conversation.pk, status=conversation.status)

    def status(self, conversation_id: int) -> str | None:
        return Conversation.objects.filter(pk=conversation_id).values_list("status", flat=True).first()

    def quiet_runs(self, conversation_ids: Iterable[int], since: dt.datetime) -> list[int]:
        running = Conversation.objects.filter(pk__in=list(conversation_ids), status=Conversation.Status.RUNNING)
        busy = set(
            AgentStep.objects.filter(conversation__in=running, created_at__gte=since).values_list(
                "conversation_id", flat=True
            )
        )
        return [pk for pk in running.values_list("pk", flat=True) if pk not in busy]
