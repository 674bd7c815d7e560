"""A chat whose run was lost (the broker lost the task, or the web process died between its commit
and the enqueue) is resumed by the sweep, once, and takes the patient's messages again.

In these tests ``start_chat`` runs inside the test's transaction, whose on-commit callbacks never
run: the enqueue is lost exactly as when the web process dies after its commit."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from agents import services
from agents.models import AgentStep, Conversation
from agents.resume import quiet_after, quiet_chats, resume_quiet_chats
from tests.agents.helpers import end

pytestmark = pytest.mark.django_db


@pytest.fixture
def lost_chat(alice, scripted_backend):
    scripted_backend(planner=[end("The headache advice was given.")])
    conversation = services.start_chat(alice, "I have had a headache since this morning")
    assert conversation.status == Conversation.Status.RUNNING  # recorded; its run never started
    return conversation


def later(seconds: float = 1.0) -> dt.datetime:
    return timezone.now() + quiet_after() + dt.timedelta(seconds=seconds)


def test_a_chat_whose_run_was_lost_says_busy_until_the_sweep_resumes_it(
    alice, lost_chat, django_capture_on_commit_callbacks
):
    with pytest.raises(services.ConversationBusy):
        services.post_user_message(lost_chat.pk, alice, "hello?")
    steps_before = AgentStep.objects.filter(conversation=lost_chat).count()

    with django_capture_on_commit_callbacks(execute=True) as queued:
        resumed = resume_quiet_chats(now=later())

    assert resumed == 1 and queued  # the run, then what it pushed to the open pages
    lost_chat.refresh_from_db()
    assert lost_chat.status != Conversation.Status.RUNNING
    assert AgentStep.objects.filter(conversation=lost_chat).count() > steps_before
    # and the patient can write again
    services.post_user_message(lost_chat.pk, alice, "thank you")


def test_a_running_chat_is_left_alone_while_it_is_not_quiet(lost_chat, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as queued:
        assert resume_quiet_chats(now=timezone.now() + quiet_after() - dt.timedelta(seconds=5)) == 0
    assert queued == []


def test_a_recent_step_keeps_a_long_run_from_being_resumed(lost_chat):
    # Steps written by a live run move nothing on the conversation row; they are its heartbeat.
    Conversation.objects.filter(pk=lost_chat.pk).update(updated_at=timezone.now() - 2 * quiet_after())
    AgentStep.objects.filter(conversation=lost_chat).update(created_at=timezone.now())

    assert quiet_chats(now=timezone.now() + dt.timedelta(seconds=1)) == []


def test_a_chat_is_resumed_once_per_quiet_period_not_at_every_sweep(lost_chat, django_capture_on_commit_callbacks):
    now = later()
    with django_capture_on_commit_callbacks(execute=False) as first:
        assert resume_quiet_chats(now=now) == 1
    with django_capture_on_commit_callbacks(execute=False) as second:
        assert resume_quiet_chats(now=now + dt.timedelta(seconds=30)) == 0
    assert len(first) == 1 and second == []


@pytest.mark.parametrize("status", ["idle", "waiting_input", "completed", "failed"])
def test_only_running_chats_are_resumed(lost_chat, status):
    Conversation.objects.filter(pk=lost_chat.pk).update(status=status)

    assert quiet_chats(now=later()) == []


def test_system_runs_are_not_the_chat_sweeps_to_resume(lost_chat):
    # SOS flows have their own sweep (health.sos.hard.overdue_alert_ids), with their guard.
    Conversation.objects.filter(pk=lost_chat.pk).update(kind=Conversation.Kind.HARD_SOS_START)

    assert quiet_chats(now=later()) == []


def test_the_sweep_is_on_beats_schedule(settings):
    entries = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert {"agents.resume_quiet_chats", "health.tasks.requeue_stalled_readings"} <= entries
