"""An answer stuck in a loop is mended: the repeated part kept once, the answer closed, and a caller
that looped inside a string goes on to write the rest of its call (agents.llm.local)."""

from __future__ import annotations

import pytest

from agents.llm import decoding
from agents.llm.base import Message
from agents.llm.local import LocalBackend
from agents.trajectory import parse_caller, parse_planner

PROMPT = [Message("system", "You are the caller."), Message("user", "planner: Find an available dietician.")]
ASSISTANT = "<|im_start|>assistant\n"


@pytest.mark.parametrize(
    ("text", "cut"),
    [
        ("about fatigue, low iron intake, low iron intake, low iron intake,", "about fatigue, low iron intake"),
        ('{"symptoms": "a, bb, ccc, ccc, ccc, ccc', '{"symptoms": "a, bb, ccc'),
        ("x, fatigue, fatigue, fatigue", "x, fatigue"),
        ("Find a cardiologist.", None),
        ("09:00-09:30, 2026-11-24", None),
        ("fatigue, fatigue", None),  # twice is not a loop
    ],
)
def test_a_part_repeated_at_the_end_is_kept_once(text, cut):
    assert decoding.cut_loop(text) == cut


class PolicyTarget:
    """A stand-in model (decoding.Target): after the assistant turn starts, it writes what
    ``policy(answer so far)`` says comes next, one token at a time; "" ends the answer."""

    def __init__(self, tokenizer, policy) -> None:
        self.tokenizer, self.policy = tokenizer, policy
        self.tokens: list[int] = []
        self.start = tokenizer(ASSISTANT, add_special_tokens=False)["input_ids"]

    def held(self) -> int:
        return len(self.tokens)

    def forward(self, tokens: list[int], keep: int) -> list[int]:
        self.tokens += tokens
        return [self._next(len(self.tokens) - keep + i + 1) for i in range(keep)]

    def scores(self, tokens: list[int]):  # the guided fallback is not reached here
        raise AssertionError("the mended answer should have been usable")

    def crop(self, length: int) -> None:
        del self.tokens[length:]

    def _next(self, upto: int) -> int:
        tokens = self.tokens[:upto]
        size = len(self.start)
        begin = max(i + size for i in range(len(tokens) - size + 1) if tokens[i : i + size] == self.start)
        text = self.policy(self.tokenizer.decode(tokens[begin:]))
        if not text:
            return self.tokenizer.eos_token_id
        return self.tokenizer(text, add_special_tokens=False)["input_ids"][0]


class PolicyBackend(LocalBackend):
    def __init__(self, tokenizer, policy) -> None:
        super().__init__(tokenizer, [tokenizer.eos_token_id], draft_tokens=3)
        self.policy = policy

    def _trained(self, role) -> bool:
        return True

    def _on_target(self, role, ids, work):
        return work(PolicyTarget(self.tokenizer, self.policy))


LOOP = ", low iron intake"


def looping_caller(answer: str) -> str:
    """Writes a search whose symptom list loops for as long as its string stays open."""
    head = '{"tool": "get_available_specialists", "parameters": {"symptoms": "skipping meals, fatigue'
    if answer.count('"') <= head.count('"'):  # still inside the symptoms string
        return (head + LOOP * 40)[len(answer) :]
    rest = ', "specialization": "dietician"}}'
    written = answer[answer.index('"', len(head)) + 1 :]
    return rest[len(written) :] if rest.startswith(written) else ""


def looping_planner(answer: str) -> str:
    head = "<reason>New symptoms.</reason><action>Retrieve past complaints about skipping meals, fatigue"
    return (head + LOOP * 40)[len(answer) :]


@pytest.fixture
def tokenizer(default_model_dir):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(default_model_dir, local_files_only=True)


def test_a_caller_that_loops_in_its_symptoms_still_writes_the_specialization(tokenizer):
    backend = PolicyBackend(tokenizer, looping_caller)

    call = parse_caller(backend.generate("caller", PROMPT).text)

    assert call == {
        "tool": "get_available_specialists",
        "parameters": {"symptoms": "skipping meals, fatigue, low iron intake", "specialization": "dietician"},
    }


def test_a_planner_that_loops_in_its_action_gets_the_action_closed(tokenizer):
    backend = PolicyBackend(tokenizer, looping_planner)

    planned = parse_planner(backend.generate("planner", PROMPT).text)

    assert planned["action"] == "Retrieve past complaints about skipping meals, fatigue, low iron intake"


def test_without_loop_stopping_nothing_is_mended(tokenizer):
    backend = PolicyBackend(tokenizer, looping_planner)
    backend.stop_loops = False

    generation = backend.generate("planner", PROMPT)

    assert generation.completion_tokens == backend.max_new_tokens["planner"]
