"""Evening daily health reports, kept long-term."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class DailyReport(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="daily_reports")
    date = models.DateField()
    metrics = models.JSONField(default=dict, blank=True)
    anomalies = models.JSONField(default=list, blank=True)
    narrative = models.TextField(blank=True)
    generated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-date"]
        constraints = [models.UniqueConstraint(fields=["user", "date"], name="report_one_per_day")]

    def __str__(self) -> str:
        return f"Report {self.date} for {self.user}"
