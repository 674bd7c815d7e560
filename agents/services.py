"""What the rest of the app calls to use the Action Manager.

Chat: :func:`start_chat` and :func:`post_user_message` record the user's text
at once and run the agent in a Celery task (or inline, when a backend is
passed in). SOS: the Health Manager calls :func:`run_hard_sos_start`,
:func:`run_hard_sos_end` and :func:`run_soft_sos` with an alert id; each is
idempotent (a redelivered task finds the conversation it already started) and
completes even without a model, thanks to the guard.
"""

from __future__ import annotations

import logging

from django.core.exceptions import ImproperlyConfigured
from django.db import transaction

from agents.llm import ModelBackend, get_backend
from agents.models import Conversation
from agents.runtime import Runtime
from agents.trajectory import title_from

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

    # After commit: the worker must see the step we just wrote. Robust: with the broker down the
    # message is still recorded and the request answered; the resume sweep (agents.resume) runs the
    # conversation once the broker is back.
    transaction.on_commit(lambda: run_conversation_task.delay(conversation.pk), robust=True)


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
