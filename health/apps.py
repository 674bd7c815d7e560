from __future__ import annotations

from django.apps import AppConfig


class HealthConfig(AppConfig):
    name = "health"
    verbose_name = "Health Manager"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from health import audit

        audit.register()
