"""The ``@tool`` decorator and the registry of tools the caller may call.

Like smolagents' ``@tool``: a tool is a plain function whose first parameter is
the injected :class:`~agents.tools.context.ToolContext`; the remaining
parameters, their type hints and the docstring's ``Args:`` section become an
OpenAI-function-format JSON Schema. The schema is what the runtime validates
the caller's parameters against before the function runs.
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import jsonschema

from agents.errors import InvalidArguments, UnknownTool

_SCALARS: dict[type, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}


def json_schema_for(hint: Any) -> dict[str, Any]:
    """The JSON Schema of one parameter type (``None`` in a union means "may be omitted")."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        if len(options) != 1:
            raise TypeError(f"Only 'X | None' unions are supported, got {hint!r}")
        return json_schema_for(options[0])
    if hint in _SCALARS:
        return {"type": _SCALARS[hint]}
    if hint is dict or origin is dict:
        return {"type": "object"}
    if hint is list or origin is list:
        args = typing.get_args(hint)
        return {"type": "array", "items": json_schema_for(args[0])} if args else {"type": "array"}
    if typing.is_typeddict(hint):
        hints = typing.get_type_hints(hint)
        return {
            "type": "object",
            "properties": {name: json_schema_for(sub) for name, sub in hints.items()},
            "required": sorted(hint.__required_keys__),
            "additionalProperties": False,
        }
    raise TypeError(f"No JSON Schema mapping for {hint!r}")


def parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """Split a Google-style docstring into (description, {arg: description})."""
    text = inspect.cleandoc(doc or "")
    head, _, rest = text.partition("\nArgs:\n")
    description = " ".join(head.split("\n\n")[0].split())
    args: dict[str, str] = {}
    current: str | None = None
    for line in rest.splitlines():
        if not line.strip():
            continue
        if not line.startswith(" "):
            break  # the next section (Returns:, ...) ends Args
        match = re.match(r"^\s{2,4}(\w+)(?:\s*\([^)]*\))?:\s*(.*)$", line)
        if match and (current is None or len(line) - len(line.lstrip()) <= 4):
            current = match.group(1)
            args[current] = match.group(2).strip()
        elif current is not None:
            args[current] = f"{args[current]} {line.strip()}".strip()
    return description, args


@dataclass(frozen=True)
class Tool:
    """A registered tool: its name, schema and implementation."""

    name: str
    description: str
    parameters: dict[str, Any]
    function: Callable[..., Any]
    # A suspending tool asks the user something: the run pauses until the
    # user's reply arrives, and that reply is the observation.
    suspends: bool = False
    validator: jsonschema.protocols.Validator = field(repr=False, compare=False, default=None)
    # Offered to the model (listed in its prompts, a choice of the constrained caller). The tools the
    # runtime's desks call are not: the adapters were trained on the prompts without them, and a
    # changed tool list is a changed prompt.
    offered: bool = True

    def openai_schema(self) -> dict[str, Any]:
        """The tool in OpenAI's function-calling format."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }

    def ordered(self, parameters: dict[str, Any]) -> dict[str, Any]:
        """``parameters`` in the schema's order (unknown keys last): the order the caller is trained on."""
        order = {name: position for position, name in enumerate(self.parameters["properties"])}
        return dict(sorted(parameters.items(), key=lambda item: order.get(item[0], len(order))))

    def validate(self, arguments: Any) -> None:
        """Raise InvalidArguments unless ``arguments`` satisfy the schema (all problems, one message)."""
        if not isinstance(arguments, dict):
            raise InvalidArguments(f"'parameters' of {self.name} must be an object.")
        problems = sorted(self.validator.iter_errors(arguments), key=lambda error: list(error.path))
        if problems:
            details = "; ".join(_describe(problem) for problem in problems)
            raise InvalidArguments(f"Invalid parameters for {self.name}: {details}.")

    def __call__(self, context: Any, **arguments: Any) -> Any:
        return self.function(context, **arguments)


def _describe(error: jsonschema.ValidationError) -> str:
    where = ".".join(str(part) for part in error.path)
    return f"{where}: {error.message}" if where else error.message


def build_tool(
    function: Callable[..., Any], *, name: str | None = None, suspends: bool = False, offered: bool = True
) -> Tool:
    """Build a Tool from a function whose first parameter is the ToolContext."""
    description, arg_docs = parse_docstring(function.__doc__ or "")
    if not description:
        raise TypeError(f"Tool {function.__name__} needs a docstring")
    hints = typing.get_type_hints(function)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for index, parameter in enumerate(inspect.signature(function).parameters.values()):
        if index == 0:
            continue  # the injected context, never visible to the model
        if parameter.name not in arg_docs:
            raise TypeError(f"Tool {function.__name__}: argument {parameter.name!r} is not described under Args:")
        schema = json_schema_for(hints[parameter.name])
        schema["description"] = arg_docs[parameter.name]
        properties[parameter.name] = schema
        if parameter.default is inspect.Parameter.empty:
            required.append(parameter.name)
    parameters = {"type": "object", "properties": properties, "required": required, "additionalProperties": False}
    validator_class = jsonschema.validators.validator_for(parameters)
    validator_class.check_schema(parameters)
    return Tool(
        name=name or function.__name__,
        description=description,
        parameters=parameters,
        function=function,
        suspends=suspends,
        validator=validator_class(parameters),
        offered=offered,
    )


class Registry:
    """Tools by name. The runtime only ever calls what is registered here."""

    def __init__(self) -> None:
        self._tools: dict[str, Tool] = {}

    def register(self, tool: Tool) -> Tool:
        if tool.name in self._tools:
            raise ValueError(f"Tool {tool.name!r} is registered twice")
        self._tools[tool.name] = tool
        return tool

    def get(self, name: Any) -> Tool:
        if not isinstance(name, str) or name not in self._tools:
            known = ", ".join(sorted(self._tools))
            raise UnknownTool(f"Unknown tool {name!r}. Available tools: {known}.")
        return self._tools[name]

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def names(self) -> list[str]:
        return sorted(self._tools)

    def offered(self) -> Registry:
        """The tools offered to the model (:attr:`Tool.offered`), as a registry of their own."""
        view = Registry()
        for found in self._tools.values():
            if found.offered:
                view.register(found)
        return view


REGISTRY = Registry()


def tool(
    function: Callable[..., Any] | None = None,
    *,
    suspends: bool = False,
    offered: bool = True,
    registry: Registry = REGISTRY,
):
    """Decorator: register ``function`` as a tool (``@tool``, ``@tool(suspends=True)``, or
    ``@tool(offered=False)`` for a tool only the runtime's desks call)."""

    def decorate(fn: Callable[..., Any]) -> Tool:
        return registry.register(build_tool(fn, suspends=suspends, offered=offered))

    return decorate(function) if function is not None else decorate
