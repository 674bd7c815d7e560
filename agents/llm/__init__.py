"""Model backends for the planner and caller, chosen by ``settings.AGENT_BACKEND``."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from agents.llm.base import (
    ROLES,
    BackendError,
    BackendTimeout,
    Generation,
    Message,
    ModelBackend,
    Role,
)

__all__ = [
    "ROLES",
    "BackendError",
    "BackendTimeout",
    "Generation",
    "Message",
    "ModelBackend",
    "Role",
    "get_backend",
]


def get_backend() -> ModelBackend:
    """The configured backend. Heavy imports happen only inside the chosen branch.

    Raises ImproperlyConfigured for a backend that is not available here; SOS
    runs complete without a model (the guard), chats fail with a message.
    """
    choice = settings.AGENT_BACKEND
    if choice == "scripted":
        from agents.llm import scripted

        return scripted.installed()
    raise ImproperlyConfigured(
        f"AGENT_BACKEND={choice!r} is not available in this build: only 'scripted' is implemented so far."
    )
