"""Evening daily health reports, kept long-term (``health.reports`` builds them)."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class DailyReport(models.Model):
    class NarrativeSource(models.TextChoices):
        TEMPLATE = "template", "Template"
        MODEL = "model", "Local model (fact-checked)"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="daily_reports")
    date = models.DateField(help_text="The patient's local day the report is about.")
    metrics = models.JSONField(default=dict, blank=True, help_text="The computed facts of the day.")
    anomalies = models.JSONField(default=list, blank=True, help_text="The day's alerts, with their outcome.")
    narrative = models.TextField(blank=True)
    narrative_source = models.CharField(
        max_length=16, choices=NarrativeSource.choices, default=NarrativeSource.TEMPLATE
    )
    time_zone = models.CharField(max_length=64, blank=True, help_text="The zone the day was read in.")
    covers_until = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Data measured up to this instant is in the report (the end of the day once it is over).",
    )
    generated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-date"]
        constraints = [models.UniqueConstraint(fields=["user", "date"], name="report_one_per_day")]

    def __str__(self) -> str:
        return f"Report {self.date} for {self.user}"
