"""/api/alerts/: the patient's soft and hard SOS alerts with their timelines.

Raising and ending an SOS are the SOS flows' job; here the patient can read
alerts, acknowledge a soft SOS and cancel one that has sent nothing out.
"""

from __future__ import annotations

from dataclasses import asdict

from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from health import sos
from health.api.base import ListFilterMixin, OwnedQuerysetMixin, StrictModelSerializer, domain_errors, sos_errors
from health.models import Alert, AlertEvent
from health.sos.delivery import delivery_report
from health.sos.soft import soft_sos_notice

CONFLICT = OpenApiResponse(description="The alert's kind or state does not allow this change.")


class AlertEventSerializer(StrictModelSerializer):
    class Meta:
        model = AlertEvent
        fields = ["id", "kind", "message", "data", "created_at"]


class AlertSerializer(StrictModelSerializer):
    events = AlertEventSerializer(many=True, read_only=True)
    is_active = serializers.BooleanField(read_only=True)
    notice = serializers.SerializerMethodField(
        help_text="Soft SOS: what the patient is told (title, report, vitals lines, first advice), as notified."
    )

    def get_notice(self, alert: Alert) -> dict | None:
        return asdict(soft_sos_notice(alert)) if alert.kind == Alert.Kind.SOFT else None

    delivery = serializers.SerializerMethodField(
        help_text="Hard SOS: what each message to the ambulance and the emergency contacts did (from the outbox), "
        "and whether the patient must call the emergency number now."
    )

    def get_delivery(self, alert: Alert) -> dict | None:
        return delivery_report(alert) if alert.kind == Alert.Kind.HARD else None

    # Declared: a read-only model field loses allow_blank, and the schema then said an alert
    # not ended by the patient (end_reason "") was impossible (found by tests/api/test_schema_fuzz.py).
    end_reason = serializers.ChoiceField(
        choices=Alert.EndReason.choices,
        allow_blank=True,
        read_only=True,
        help_text="What the patient said when ending a hard SOS; empty until then.",
    )

    class Meta:
        model = Alert
        fields = [
            "id",
            "kind",
            "state",
            "is_active",
            "condition",
            "summary",
            "notice",
            "vitals_snapshot",
            "latitude",
            "longitude",
            "countdown_ends_at",
            "escalated_from",
            "conversation",
            "created_at",
            "acknowledged_at",
            "resolved_at",
            "end_reason",
            "delivery",
            "events",
        ]
        read_only_fields = fields


class AlertFilter(serializers.Serializer):
    state = serializers.ChoiceField(choices=Alert.State.choices, required=False)
    kind = serializers.ChoiceField(choices=Alert.Kind.choices, required=False)


@extend_schema_view(list=extend_schema(parameters=[AlertFilter]))
class AlertViewSet(ListFilterMixin, OwnedQuerysetMixin, viewsets.ReadOnlyModelViewSet):
    """The patient's soft and hard SOS alerts, each with its timeline of events."""

    queryset = Alert.objects.prefetch_related("events")
    serializer_class = AlertSerializer
    list_filter = AlertFilter

    def _respond(self, alert: Alert) -> Response:
        return Response(AlertSerializer(self.get_queryset().get(pk=alert.pk)).data)

    @extend_schema(request=None, responses={200: AlertSerializer, 409: CONFLICT})
    @action(detail=True, methods=["post"])
    def acknowledge(self, request: Request, pk: str | None = None) -> Response:
        """Open soft SOS -> acknowledged (the patient has seen it)."""
        with domain_errors():
            alert = self.get_object().acknowledge()
        return self._respond(alert)

    @extend_schema(request=None, responses={200: AlertSerializer, 409: CONFLICT})
    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, pk: str | None = None) -> Response:
        """Active soft SOS, or hard SOS still counting down -> cancelled (nothing was sent)."""
        with sos_errors():
            alert = sos.cancel(self.get_object())
        return self._respond(alert)
