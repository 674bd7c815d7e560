from __future__ import annotations

from django.apps import AppConfig


class FrontendConfig(AppConfig):
    name = "frontend"
    verbose_name = "Browser UI"

    def ready(self) -> None:
        from django.contrib import admin

        from frontend.operator import views

        # The operator's overview page, linked from the top of the admin index (the admin's
        # models are registered by each app's admin module; this page reads all of them).
        views.install(admin.site)
