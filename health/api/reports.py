"""/api/daily-reports/: the evening reports, kept long-term; read-only."""

from __future__ import annotations

from rest_framework import serializers, viewsets

from health.api.base import OwnedQuerysetMixin
from health.models import DailyReport


class DailyReportSerializer(serializers.ModelSerializer):
    class Meta:
        model = DailyReport
        fields = ["id", "date", "metrics", "anomalies", "narrative", "generated_at"]
        read_only_fields = fields


class DailyReportViewSet(OwnedQuerysetMixin, viewsets.ReadOnlyModelViewSet):
    """The patient's evening reports, newest first."""

    queryset = DailyReport.objects.all()
    serializer_class = DailyReportSerializer
