"""/api/appointments/: proposing a slot and moving the appointment through its
state machine (proposed -> confirmed -> completed, or cancelled)."""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from health.api.base import OwnedQuerysetMixin, domain_errors
from health.models import Appointment, Slot

CONFLICT = OpenApiResponse(description="The slot is taken or past, or the state machine refuses the change.")


class AppointmentSerializer(serializers.ModelSerializer):
    specialist_name = serializers.CharField(source="specialist.name", read_only=True)
    specialization = serializers.CharField(source="specialist.specialization.name", read_only=True)
    hospital = serializers.CharField(source="specialist.hospital", read_only=True)
    starts_at = serializers.DateTimeField(source="slot.starts_at", read_only=True)
    ends_at = serializers.DateTimeField(source="slot.ends_at", read_only=True)

    class Meta:
        model = Appointment
        fields = [
            "id",
            "slot",
            "specialist",
            "specialist_name",
            "specialization",
            "hospital",
            "starts_at",
            "ends_at",
            "state",
            "symptoms",
            "reason",
            "conversation",
            "created_at",
            "confirmed_at",
            "completed_at",
            "cancelled_at",
        ]
        read_only_fields = fields


class AppointmentProposalSerializer(serializers.Serializer):
    slot = serializers.PrimaryKeyRelatedField(queryset=Slot.objects.filter(specialist__active=True))
    symptoms = serializers.CharField(required=False, allow_blank=True, max_length=2000)
    reason = serializers.CharField(required=False, allow_blank=True, max_length=2000)


class AppointmentFilter(serializers.Serializer):
    state = serializers.ChoiceField(choices=Appointment.State.choices, required=False)


@extend_schema_view(list=extend_schema(parameters=[AppointmentFilter]))
class AppointmentViewSet(
    OwnedQuerysetMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet,
):
    """The patient's appointments. A new one holds its slot at once
    (``proposed``); the database makes a second hold on a slot impossible."""

    queryset = Appointment.objects.select_related("slot", "specialist__specialization")
    serializer_class = AppointmentSerializer

    def get_queryset(self) -> QuerySet[Appointment]:
        queryset = super().get_queryset()
        if self.action == "list":
            params = AppointmentFilter(data=self.request.query_params)
            params.is_valid(raise_exception=True)
            if state := params.validated_data.get("state"):
                queryset = queryset.filter(state=state)
        return queryset

    @extend_schema(request=AppointmentProposalSerializer, responses={201: AppointmentSerializer, 409: CONFLICT})
    def create(self, request: Request) -> Response:
        proposal = AppointmentProposalSerializer(data=request.data)
        proposal.is_valid(raise_exception=True)
        with domain_errors():
            appointment = Appointment.propose(
                user=request.user,
                slot_id=proposal.validated_data["slot"].pk,
                symptoms=proposal.validated_data.get("symptoms", ""),
                reason=proposal.validated_data.get("reason", ""),
            )
        return Response(AppointmentSerializer(appointment).data, status=status.HTTP_201_CREATED)

    def _transition(self, change: str) -> Response:
        appointment = self.get_object()
        with domain_errors():
            getattr(appointment, change)()
        return Response(AppointmentSerializer(appointment).data)

    @extend_schema(request=None, responses={200: AppointmentSerializer, 409: CONFLICT})
    @action(detail=True, methods=["post"])
    def confirm(self, request: Request, pk: str | None = None) -> Response:
        """proposed -> confirmed."""
        return self._transition("confirm")

    @extend_schema(request=None, responses={200: AppointmentSerializer, 409: CONFLICT})
    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, pk: str | None = None) -> Response:
        """proposed or confirmed -> cancelled; the slot becomes free again."""
        return self._transition("cancel")

    @extend_schema(request=None, responses={200: AppointmentSerializer, 409: CONFLICT})
    @action(detail=True, methods=["post"])
    def complete(self, request: Request, pk: str | None = None) -> Response:
        """confirmed -> completed."""
        return self._transition("complete")
