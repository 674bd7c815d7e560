"""The one interface every model backend implements.

The runtime asks for text for a role ("planner" or "caller") given chat
messages, and gets back a :class:`Generation` with token counts and latency:
what the agent log shows and the benchmark measures.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from agents.errors import AgentError

Role = Literal["planner", "caller"]
ROLES: tuple[Role, ...] = ("planner", "caller")


class Tools(Protocol):
    """The tools a caller may call, as the runtime hands them to a backend (``agents.tools.Registry``):
    a backend that guides or checks the caller's output needs their schemas, and model backends do
    not import the tool registry themselves."""

    def __iter__(self) -> Any: ...

    def __contains__(self, name: object) -> bool: ...

    def get(self, name: str) -> Any: ...


_default_tools: Tools | None = None


def use_tools(tools: Tools) -> None:
    """The tools a backend uses when a caller of ``generate`` names none (set by ``AgentsConfig.ready()``)."""
    global _default_tools
    _default_tools = tools


def default_tools() -> Tools | None:
    return _default_tools


class BackendError(AgentError):
    """The backend could not produce text (crashed, not loaded, misconfigured)."""


class BackendTimeout(BackendError):
    """The backend took longer than the per-call timeout."""


@dataclass(frozen=True)
class Message:
    role: Literal["system", "user", "assistant"]
    content: str


@dataclass(frozen=True)
class Generation:
    """One model output and what it cost."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    latency_ms: int


class ModelBackend(ABC):
    """Base class of the planner/caller backends.

    Subclasses implement :meth:`generate`. ``timeout`` is a hint a backend
    should honour itself (an HTTP timeout, a generation time limit); the
    runtime also enforces it from outside.
    """

    name = "base"
    # A base model without trained planner/caller adapters needs a worked
    # example in its prompt to answer in the right format.
    few_shot = False

    @abstractmethod
    def generate(
        self,
        role: Role,
        messages: Sequence[Message],
        stop: Sequence[str] = (),
        *,
        timeout: float | None = None,
        tools: Tools | None = None,
    ) -> Generation:
        """Text for ``role`` given the chat ``messages``, cut at the first stop sequence; ``tools``
        are the ones the caller may call (default: those the app registered, see ``use_tools``)."""


def cut_at_stop(text: str, stop: Sequence[str]) -> str:
    """``text`` up to the first stop sequence (which is dropped), like a server would return it."""
    cut = len(text)
    for sequence in stop:
        position = text.find(sequence)
        if sequence and position != -1:
            cut = min(cut, position)
    return text[:cut]
