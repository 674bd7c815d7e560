"""The Action Manager's error hierarchy (tools, model backends and the trajectory format share it).

Errors the *model* causes (an unknown tool, bad arguments, a call the user is
not allowed to make) are recorded on the step as an error observation and fed
back to the model; they are never raised out of the runtime. Errors of the
*machinery* (a backend that crashes or times out) end the run gracefully.
"""

from __future__ import annotations


class AgentError(Exception):
    """Base of every error the Action Manager knows about."""


class ModelOutputError(AgentError):
    """The model produced something the runtime cannot act on."""


class UnparseableOutput(ModelOutputError):
    """The caller's text is not one JSON object ``{"tool": ..., "parameters": {...}}``."""


class UnknownTool(ModelOutputError):
    """The caller named a tool that is not in the registry."""


class InvalidArguments(ModelOutputError):
    """The parameters do not satisfy the tool's JSON Schema."""


class ToolError(AgentError):
    """A well-formed call that the tool refused or could not complete.

    ``str(error)`` is shown to the model as the observation, so it must say what
    went wrong without leaking other users' data.
    """


class NotAuthorised(ToolError):
    """The call names a user, record or recipient the conversation's user does not own."""


class NotFound(ToolError):
    """The call names something that does not exist (a slot, an ambulance, a report)."""
