"""What the two in-process backends (transformers, llama.cpp) share.

One model per process answers one call at a time (a lock); prompts are the
model's chat template; answers are decoded greedily by agents.llm.decoding,
with each role's recent answers as a source of guesses. A subclass says how
one role answers a prompt (``_answer``) and gives :meth:`_decode` its model.
"""

from __future__ import annotations

import threading
import time
from abc import abstractmethod
from collections.abc import Sequence
from typing import Any

from agents.llm import decoding
from agents.llm.base import BackendTimeout, Generation, Message, ModelBackend, Role, cut_at_stop

# Generation caps per role: a planner step is a short reason and one action; a
# caller writes one JSON call. A trained adapter answers well inside both.
MAX_NEW_TOKENS: dict[Role, int] = {"planner": 64, "caller": 192}


def eos_ids(tokenizer: Any, configured: int | list[int] | None) -> list[int]:
    """The end-of-sequence ids: the model's configured ones and the tokenizer's."""
    ids = configured if isinstance(configured, list) else [configured]
    return sorted({int(i) for i in [*ids, tokenizer.eos_token_id] if i is not None})


class LocalBackend(ModelBackend):
    """A model loaded in this process; thread-safe (one generation at a time)."""

    def __init__(self, tokenizer: Any, eos: Sequence[int], *, draft_tokens: int) -> None:
        self.tokenizer = tokenizer
        self.eos_ids = list(eos)
        # Guessed tokens checked per forward pass (0: one token per pass, plain greedy).
        self.draft_tokens = draft_tokens
        self.decode_stats = decoding.DecodeStats()
        self._history: dict[str, decoding.History] = {}
        self._lock = threading.Lock()
        self.load_seconds = 0.0

    def generate(
        self,
        role: Role,
        messages: Sequence[Message],
        stop: Sequence[str] = (),
        *,
        timeout: float | None = None,
    ) -> Generation:
        """Greedy text for ``role``; raises BackendTimeout when ``timeout`` seconds pass first."""
        started = time.perf_counter()
        deadline = None if timeout is None else time.monotonic() + timeout
        if not self._lock.acquire(timeout=-1 if timeout is None else timeout):
            raise BackendTimeout(f"the model stayed busy for {timeout:g} s")
        try:
            ids = self.prompt_ids(messages)
            text, completion_tokens = self._answer(role, ids, stop, deadline)
        finally:
            self._lock.release()
        return Generation(
            text=cut_at_stop(text, stop),
            prompt_tokens=len(ids),
            completion_tokens=completion_tokens,
            latency_ms=int((time.perf_counter() - started) * 1000),
        )

    def prompt_ids(self, messages: Sequence[Message]) -> list[int]:
        """The token ids of ``messages`` in the model's chat template, ready for the assistant's turn."""
        chat = [{"role": message.role, "content": message.content} for message in messages]
        text = self.tokenizer.apply_chat_template(chat, tokenize=False, add_generation_prompt=True)
        # The template already holds any BOS text; adding special tokens would double it.
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    @abstractmethod
    def _answer(self, role: Role, ids: list[int], stop: Sequence[str], deadline: float | None) -> tuple[str, int]:
        """(text, generated tokens) for the prompt ``ids``; called under the lock."""

    def _decode(
        self,
        target: decoding.Target,
        ids: list[int],
        stop: Sequence[str],
        deadline: float | None,
        *,
        history_key: str,
        max_new_tokens: int,
    ) -> tuple[str, int]:
        """Greedy text after ``ids`` on ``target``, guessing from the answers kept under ``history_key``."""
        history = self._history.setdefault(history_key, decoding.History())

        def done(tokens: list[int]) -> bool:
            text = self.tokenizer.decode(tokens, skip_special_tokens=True)
            return any(mark and mark in text for mark in stop)

        tokens = decoding.greedy(
            target,
            ids,
            max_new_tokens=max_new_tokens,
            done=done,
            eos_ids=self.eos_ids,
            history=history.answers if self.draft_tokens else (),
            deadline=deadline,
            draft_tokens=self.draft_tokens,
            stats=self.decode_stats,
        )
        history.add(tokens)
        return self.tokenizer.decode(tokens, skip_special_tokens=True), len(tokens)
