"""The Action Manager's SOS flows (seed paper D.4 to D.6), as the Health Manager starts them.

``health.sos`` tells the whole SOS story; this module runs its agent part. Each flow is a
conversation about an alert, run (or resumed, or found finished: every entry point is
idempotent) by the runtime under the guard beside it (``agents.sos.guard``), so it completes
even when the model fails. ``SosFlows`` is what ``AgentsConfig.ready()`` registers with
``health.sos.flows``: the Health Manager never imports ``agents``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from django.db import transaction

from agents.llm import ModelBackend
from agents.models import AgentStep, Conversation
from agents.runtime import Runtime, link_alert
from agents.services import load_backend
from health.models import Alert, AlertEvent
from health.sos.flows import Run
from health.sos.soft import soft_sos_notice

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
    """The Action Manager's SOS flows as the Health Manager calls them (``health.sos.flows``):
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
