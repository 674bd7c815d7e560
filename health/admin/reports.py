"""Daily reports: written by the evening report generator, so read-only here."""

from __future__ import annotations

from django.contrib import admin

from health.admin.base import AccessLoggedAdmin, ViewOnlyAdmin
from health.models import DailyReport


@admin.register(DailyReport)
class DailyReportAdmin(AccessLoggedAdmin, ViewOnlyAdmin):
    list_display = ("date", "user", "anomaly_count", "narrative_source", "covers_until", "generated_at")
    list_filter = ("narrative_source", "user")
    search_fields = ("user__username", "narrative")
    list_select_related = ("user",)
    date_hierarchy = "date"

    @admin.display(description="anomalies")
    def anomaly_count(self, report: DailyReport) -> int:
        return len(report.anomalies)
