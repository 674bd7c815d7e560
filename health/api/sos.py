"""/api/sos/: the SOS button, ending a hard SOS, and escalating a soft SOS.

- ``POST /api/sos/`` presses the button: a hard SOS starts its countdown
  (201). While one is already active the press answers that alert (200) and
  sends nothing new; past the hourly limit it answers 429.
- ``POST /api/sos/{id}/end/`` ends a hard SOS (a cancel during its countdown).
- ``POST /api/sos/{id}/escalate/`` turns a soft SOS into a hard SOS.

Cancelling and acknowledging stay on /api/alerts/. The rules are in ``health.sos``.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from health import sos
from health.api.alerts import CONFLICT, AlertSerializer
from health.api.base import OwnedQuerysetMixin, StrictSerializer, sos_errors
from health.models import Alert


class SosPressSerializer(StrictSerializer):
    latitude = serializers.FloatField(
        required=False, min_value=-90, max_value=90, help_text="Where the user is, if the browser knows."
    )
    longitude = serializers.FloatField(required=False, min_value=-180, max_value=180)

    def validate(self, attrs: dict) -> dict:
        if ("latitude" in attrs) != ("longitude" in attrs):
            raise serializers.ValidationError("Give both latitude and longitude, or neither.")
        return attrs


class SosEndSerializer(StrictSerializer):
    reason = serializers.ChoiceField(
        choices=Alert.EndReason.choices,
        required=False,
        help_text="Why the SOS ends; the end messages to the ambulance and contacts say it. "
        "Required once the SOS has gone out (not during its countdown).",
    )


RATE_LIMITED = OpenApiResponse(description="Too many SOS alerts went out in the last hour.")


class SosViewSet(OwnedQuerysetMixin, viewsets.GenericViewSet):
    """The SOS button and the hard SOS's end; soft SOS escalation."""

    queryset = Alert.objects.prefetch_related("events")
    serializer_class = AlertSerializer

    def _respond(self, alert: Alert, code: int = status.HTTP_200_OK) -> Response:
        return Response(AlertSerializer(self.get_queryset().get(pk=alert.pk)).data, status=code)

    @extend_schema(
        request=SosPressSerializer,
        responses={
            201: AlertSerializer,
            200: OpenApiResponse(AlertSerializer, description="An SOS is already under way: that alert."),
            429: RATE_LIMITED,
        },
    )
    def create(self, request: Request) -> Response:
        """Press the SOS button: a hard SOS that goes out when its countdown ends unless cancelled."""
        where = SosPressSerializer(data=request.data)
        where.is_valid(raise_exception=True)
        with sos_errors():
            alert, created = sos.press(request.user, **where.validated_data)
        return self._respond(alert, status.HTTP_201_CREATED if created else status.HTTP_200_OK)

    @extend_schema(request=SosEndSerializer, responses={200: AlertSerializer, 400: None, 409: CONFLICT})
    @action(detail=True, methods=["post"])
    def end(self, request: Request, pk: str | None = None) -> Response:
        """End a hard SOS saying why: the ambulance and contacts are told that, the ambulance released."""
        why = SosEndSerializer(data=request.data)
        why.is_valid(raise_exception=True)
        with sos_errors():
            alert = sos.request_end(self.get_object(), why.validated_data.get("reason", ""))
        return self._respond(alert)

    @extend_schema(
        request=None,
        responses={
            201: AlertSerializer,
            200: OpenApiResponse(AlertSerializer, description="Already escalated: that hard SOS."),
            409: CONFLICT,
            429: RATE_LIMITED,
        },
    )
    @action(detail=True, methods=["post"])
    def escalate(self, request: Request, pk: str | None = None) -> Response:
        """Turn a soft SOS into a hard SOS (with the usual countdown); answers the hard SOS."""
        with sos_errors():
            alert, created = sos.escalate(self.get_object())
        return self._respond(alert, status.HTTP_201_CREATED if created else status.HTTP_200_OK)
