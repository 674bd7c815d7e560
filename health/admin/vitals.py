"""Vital readings: written by paired devices only, so read-only here."""

from __future__ import annotations

from django.contrib import admin

from health.admin.base import AccessLoggedAdmin, ViewOnlyAdmin
from health.models import VitalReading


@admin.register(VitalReading)
class VitalReadingAdmin(AccessLoggedAdmin, ViewOnlyAdmin):
    list_display = (
        "measured_at",
        "user",
        "device",
        "heart_rate",
        "spo2",
        "systolic_bp",
        "diastolic_bp",
        "steps",
        "sleep_stage",
        "sleep_minutes",
        "received_at",
    )
    list_filter = ("device", "user", "sleep_stage")
    search_fields = ("user__username", "device__name")
    list_select_related = ("user", "device")
    date_hierarchy = "measured_at"
