"""Chats whose run was lost: the message was recorded and the conversation set ``running``, but no
worker is running it. The broker lost the task (Redis restarted empty), or the web process died
between its commit and the enqueue. Without this the chat would say "still working" forever and
refuse the patient's next message.

A worker that died mid-run is covered by the broker's redelivery (``acks_late``), but only after
its visibility timeout (minutes); the sweep resumes the run as soon as it has been quiet for longer
than a live run can be (a model call's deadline plus the tool it calls). A race with a run that is
in fact alive is harmless: steps are unique per conversation, and the second runner stops
(``runtime.ConcurrentRun``) without writing.
"""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from agents.models import AgentStep, Conversation

# A tool's own work after the model's answer (a booking, a search of the user's records) is a few
# database queries; 30 s is far above it on a loaded machine.
TOOL_MARGIN_SECONDS = 30.0


def quiet_after() -> dt.timedelta:
    """How long a running chat may go without a step or a status change before it is resumed."""
    return dt.timedelta(seconds=float(settings.AGENT_CALL_TIMEOUT_SECONDS) + TOOL_MARGIN_SECONDS)


def quiet_chats(now: dt.datetime | None = None) -> list[int]:
    """Ids of the chats marked running that have written nothing since ``now - quiet_after()``."""
    since = (now or timezone.now()) - quiet_after()
    recent_step = AgentStep.objects.filter(conversation=OuterRef("pk"), created_at__gte=since)
    return list(
        Conversation.objects.filter(
            kind=Conversation.Kind.CHAT, status=Conversation.Status.RUNNING, updated_at__lt=since
        )
        .exclude(Exists(recent_step))
        .order_by("updated_at")
        .values_list("pk", flat=True)
    )


def resume_quiet_chats(now: dt.datetime | None = None) -> int:
    """Enqueue the run of every quiet chat again; return how many. Each is claimed by moving its
    ``updated_at`` to now (a conditional update), so two sweeps at once enqueue it once, and a run
    that is lost again is resumed one quiet period later, not at every sweep."""
    from agents.tasks import run_conversation_task  # agents.tasks imports the services: deferred

    now = now or timezone.now()
    since = now - quiet_after()
    resumed = 0
    for pk in quiet_chats(now):
        with transaction.atomic():
            claimed = Conversation.objects.filter(
                pk=pk, status=Conversation.Status.RUNNING, updated_at__lt=since
            ).update(updated_at=now)
            if claimed:
                # Robust: with the broker down, the claim stands and the next period tries again.
                transaction.on_commit(lambda pk=pk: run_conversation_task.delay(pk), robust=True)
                resumed += 1
    return resumed
