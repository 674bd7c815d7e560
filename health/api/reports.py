"""/api/daily-reports/: the evening reports, kept long-term; read-only.

``metrics`` holds the day's computed facts (``health.reports.facts``: a measure without readings is
null); ``covers_until`` says up to when the day's records are in; ``narrative_source`` says whether
the summary is the template's or the local model's (fact-checked)."""

from __future__ import annotations

from rest_framework import viewsets

from health.api.base import OwnedQuerysetMixin, StrictModelSerializer
from health.models import DailyReport


class DailyReportSerializer(StrictModelSerializer):
    class Meta:
        model = DailyReport
        fields = [
            "id",
            "date",
            "time_zone",
            "covers_until",
            "metrics",
            "anomalies",
            "narrative",
            "narrative_source",
            "generated_at",
        ]
        read_only_fields = fields


class DailyReportViewSet(OwnedQuerysetMixin, viewsets.ReadOnlyModelViewSet):
    """The patient's evening reports, newest first."""

    queryset = DailyReport.objects.all()
    serializer_class = DailyReportSerializer
