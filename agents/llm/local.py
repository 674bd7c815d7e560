"""What the two in-process backends (transformers, llama.cpp) share.

One model per process answers one call at a time (a lock); prompts are the
model's chat template; answers are decoded greedily by agents.llm.decoding,
with each role's recent answers as a source of guesses. A subclass gives a
role's model as a decoding.Target that already holds what it can reuse of the
prompt (``_on_target``).

A trained adapter writes its answer freely, token for token as it was trained
(feeding the format's fixed text in pieces would split tokens differently from
training). When that answer does not parse, and for a role without an adapter,
the structured planner (tags fed, reason and action capped) and the
schema-constrained caller (agents.llm.constrained) answer instead: every
answer then has the planner's format or is a valid call to a real tool.
"""

from __future__ import annotations

import threading
import time
from abc import abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from agents.errors import ModelOutputError
from agents.llm import decoding
from agents.llm.base import (
    ROLES,
    BackendTimeout,
    Generation,
    Message,
    ModelBackend,
    Role,
    Tools,
    cut_at_stop,
    default_tools,
)
from agents.llm.constrained import ConstrainedCaller
from agents.trajectory import parse_caller, parse_planner

# Generation caps per role: a planner step is a short reason and one action; a caller writes one
# JSON call. In the generated training data (seed 11) planner answers run to 100 tokens (p50 28,
# p99 94) and caller answers to 136 (p50 63, p99 126); a cap below that cuts a proposal such as
# "Ask the user to confirm Dr. … on 2026-11-23 at 09:00-09:30" in the middle of its date.
MAX_NEW_TOKENS: dict[Role, int] = {"planner": 128, "caller": 192}
# The structured planner's caps: a reason is a short clause, an action one sentence.
PLANNER_REASON_TOKENS = 24
PLANNER_ACTION_TOKENS = 32
REASON_STOP = ("</reason>", "<action>", "</action>")
# How often one answer that loops is mended (agents.llm.local.LocalBackend._mend_loop).
LOOP_MENDS = 2

T = TypeVar("T")


def eos_ids(tokenizer: Any, configured: int | list[int] | None) -> list[int]:
    """The end-of-sequence ids: the model's configured ones and the tokenizer's."""
    ids = configured if isinstance(configured, list) else [configured]
    return sorted({int(i) for i in [*ids, tokenizer.eos_token_id] if i is not None})


class LocalBackend(ModelBackend):
    """A model loaded in this process; thread-safe (one generation at a time)."""

    def __init__(
        self,
        tokenizer: Any,
        eos: Sequence[int],
        *,
        draft_tokens: int,
        max_new_tokens: Mapping[Role, int] = MAX_NEW_TOKENS,
        constrained_caller: bool = True,
        structured_planner: bool = True,
    ) -> None:
        self.tokenizer = tokenizer
        self.eos_ids = list(eos)
        # Guessed tokens checked per forward pass (0: one token per pass, plain greedy).
        self.draft_tokens = draft_tokens
        self.max_new_tokens = dict(max_new_tokens)
        self.constrained_caller = constrained_caller
        self.structured_planner = structured_planner
        self._constrained: Any = None
        # Stop an answer stuck in a loop (agents.llm.decoding.looping) instead of running to the cap.
        self.stop_loops = True
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
        tools: Tools | None = None,
    ) -> Generation:
        """Greedy text for ``role``; raises BackendTimeout when ``timeout`` seconds pass first."""
        started = time.perf_counter()
        deadline = None if timeout is None else time.monotonic() + timeout
        if not self._lock.acquire(timeout=-1 if timeout is None else timeout):
            raise BackendTimeout(f"the model stayed busy for {timeout:g} s")
        try:
            ids = self.prompt_ids(messages)
            text, completion_tokens = self._answer(role, ids, stop, deadline, tools or default_tools())
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

    # --- what a subclass gives ---------------------------------------------------------

    @abstractmethod
    def _trained(self, role: Role) -> bool:
        """Whether ``role`` runs a trained adapter (else the plain base with the few-shot prompt)."""

    @property
    def few_shot(self) -> bool:
        """Whether some role runs the plain base and so needs the few-shot prompt."""
        return not all(self._trained(role) for role in ROLES)

    def _activate(self, role: Role) -> None:
        """Make ``role``'s adapter the active one, where the model is shared."""

    @abstractmethod
    def _on_target(self, role: Role, ids: list[int], work: Callable[[decoding.Target], T]) -> T:
        """``work`` on ``role``'s model, given as a Target holding a reusable prefix of ``ids`` (at
        least one token of ``ids`` left to feed); called under the lock."""

    # --- answers ---------------------------------------------------------------------------

    def _answer(
        self, role: Role, ids: list[int], stop: Sequence[str], deadline: float | None, tools: Tools | None
    ) -> tuple[str, int]:
        """(text, generated tokens) for the prompt ``ids``; called under the lock."""
        self._activate(role)
        guided = (role == "caller" and self.constrained_caller and tools is not None) or (
            role == "planner" and self.structured_planner
        )
        spent = 0
        if self._trained(role) or not guided:
            text, spent, looped = self._generate(role, ids, stop, deadline)
            if looped:
                text, spent = self._mend_loop(role, ids, stop, deadline, text, spent)
            if not guided or _usable(role, cut_at_stop(text, stop), tools):
                return text, spent
        if role == "caller":
            text, generated = self._constrained_call(ids, deadline, tools)
        else:
            text, generated = self._structured_plan(ids, deadline)
        return text, spent + generated

    def _mend_loop(
        self, role: Role, ids: list[int], stop: Sequence[str], deadline: float | None, text: str, spent: int
    ) -> tuple[str, int]:
        """An answer that stopped in a loop, with the repeated part kept once and the answer closed.

        A planner that loops inside its action ("about fatigue, low iron intake, low iron intake, …")
        gets its action closed there. A caller that loops inside a string value gets the string
        closed and goes on to write the rest of its call: cut off in its first parameter, it would
        lose the ones after it (the specialization of a search, say). Greedy decoding never leaves a
        loop by itself.
        """
        for _ in range(LOOP_MENDS):
            cut = decoding.cut_loop(text)
            if cut is None:
                break
            if role == "planner":
                opened = cut.rfind("<action>")
                return (cut + "</action>" if opened > cut.rfind("</action>") else cut), spent
            if not _inside_string(cut):
                return cut, spent
            mended = cut + '"'
            room = self.max_new_tokens[role] - spent
            if room <= 0:
                return mended, spent
            more, extra, looped = self._generate(role, ids + self._ids(mended), stop, deadline, max_new_tokens=room)
            text, spent = mended + more, spent + extra
            if not looped:
                break
        return text, spent

    def _generate(
        self,
        role: Role,
        ids: list[int],
        stop: Sequence[str],
        deadline: float | None,
        *,
        max_new_tokens: int | None = None,
    ) -> tuple[str, int, bool]:
        """Greedy text after ``ids`` (agents.llm.decoding: guesses checked in one pass, same tokens),
        its token count, and whether it stopped in a loop."""
        return self._on_target(
            role,
            ids,
            lambda target: self._decode(
                target,
                ids,
                stop,
                deadline,
                history_key=role,
                max_new_tokens=max_new_tokens or self.max_new_tokens[role],
            ),
        )

    def _structured_plan(self, ids: list[int], deadline: float | None) -> tuple[str, int]:
        """``<reason>…</reason><action>…</action>`` with the tags fed, not generated, and each part capped.

        The answer always has the planner's format, and the model writes only
        the reason and the action: fewer tokens, the cost that dominates here.
        """
        reason_prompt = ids + self._ids("<reason>")
        reason, reason_tokens, _ = self._generate(
            "planner", reason_prompt, REASON_STOP, deadline, max_new_tokens=PLANNER_REASON_TOKENS
        )
        reason = cut_at_stop(reason, REASON_STOP).strip()
        action_prompt = reason_prompt + self._ids(f"{reason}</reason><action>")
        action, action_tokens, _ = self._generate(
            "planner", action_prompt, ("</action>",), deadline, max_new_tokens=PLANNER_ACTION_TOKENS
        )
        action = cut_at_stop(action, ("</action>",)).strip()
        return f"<reason>{reason}</reason><action>{action}</action>", reason_tokens + action_tokens

    def _constrained_call(self, ids: list[int], deadline: float | None, tools: Tools) -> tuple[str, int]:
        if self._constrained is None:
            self._constrained = ConstrainedCaller(self.tokenizer)
        return self._on_target(
            "caller", ids, lambda target: self._constrained.call(target, ids, tools, deadline=deadline)
        )

    def _ids(self, text: str) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def _decode(
        self,
        target: decoding.Target,
        ids: list[int],
        stop: Sequence[str],
        deadline: float | None,
        *,
        history_key: str,
        max_new_tokens: int,
    ) -> tuple[str, int, bool]:
        """Greedy text after ``ids`` on ``target``, guessing from the answers kept under ``history_key``;
        its token count and whether it stopped in a loop."""
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
            stop_loops=self.stop_loops,
        )
        history.add(tokens)
        looped = self.stop_loops and len(tokens) < max_new_tokens and decoding.looping(tokens)
        return self.tokenizer.decode(tokens, skip_special_tokens=True), len(tokens), looped


def _inside_string(text: str) -> bool:
    """Whether JSON ``text`` ends inside a string value (an odd number of unescaped quotes)."""
    inside = escaped = False
    for char in text:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == '"':
            inside = not inside
    return inside


def _usable(role: Role, text: str, tools: Tools | None) -> bool:
    """Whether a free answer parses (the planner's) or is a valid call to a real tool (the caller's)."""
    try:
        if role == "planner":
            parse_planner(text)
        else:
            call = parse_caller(text)
            if tools is not None:
                tools.get(call["tool"]).validate(call["parameters"])
    except ModelOutputError:
        return False
    return True
