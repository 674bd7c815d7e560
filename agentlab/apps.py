from __future__ import annotations

from django.apps import AppConfig


class AgentLabConfig(AppConfig):
    """Installed only so that Django finds the lab's management commands; it has no models."""

    name = "agentlab"
    verbose_name = "Agent lab (offline)"
