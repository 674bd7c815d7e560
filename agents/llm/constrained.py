"""Schema-constrained decoding of one tool call: only the variable parts are generated.

The fixed JSON text (``{"tool": "``, key names, quotes, braces) is fed to the
model, never generated; the tool name, enum values, booleans and which
optional parameters to add are chosen among the allowed token sequences
(greedy along a token trie); strings, numbers and arrays of strings are
generated with caps. The result is therefore always valid JSON naming a real
tool with schema-typed parameters, and it costs far fewer forward passes than
generating the whole call (free generation of one call measured 10.8 s here, and
gave invalid JSON).

Whether the *values* are right is the model's job (the trained caller adapter);
the runtime still validates every call before it runs.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any

from agents.llm.base import BackendTimeout

# The base model rambles: cap every generated value (a trained caller closes its strings itself;
# the longest it writes, a soft-SOS vitals report, stays under this).
MAX_STRING_TOKENS = 128
MAX_NUMBER_TOKENS = 8
MAX_ARRAY_ITEMS = 4


class ConstrainedCaller:
    """Builds tool calls with one tokenizer on any decoding.Target; not thread-safe (the backend
    serialises calls)."""

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer
        pieces = [tokenizer.decode([i]) for i in range(len(tokenizer))]
        self.digit_ids = [i for i, s in enumerate(pieces) if s and s.isdigit()]
        self.number_ids = [i for i, s in enumerate(pieces) if s and all(c in "0123456789.-" for c in s)]
        self.target: Any = None
        self.logits: Any = None
        self.generated = 0
        self.deadline: float | None = None

    # --- one call -------------------------------------------------------------

    def call(
        self, target: Any, prompt_ids: Sequence[int], registry: Any, *, deadline: float | None = None
    ) -> tuple[str, int]:
        """(the call as JSON text, tokens generated) for the prompt.

        ``target`` (a decoding.Target) may already hold a prefix of the prompt;
        on return it holds the prompt and the call (the backend crops it back).
        """
        self.target, self.generated, self.deadline = target, 0, deadline
        self._forward(list(prompt_ids[target.held() :]))
        self.feed('{"tool": "')
        tools = {tool.name: tool for tool in registry}
        name = self.choose(sorted(tools), suffix='"')
        self.feed(', "parameters": ')
        parameters = self.object_value(tools[name].parameters)
        return json.dumps({"tool": name, "parameters": parameters}, ensure_ascii=False), self.generated

    # --- values by schema -------------------------------------------------------

    def value(self, schema: dict[str, Any]) -> Any:
        if "enum" in schema:
            self.feed('"')
            return self.choose([str(option) for option in schema["enum"]], suffix='"')
        kind = schema.get("type")
        if kind == "object":
            return self.object_value(schema)
        if kind == "array":
            return self.array_value(schema.get("items", {"type": "string"}))
        if kind == "boolean":
            return self.choose(["true", "false"], suffix="") == "true"
        if kind in ("integer", "number"):
            text = self.number(self.digit_ids if kind == "integer" else self.number_ids)
            try:
                return int(text) if kind == "integer" else float(text)
            except ValueError:  # "-" or "1.2.3": typed, if not meaningful
                return 0
        self.feed('"')
        return self.string()

    def object_value(self, schema: dict[str, Any]) -> dict[str, Any]:
        """Required keys in schema order, then optional keys while the model prefers one over ``}``."""
        properties: dict[str, Any] = schema.get("properties", {})
        required = [key for key in properties if key in schema.get("required", [])]
        optional = [key for key in properties if key not in required]
        result: dict[str, Any] = {}
        self.feed("{")
        for key in required:
            self.feed(f'{", " if result else ""}"{key}": ')
            result[key] = self.value(properties[key])
        while optional:
            separator = ", " if result else ""
            options = [f'{separator}"{key}": ' for key in optional]
            picked = self.choose([*options, "}"], suffix="", fed=True)
            if picked == "}":
                return result
            key = optional.pop(options.index(picked))
            result[key] = self.value(properties[key])
        self.feed("}")
        return result

    def array_value(self, items: dict[str, Any]) -> list[Any]:
        result: list[Any] = []
        self.feed("[")
        while len(result) < MAX_ARRAY_ITEMS:
            result.append(self.value(items))
            if self.choose([", ", "]"], suffix="", fed=True) == "]":
                return result
        self.feed("]")
        return result

    # --- primitives ---------------------------------------------------------------

    def _forward(self, ids: list[int]) -> None:
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise BackendTimeout("the model ran out of time while writing the tool call")
        self.logits = self.target.scores(ids)

    def _ids(self, text: str) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def feed(self, text: str) -> None:
        """Append fixed text: one forward pass, nothing generated."""
        ids = self._ids(text)
        if ids:
            self._forward(ids)

    def choose(self, options: Sequence[str], *, suffix: str, fed: bool = False) -> str:
        """The option the model prefers, greedily along the token trie of ``option + suffix``; it is fed.

        Only tokens where the options branch cost a forward pass each; the
        unambiguous rest is fed in one.
        """
        sequences = [self._ids(option + suffix) for option in options]
        alive = list(range(len(options)))
        position = 0
        while len(alive) > 1:
            finished = [i for i in alive if len(sequences[i]) == position]
            if finished:  # an option that is a prefix of the others: take it whole
                alive = finished[:1]
                break
            allowed = {sequences[i][position] for i in alive}
            best = max(allowed, key=lambda token: float(self.logits[token]))
            self._forward([best])
            alive = [i for i in alive if sequences[i][position] == best]
            position += 1
        winner = alive[0]
        rest = sequences[winner][position:]
        if rest:
            self._forward(rest)
        return options[winner]

    def string(self) -> str:
        """Greedy text up to a quote or newline (capped); the closing quote is fed."""
        text = ""
        for _ in range(MAX_STRING_TOKENS):
            token = int(self.logits.argmax())
            if token == self.tokenizer.eos_token_id:
                break
            piece = self.tokenizer.decode([token])
            if '"' in piece or "\n" in piece:
                # The token holding the quote is not fed as generated; its text
                # before the quote is, with the closing quote.
                head = piece.split('"')[0].split("\n")[0]
                text += head
                self.feed(head + '"')
                return text.strip()
            text += piece
            self.generated += 1
            self._forward([token])
        self.feed('"')
        return text.strip()

    def number(self, allowed: Sequence[int]) -> str:
        """Digits (and ``.``/``-`` for numbers) while the model prefers them over ending the value."""
        enders = [i for i in (self._first(","), self._first("}"), self._first("]")) if i is not None]
        text = ""
        for _ in range(MAX_NUMBER_TOKENS):
            best = max(allowed, key=lambda token: float(self.logits[token]))
            if text and enders and max(float(self.logits[i]) for i in enders) > float(self.logits[best]):
                break
            text += self.tokenizer.decode([best])
            self.generated += 1
            self._forward([best])
        if not text:
            self.feed("0")
        return text or "0"

    def _first(self, text: str) -> int | None:
        ids = self._ids(text)
        return ids[0] if ids else None
