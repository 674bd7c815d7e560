from __future__ import annotations

from django.apps import AppConfig


class AgentsConfig(AppConfig):
    name = "agents"
    verbose_name = "Action Manager"
    default_auto_field = "django.db.models.BigAutoField"
