"""Greedy decoding that checks guessed continuations in one forward pass (draft-and-verify).

On this CPU a forward pass over a dozen tokens costs little more than over one:
the time goes to per-layer overhead, not arithmetic. The agent's answers are
also highly predictable: a caller copies ids, names and symptoms from the
prompt, and planner reasons reuse the phrasing of earlier answers. So each
step guesses up to ``draft_tokens`` next tokens by looking the last few
generated tokens up in the prompt and in recent answers (prompt-lookup
decoding), feeds the guess with the last token, and keeps the longest prefix of
the guess that matches the model's own greedy choice at every position, plus
the model's next token after it.

The output is token for token the same as plain greedy decoding: a guessed
token is only kept where the model's argmax agrees with it. Guesses only
change how many forward passes it takes.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from agents.llm.base import BackendTimeout

# Longest guess checked per forward pass, and the n-gram sizes used to find one.
DRAFT_TOKENS = 12
NGRAM_SIZES = (4, 3, 2)
# Recent answers kept per role as a second place to look guesses up.
HISTORY_ANSWERS = 64
# An answer that ends in one unit of up to LOOP_PERIOD tokens repeated LOOP_REPEATS times is stuck
# ("fatigue, fatigue, fatigue, …" on the paper's D.1 message): greedy decoding never leaves such a
# loop, so generation stops there instead of running on to the cap.
LOOP_PERIOD = 8
LOOP_REPEATS = 8


@dataclass
class DecodeStats:
    forward_passes: int = 0
    drafted: int = 0
    accepted: int = 0

    def reset(self) -> None:
        self.forward_passes = self.drafted = self.accepted = 0


@dataclass
class History:
    """Recent answers (token ids) of one role: later answers reuse their phrasing."""

    answers: deque = field(default_factory=lambda: deque(maxlen=HISTORY_ANSWERS))

    def add(self, tokens: Sequence[int]) -> None:
        if tokens:
            self.answers.appendleft(list(tokens))


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """How many leading tokens ``a`` and ``b`` share."""
    length = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        length += 1
    return length


def lookup(sequence: Sequence[int], sources: Sequence[Sequence[int]], limit: int) -> list[int]:
    """The tokens that followed the longest recent match of ``sequence``'s last n-gram in ``sources``.

    ``sequence`` itself is searched first (its own earlier text, then the
    prompt it extends), then each source in order; the latest occurrence wins.
    """
    for size in NGRAM_SIZES:
        if len(sequence) < size:
            continue
        tail = list(sequence[-size:])
        for source in (sequence, *sources):
            # Starts before ``stop`` only: in ``sequence`` the tail itself is not a match.
            stop = len(source) - size if source is sequence else len(source) - size + 1
            found = _last_occurrence(source, tail, stop)
            if found is not None:
                follow = list(source[found + size : found + size + limit])
                if follow:
                    return follow
    return []


def looping(tokens: Sequence[int]) -> bool:
    """Whether ``tokens`` end in a unit of at most LOOP_PERIOD tokens repeated LOOP_REPEATS times."""
    for period in range(1, LOOP_PERIOD + 1):
        span = period * LOOP_REPEATS
        if len(tokens) < span:
            return False
        tail = tokens[-span:]
        if all(tail[i] == tail[i - period] for i in range(period, span)):
            return True
    return False


def cut_loop(text: str, repeats: int = 3, longest: int = 80) -> str | None:
    """``text`` with the part it ends repeating back to back kept once, separators stripped; None
    when it does not end so (at least ``repeats`` copies of 2 to ``longest`` characters).

    "about fatigue, low iron intake, low iron intake, low iron intake," -> "about fatigue, low iron intake"
    """
    for period in range(2, min(longest, len(text) // repeats) + 1):
        unit = text[-period:]
        if text[-repeats * period :] != unit * repeats:
            continue
        copies = repeats
        while text[: len(text) - copies * period].endswith(unit):
            copies += 1
        return text[: len(text) - (copies - 1) * period].rstrip(" ,;")
    return None


def continuation(answer: Sequence[int], history: Sequence[Sequence[int]], limit: int) -> list[int]:
    """How the latest earlier answer that starts with ``answer`` (so far) went on.

    Answers of one role start alike (a caller's ``{"tool": "``, a planner's
    ``<reason>``), so the first tokens of an answer, where the n-gram lookup has
    too little of the answer to go by, can be guessed from the role's own past
    answers, even before its first token.
    """
    size = len(answer)
    for earlier in history:
        if len(earlier) > size and list(earlier[:size]) == list(answer):
            return list(earlier[size : size + limit])
    return []


def _last_occurrence(source: Sequence[int], tail: list[int], stop: int) -> int | None:
    """Start index of the last occurrence of ``tail`` in ``source`` that starts before ``stop``."""
    first = tail[0]
    size = len(tail)
    for start in range(stop - 1, -1, -1):
        if source[start] == first and list(source[start : start + size]) == tail:
            return start
    return None


class Target(Protocol):
    """A model with a key/value cache of one sequence: what draft-and-verify decoding drives."""

    def held(self) -> int:
        """How many tokens the cache holds."""

    def forward(self, tokens: list[int], keep: int) -> list[int]:
        """Feed ``tokens`` after the held ones; the greedy next token after each of the last ``keep``."""

    def scores(self, tokens: list[int]) -> Any:
        """Feed ``tokens`` after the held ones; the next-token scores after the last (1-D, indexable)."""

    def crop(self, length: int) -> None:
        """Drop every held token after the first ``length``."""


class TorchTarget:
    """A transformers (or peft) causal LM and its DynamicCache."""

    def __init__(self, model: Any, cache: Any) -> None:
        self.model = model
        self.cache = cache

    def held(self) -> int:
        return self.cache.get_seq_length()

    def forward(self, tokens: list[int], keep: int) -> list[int]:
        import torch  # heavy, optional: loaded only when used

        # Logits only where they are read: the vocabulary projection of a long new
        # prompt piece would cost more than the rest of the pass.
        with torch.inference_mode():
            output = self.model(
                input_ids=torch.tensor([tokens]), past_key_values=self.cache, use_cache=True, logits_to_keep=keep
            )
        return output.logits[0].argmax(dim=-1).tolist()

    def scores(self, tokens: list[int]) -> Any:
        import torch  # heavy, optional: loaded only when used

        with torch.inference_mode():
            output = self.model(
                input_ids=torch.tensor([tokens]), past_key_values=self.cache, use_cache=True, logits_to_keep=1
            )
        return output.logits[0, -1].float()

    def crop(self, length: int) -> None:
        extra = self.cache.get_seq_length() - length
        if extra > 0:
            self.cache.crop(-extra)


def greedy(
    target: Target,
    prompt: Sequence[int],
    *,
    max_new_tokens: int,
    done: Callable[[list[int]], bool],
    eos_ids: Sequence[int] = (),
    history: Sequence[Sequence[int]] = (),
    deadline: float | None = None,
    draft_tokens: int = DRAFT_TOKENS,
    stats: DecodeStats | None = None,
    stop_loops: bool = True,
) -> list[int]:
    """Greedy continuation of ``prompt``; ``target``'s cache may already hold a prefix of it.

    Stops after an end-of-sequence token (not returned), when ``done`` says so
    for the tokens so far, when the answer is stuck in a loop (:func:`looping`;
    unless ``stop_loops`` is off), or at ``max_new_tokens``. On return the cache holds
    the prompt plus generated tokens (not necessarily the last ones).
    """
    stats = stats if stats is not None else DecodeStats()
    held = target.held()
    pending = list(prompt[held:])  # tokens to feed before the first new one
    if not pending:
        raise ValueError("the cache must leave at least one prompt token to feed")
    generated: list[int] = []
    eos = set(eos_ids)
    while True:
        if deadline is not None and time.monotonic() >= deadline:
            raise BackendTimeout("the model ran out of time while generating")
        room = min(draft_tokens, max_new_tokens - len(generated) - 1)
        draft: list[int] = []
        if room > 0:
            if len(generated) < min(NGRAM_SIZES):
                draft = continuation(generated, history, room)
            draft = draft or (lookup([*prompt, *generated], history, room) if generated else [])
        # choices[i] is the model's token after the last pending token followed by draft[:i].
        choices = target.forward(pending + draft, len(draft) + 1)
        stats.forward_passes += 1
        stats.drafted += len(draft)
        accepted = 0
        while accepted < len(draft) and draft[accepted] == choices[accepted]:
            accepted += 1
        stats.accepted += accepted
        # The cache keeps ``pending`` and the accepted guesses; the rejected ones are dropped.
        held += len(pending) + accepted
        target.crop(held)
        new = [*draft[:accepted], choices[accepted]]
        for token in new:
            if token in eos:
                return generated
            generated.append(token)
            if len(generated) >= max_new_tokens or done(generated) or (stop_loops and looping(generated)):
                return generated
        pending = [generated[-1]]
