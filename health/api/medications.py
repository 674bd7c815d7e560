"""/api/medications/, /api/reminders/ and /api/dose-events/: what the patient
takes, when they are reminded, and what they did about each dose."""

from __future__ import annotations

import re

from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import mixins, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from health.api.base import (
    OwnedPrimaryKeyRelatedField,
    OwnedQuerysetMixin,
    StrictModelSerializer,
    StrictSerializer,
    domain_errors,
)
from health.models import DoseEvent, Medication, Prescription, Reminder
from health.scheduler import ahead

CLOCK_TIME = re.compile(r"^([01]\d|2[0-3]):[0-5]\d$")
CONFLICT = OpenApiResponse(description="The dose's state does not allow this change.")


CLOCK_TIMES_HELP = 'Local times as "HH:MM", one per daily dose; empty until known.'


# The schema states the whole rule (the format, each time once) so that a client, or the fuzzer,
# can tell a valid list from the schema alone; ``validate_clock_times`` words the errors.
@extend_schema_field(
    {
        "type": "array",
        "items": {"type": "string", "pattern": CLOCK_TIME.pattern},
        "maxItems": 12,
        "uniqueItems": True,
        "description": CLOCK_TIMES_HELP,
    }
)
class ClockTimesField(serializers.ListField):
    pass


class MedicationSerializer(StrictModelSerializer):
    prescription = OwnedPrimaryKeyRelatedField(queryset=Prescription.objects.all(), required=False, allow_null=True)
    clock_times = ClockTimesField(
        child=serializers.CharField(), required=False, max_length=12, help_text=CLOCK_TIMES_HELP
    )
    # Flagged, not refused: a medicine the lexicon lacks is still the patient's to schedule.
    in_lexicon = serializers.BooleanField(
        read_only=True,
        help_text="False when the name is not a medicine the app's medicines lexicon knows: check the spelling.",
    )

    class Meta:
        model = Medication
        fields = [
            "id",
            "prescription",
            "name",
            "in_lexicon",
            "strength",
            "dose",
            "times_per_day",
            "clock_times",
            "default_times",
            "food_timing",
            "duration_days",
            "start_date",
            "end_date",
            "instructions",
            "active",
            "created_at",
        ]
        read_only_fields = ["created_at", "default_times"]

    def update(self, instance: Medication, validated_data: dict) -> Medication:
        if "clock_times" in validated_data:
            # The patient chose the times: they are no longer the app's defaults.
            validated_data["default_times"] = False
        medication = super().update(instance, validated_data)
        if "clock_times" in validated_data:
            medication.sync_reminders()
        return medication

    def validate_clock_times(self, times: list[str]) -> list[str]:
        bad = [time for time in times if not CLOCK_TIME.match(time)]
        if bad:
            raise serializers.ValidationError(f'Use 24-hour "HH:MM" times; not understood: {", ".join(bad)}.')
        if len(set(times)) != len(times):
            raise serializers.ValidationError("Each time may appear once.")
        return sorted(times)

    def validate(self, attrs: dict) -> dict:
        # Judge the combination the row will have, also on a partial update.
        def final(field: str):
            return attrs.get(field, getattr(self.instance, field, None))

        errors: dict[str, str] = {}
        clock_times, times_per_day = final("clock_times") or [], final("times_per_day") or 1
        if clock_times and len(clock_times) != times_per_day:
            errors["clock_times"] = f"Give {times_per_day} time(s), one per daily dose, or none."
        start, end = final("start_date"), final("end_date")
        if start and end and end < start:
            errors["end_date"] = "Must not be before start_date."
        if errors:
            raise serializers.ValidationError(errors)
        return attrs


class MedicationViewSet(OwnedQuerysetMixin, viewsets.ModelViewSet):
    """The patient's medications, with daily dose times."""

    queryset = Medication.objects.all()
    serializer_class = MedicationSerializer


class ReminderSerializer(StrictModelSerializer):
    medication = OwnedPrimaryKeyRelatedField(queryset=Medication.objects.all())
    medication_name = serializers.CharField(source="medication.name", read_only=True)

    class Meta:
        model = Reminder
        fields = ["id", "medication", "medication_name", "time_of_day", "enabled"]


class DoseEventSerializer(StrictModelSerializer):
    medication = serializers.IntegerField(source="reminder.medication_id", read_only=True)
    medication_name = serializers.CharField(source="reminder.medication.name", read_only=True)

    class Meta:
        model = DoseEvent
        fields = [
            "id",
            "reminder",
            "medication",
            "medication_name",
            "due_at",
            "due_on",
            "state",
            "sent_at",
            "late",
            "acted_at",
            "snoozed_until",
            "realerted_at",
            "missed_at",
            "carer_notified_at",
        ]
        read_only_fields = fields


class ReminderViewSet(OwnedQuerysetMixin, viewsets.ModelViewSet):
    """Reminder times for the patient's medications."""

    queryset = Reminder.objects.select_related("medication")
    serializer_class = ReminderSerializer
    owner_field = "medication__user"

    def perform_create(self, serializer: serializers.BaseSerializer) -> None:
        # The owner comes with the medication, which is already the user's own.
        serializer.save()

    @extend_schema(request=None, responses={200: DoseEventSerializer, 409: CONFLICT})
    @action(detail=True, methods=["post"], url_path="taken-early", url_name="taken-early")
    def taken_early(self, request: Request, pk: str | None = None) -> Response:
        """Today's dose of this reminder, taken before it went off (up to ``DOSE_EARLY_MINUTES``
        before its time): recorded taken, and its reminder stays quiet."""
        reminder = self.get_object()
        with domain_errors():
            dose = ahead.take_early(request.user, reminder.pk, timezone.now())
        return Response(DoseEventSerializer(dose).data)


class SnoozeSerializer(StrictSerializer):
    minutes = serializers.ChoiceField(choices=DoseEvent.SNOOZE_MINUTES, default=10)


class DoseEventViewSet(OwnedQuerysetMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Each due dose and what happened to it (reminded, taken, snoozed, skipped, missed)."""

    queryset = DoseEvent.objects.select_related("reminder__medication")
    serializer_class = DoseEventSerializer

    @extend_schema(request=None, responses={200: DoseEventSerializer, 409: CONFLICT})
    @action(detail=True, methods=["post"])
    def taken(self, request: Request, pk: str | None = None) -> Response:
        """The patient took this dose."""
        with domain_errors():
            dose = self.get_object().take()
        return Response(DoseEventSerializer(dose).data)

    @extend_schema(request=None, responses={200: DoseEventSerializer, 409: CONFLICT})
    @action(detail=True, methods=["post"])
    def skip(self, request: Request, pk: str | None = None) -> Response:
        """The patient chose not to take this dose."""
        with domain_errors():
            dose = self.get_object().skip()
        return Response(DoseEventSerializer(dose).data)

    @extend_schema(request=SnoozeSerializer, responses={200: DoseEventSerializer, 409: CONFLICT})
    @action(detail=True, methods=["post"])
    def snooze(self, request: Request, pk: str | None = None) -> Response:
        """Put this dose off for ``minutes`` (10, 30 or 60; default 10): the reminder goes out again then."""
        dose = self.get_object()
        params = SnoozeSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        with domain_errors():
            dose.snooze(params.validated_data["minutes"])
        return Response(DoseEventSerializer(dose).data)
