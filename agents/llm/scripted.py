"""A backend that replays given outputs, per role: the model in tests and replays.

Each script item is the text to return, an exception to raise (a crashing
model), or a :class:`Delay` (a slow one). An exhausted script raises
BackendError, so a run that asks for more than the test expected fails loudly.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from agents.llm.base import BackendError, Generation, Message, ModelBackend, Role, Tools, cut_at_stop


@dataclass(frozen=True)
class Delay:
    """Sleep ``seconds`` before answering ``text``."""

    seconds: float
    text: str = ""


ScriptItem = str | BaseException | Delay


def count_tokens(text: str) -> int:
    # Whitespace words: a stand-in for a tokenizer that keeps counts
    # deterministic and non-zero for the agent log.
    return len(text.split())


class ScriptedBackend(ModelBackend):
    name = "scripted"

    def __init__(self, planner: Iterable[ScriptItem] = (), caller: Iterable[ScriptItem] = ()) -> None:
        self.scripts: dict[str, Iterable[ScriptItem]] = {
            "planner": _queue(planner),
            "caller": _queue(caller),
        }
        self.calls: list[tuple[Role, list[Message]]] = []

    def generate(
        self,
        role: Role,
        messages: Sequence[Message],
        stop: Sequence[str] = (),
        *,
        timeout: float | None = None,
        tools: Tools | None = None,
    ) -> Generation:
        started = time.perf_counter()
        self.calls.append((role, list(messages)))
        try:
            item = next(self.scripts[role])
        except StopIteration:
            raise BackendError(f"The scripted {role} has no more outputs.") from None
        if isinstance(item, BaseException):
            raise item
        if isinstance(item, Delay):
            time.sleep(item.seconds)
            item = item.text
        text = cut_at_stop(item, stop)
        return Generation(
            text=text,
            prompt_tokens=sum(count_tokens(message.content) for message in messages),
            completion_tokens=count_tokens(text),
            latency_ms=int((time.perf_counter() - started) * 1000),
        )

    def remaining(self, role: Role) -> list[ScriptItem]:
        """What is left of ``role``'s script (finite scripts only)."""
        script = self.scripts[role]
        return list(script.items) if isinstance(script, _Queue) else []


class _Queue:
    def __init__(self, items: Sequence[ScriptItem]) -> None:
        self.items = deque(items)

    def __iter__(self) -> _Queue:
        return self

    def __next__(self) -> ScriptItem:
        if not self.items:
            raise StopIteration
        return self.items.popleft()


def _queue(items: Iterable[ScriptItem]):
    # Lists become inspectable queues; other iterables (itertools.repeat for
    # an endlessly garbage-emitting model) are consumed lazily.
    if isinstance(items, list | tuple):
        return _Queue(items)
    return iter(items)


_installed: ScriptedBackend | None = None


def install(backend: ScriptedBackend | None) -> None:
    """Make ``get_backend()`` return ``backend`` while AGENT_BACKEND is "scripted" (tests)."""
    global _installed
    _installed = backend


def installed() -> ScriptedBackend:
    """The installed script, or an empty one (every call fails: a model that is not loaded)."""
    return _installed if _installed is not None else ScriptedBackend()
