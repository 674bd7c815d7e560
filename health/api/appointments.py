"""/api/appointments/: holding a slot and moving the appointment through its
state machine (held -> confirmed -> completed, or cancelled), and rescheduling it
to another free slot of the same specialist.

Times are ISO-8601 with the patient's own UTC offset; ``when`` is the same time
as the patient reads it, with their zone named."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from health.api.base import (
    ListFilterMixin,
    OwnedQuerysetMixin,
    StrictModelSerializer,
    StrictSerializer,
    domain_errors,
)
from health.models import Appointment, Slot
from health.models.appointments import format_when, patient_zone

CONFLICT = OpenApiResponse(
    description="The slot is taken, past or overlaps another of your appointments, "
    "or the state machine refuses the change."
)


class PatientDateTimeField(serializers.DateTimeField):
    """ISO-8601 with the offset of the patient's own time zone (not the server's UTC)."""

    def to_representation(self, value):
        user = self.context.get("patient")
        if user is not None and value is not None:
            value = value.astimezone(patient_zone(user))
        return super().to_representation(value)

    def enforce_timezone(self, value):
        return value


class AppointmentSerializer(StrictModelSerializer):
    specialist_name = serializers.CharField(source="specialist.name", read_only=True)
    specialization = serializers.CharField(source="specialist.specialization.name", read_only=True)
    hospital = serializers.CharField(source="specialist.hospital", read_only=True)
    starts_at = PatientDateTimeField(source="slot.starts_at", read_only=True)
    ends_at = PatientDateTimeField(source="slot.ends_at", read_only=True)
    state_label = serializers.CharField(source="get_state_display", read_only=True)
    when = serializers.CharField(source="when_text", read_only=True, help_text="In the patient's time zone.")
    time_zone = serializers.CharField(source="time_zone.key", read_only=True)

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
            "when",
            "time_zone",
            "state",
            "state_label",
            "symptoms",
            "reason",
            "conversation",
            "created_at",
            "confirmed_at",
            "completed_at",
            "cancelled_at",
        ]
        read_only_fields = fields


class AppointmentProposalSerializer(StrictSerializer):
    slot = serializers.PrimaryKeyRelatedField(queryset=Slot.objects.filter(specialist__active=True))
    symptoms = serializers.CharField(required=False, allow_blank=True, max_length=2000)
    reason = serializers.CharField(required=False, allow_blank=True, max_length=2000)


class RescheduleSerializer(StrictSerializer):
    slot = serializers.PrimaryKeyRelatedField(queryset=Slot.objects.filter(specialist__active=True))


class FreeSlotSerializer(StrictModelSerializer):
    starts_at = PatientDateTimeField(read_only=True)
    ends_at = PatientDateTimeField(read_only=True)
    when = serializers.SerializerMethodField()

    class Meta:
        model = Slot
        fields = ["id", "starts_at", "ends_at", "when"]

    def get_when(self, slot: Slot) -> str:
        return format_when(slot.starts_at, slot.ends_at, patient_zone(self.context["patient"]))


class AppointmentFilter(serializers.Serializer):
    state = serializers.ChoiceField(choices=Appointment.State.choices, required=False)


@extend_schema_view(list=extend_schema(parameters=[AppointmentFilter]))
class AppointmentViewSet(
    ListFilterMixin,
    OwnedQuerysetMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet,
):
    """The patient's appointments. A new one holds its slot at once (``held``,
    not booked until confirmed); the database makes a second hold on a slot
    impossible, and a time overlapping another of the patient's appointments is refused."""

    queryset = Appointment.objects.select_related("slot", "specialist__specialization", "user__profile")
    serializer_class = AppointmentSerializer

    def get_serializer_context(self) -> dict:
        return {**super().get_serializer_context(), "patient": self.request.user}

    list_filter = AppointmentFilter

    @extend_schema(request=AppointmentProposalSerializer, responses={201: AppointmentSerializer, 409: CONFLICT})
    def create(self, request: Request) -> Response:
        proposal = AppointmentProposalSerializer(data=request.data)
        proposal.is_valid(raise_exception=True)
        with domain_errors():
            appointment = Appointment.hold(
                user=request.user,
                slot_id=proposal.validated_data["slot"].pk,
                symptoms=proposal.validated_data.get("symptoms", ""),
                reason=proposal.validated_data.get("reason", ""),
            )
        return Response(self.get_serializer(appointment).data, status=status.HTTP_201_CREATED)

    def _transition(self, change: str) -> Response:
        appointment = self.get_object()
        with domain_errors():
            getattr(appointment, change)()
        return Response(self.get_serializer(appointment).data)

    @extend_schema(request=None, responses={200: AppointmentSerializer, 409: CONFLICT})
    @action(detail=True, methods=["post"])
    def confirm(self, request: Request, pk: str | None = None) -> Response:
        """held -> confirmed."""
        return self._transition("confirm")

    @extend_schema(request=None, responses={200: AppointmentSerializer, 409: CONFLICT})
    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, pk: str | None = None) -> Response:
        """held or confirmed -> cancelled; the slot becomes free again."""
        return self._transition("cancel")

    @extend_schema(request=None, responses={200: AppointmentSerializer, 409: CONFLICT})
    @action(detail=True, methods=["post"])
    def complete(self, request: Request, pk: str | None = None) -> Response:
        """confirmed -> completed."""
        return self._transition("complete")

    @extend_schema(request=RescheduleSerializer, responses={200: AppointmentSerializer, 409: CONFLICT})
    @action(detail=True, methods=["post"])
    def reschedule(self, request: Request, pk: str | None = None) -> Response:
        """Move a held or confirmed appointment to another free slot of the same specialist."""
        appointment = self.get_object()
        choice = RescheduleSerializer(data=request.data)
        choice.is_valid(raise_exception=True)
        with domain_errors():
            appointment.reschedule(choice.validated_data["slot"].pk)
        return Response(self.get_serializer(appointment).data)

    @extend_schema(request=None, responses={200: FreeSlotSerializer(many=True)})
    # Not paginated (a specialist's free slots): without this the schema promised a page object.
    @action(detail=True, methods=["get"], url_path="free-slots", pagination_class=None)
    def free_slots(self, request: Request, pk: str | None = None) -> Response:
        """Free slots of the same specialist this appointment can be moved to."""
        appointment = self.get_object()
        slots = appointment.free_slots() if appointment.is_active else Slot.objects.none()
        return Response(FreeSlotSerializer(slots, many=True, context=self.get_serializer_context()).data)
