from __future__ import annotations

from django.apps import AppConfig


class AgentsConfig(AppConfig):
    name = "agents"
    verbose_name = "Action Manager"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Imported here: models and services need the app registry ready.
        from agents import reports
        from agents.llm.base import use_tools
        from agents.memory.versions import connect_signals
        from agents.sos.flows import SosFlows
        from agents.tools import REGISTRY
        from health.reports import hooks as report_hooks
        from health.sos import flows

        # The Health Manager starts SOS flows through this registry; health never imports agents.
        flows.register(SosFlows())
        # Model backends do not import the tool registry: a caller of generate() that names no
        # tools (a benchmark, an evaluation) gets the app's.
        use_tools(REGISTRY.offered())
        # The daily report names the day's conversations and may carry the model's summary; health
        # never imports agents, so it gets both through this registry.
        report_hooks.register(conversation_points=reports.conversation_points, narrator=reports.narrate)
        # Memory indexes follow every change of the models they are built from.
        connect_signals()
