"""Celery tasks of the Action Manager: thin wrappers that pass ids to its services and SOS flows."""

from __future__ import annotations

from celery import shared_task

from agents import resume, services
from agents.sos import flows


@shared_task(name="agents.run_conversation")
def run_conversation_task(conversation_id: int) -> str:
    return services.run_conversation(conversation_id)


@shared_task(name="agents.resume_quiet_chats", acks_late=True)
def resume_quiet_chats_task() -> int:
    """Enqueue again the chats whose run was lost (``agents.resume``); run by beat (``agents.beat``)."""
    return resume.resume_quiet_chats()


@shared_task(name="agents.hard_sos_start")
def hard_sos_start_task(alert_id: int) -> int:
    return flows.run_hard_sos_start(alert_id).pk


@shared_task(name="agents.hard_sos_end")
def hard_sos_end_task(alert_id: int) -> int:
    return flows.run_hard_sos_end(alert_id).pk


@shared_task(name="agents.soft_sos")
def soft_sos_task(alert_id: int) -> int:
    return flows.run_soft_sos(alert_id).pk
