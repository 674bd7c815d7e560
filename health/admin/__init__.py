"""The operator dashboard: Django admin for every Health Manager model, one
module per domain (agents' models are in ``agents.admin``)."""

from __future__ import annotations

from django.contrib import admin

from health.admin import (  # noqa: F401  (importing registers each domain's admin)
    alerts,
    appointments,
    audit,
    directory,
    messaging,
    patients,
    prescriptions,
    reports,
    simulator,
    vitals,
)

admin.site.site_header = "Agent Lite operator dashboard"
admin.site.site_title = "Agent Lite operator dashboard"
admin.site.index_title = "Patients, alerts, appointments and messages"
