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
    "resolved_choice",
]


def resolved_choice() -> str:
    """``AGENT_BACKEND`` with ``auto`` resolved: the llama.cpp backend when llama-cpp-python is
    installed (``make run`` does it once, scripts/ensure_llama.py) and the base model is the default
    GGUF (it runs nothing else), else transformers."""
    choice = settings.AGENT_BACKEND
    if choice != "auto":
        return choice
    import importlib.util

    if not settings.AGENT_BASE_MODEL.strip() and importlib.util.find_spec("llama_cpp") is not None:
        return "llamacpp"
    return "transformers"


def get_backend() -> ModelBackend:
    """The configured backend. Heavy imports happen only inside the chosen branch.

    Raises ImproperlyConfigured for a backend that is not available here (a
    missing library, an unprepared model, no server URL); SOS runs complete
    without a model (the guard), chats fail with a message.
    """
    choice = resolved_choice()
    if choice == "scripted":
        from agents.llm import scripted  # the chosen backend only: each pulls in its heavy libraries

        return scripted.installed()
    try:
        if choice == "transformers":
            from agents.llm import transformers_backend  # the chosen backend only: each pulls in its heavy libraries

            return transformers_backend.configured()
        if choice == "openai":
            from agents.llm import openai_backend  # the chosen backend only: each pulls in its heavy libraries

            return openai_backend.configured()
        if choice == "llamacpp":
            from agents.llm import llamacpp_backend  # the chosen backend only: each pulls in its heavy libraries

            return llamacpp_backend.configured()
    except ImproperlyConfigured as exc:
        raise ImproperlyConfigured(f"AGENT_BACKEND={_named(choice)} is not available: {exc}") from exc
    raise ImproperlyConfigured(f"AGENT_BACKEND={choice!r} is not a known backend.")


def _named(choice: str) -> str:
    return repr(choice) if settings.AGENT_BACKEND == choice else f"{settings.AGENT_BACKEND!r} ({choice})"
