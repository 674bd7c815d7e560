"""The tool registry: every tool the caller may call, each with a JSON Schema.

Importing this package registers all tools in :data:`REGISTRY`.
"""

from __future__ import annotations

from agents.errors import (
    AgentError,
    InvalidArguments,
    ModelOutputError,
    NotAuthorised,
    NotFound,
    ToolError,
    UnknownTool,
    UnparseableOutput,
)
from agents.tools import (  # noqa: F401  (registers)
    appointments,
    emergency,
    health_data,
    interaction,
    my_appointments,
    my_health,
    my_medicines,
    symptoms,
)
from agents.tools.context import ToolContext
from agents.tools.interaction import AskUser
from agents.tools.registry import REGISTRY, Registry, Tool, build_tool, tool

__all__ = [
    "REGISTRY",
    "AgentError",
    "AskUser",
    "InvalidArguments",
    "ModelOutputError",
    "NotAuthorised",
    "NotFound",
    "Registry",
    "Tool",
    "ToolContext",
    "ToolError",
    "UnknownTool",
    "UnparseableOutput",
    "build_tool",
    "tool",
]
