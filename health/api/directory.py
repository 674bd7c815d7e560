"""The specialists directory, read-only for every signed-in patient:
/api/specializations/, /api/specialists/ and /api/slots/."""

from __future__ import annotations

import datetime as dt
import zoneinfo

from django.db.models import QuerySet
from django.utils import timezone
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import serializers, viewsets

from health.models import PatientProfile, Slot, Specialist, Specialization


class SpecializationSerializer(serializers.ModelSerializer):
    class Meta:
        model = Specialization
        fields = ["id", "name", "description", "synonyms"]


class SpecialistSerializer(serializers.ModelSerializer):
    specialization = serializers.SlugRelatedField(slug_field="name", read_only=True)

    class Meta:
        model = Specialist
        fields = ["id", "name", "specialization", "hospital", "address", "latitude", "longitude", "phone"]


class SlotSerializer(serializers.ModelSerializer):
    specialist_name = serializers.CharField(source="specialist.name", read_only=True)
    specialization = serializers.CharField(source="specialist.specialization.name", read_only=True)
    hospital = serializers.CharField(source="specialist.hospital", read_only=True)

    class Meta:
        model = Slot
        fields = ["id", "specialist", "specialist_name", "specialization", "hospital", "starts_at", "ends_at"]


class SpecialistFilter(serializers.Serializer):
    specialization = serializers.CharField(required=False, help_text="Specialization name, e.g. 'cardiologist'.")


class SlotFilter(serializers.Serializer):
    specialization = serializers.CharField(required=False, help_text="Specialization name, e.g. 'cardiologist'.")
    specialist = serializers.IntegerField(required=False, help_text="Specialist id.")
    date_from = serializers.DateField(required=False, help_text="First day, in the patient's time zone.")
    date_to = serializers.DateField(required=False, help_text="Last day (inclusive), in the patient's time zone.")
    free = serializers.BooleanField(
        required=False, default=False, help_text="Only slots that can still be booked: free and in the future."
    )

    def validate(self, attrs: dict) -> dict:
        if attrs.get("date_from") and attrs.get("date_to") and attrs["date_to"] < attrs["date_from"]:
            raise serializers.ValidationError({"date_to": "Must not be before date_from."})
        return attrs


def _patient_zone(user) -> zoneinfo.ZoneInfo:
    """The patient's time zone: 'from Monday' means their Monday, not UTC's."""
    name = PatientProfile.objects.filter(user=user).values_list("timezone", flat=True).first()
    try:
        return zoneinfo.ZoneInfo(name or "UTC")
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


def _start_of_day(day: dt.date, zone: zoneinfo.ZoneInfo) -> dt.datetime:
    return dt.datetime.combine(day, dt.time.min, tzinfo=zone)


class SpecializationViewSet(viewsets.ReadOnlyModelViewSet):
    """Medical specializations of the directory's specialists."""

    queryset = Specialization.objects.all()
    serializer_class = SpecializationSerializer


@extend_schema_view(list=extend_schema(parameters=[SpecialistFilter]))
class SpecialistViewSet(viewsets.ReadOnlyModelViewSet):
    """Active specialists, optionally of one specialization."""

    queryset = Specialist.objects.filter(active=True).select_related("specialization")
    serializer_class = SpecialistSerializer

    def get_queryset(self) -> QuerySet[Specialist]:
        queryset = super().get_queryset()
        if self.action != "list":
            return queryset
        params = SpecialistFilter(data=self.request.query_params)
        params.is_valid(raise_exception=True)
        if name := params.validated_data.get("specialization"):
            queryset = queryset.filter(specialization__name=name.strip().lower())
        return queryset


@extend_schema_view(list=extend_schema(parameters=[SlotFilter]))
class SlotViewSet(viewsets.ReadOnlyModelViewSet):
    """Slots of active specialists, filtered by specialization, specialist,
    day range and availability."""

    queryset = Slot.objects.filter(specialist__active=True).select_related("specialist__specialization")
    serializer_class = SlotSerializer

    def get_queryset(self) -> QuerySet[Slot]:
        queryset = super().get_queryset()
        if self.action != "list":
            return queryset
        params = SlotFilter(data=self.request.query_params)
        params.is_valid(raise_exception=True)
        wanted = params.validated_data
        if name := wanted.get("specialization"):
            queryset = queryset.filter(specialist__specialization__name=name.strip().lower())
        if "specialist" in wanted:
            queryset = queryset.filter(specialist_id=wanted["specialist"])
        zone = _patient_zone(self.request.user)
        if "date_from" in wanted:
            queryset = queryset.filter(starts_at__gte=_start_of_day(wanted["date_from"], zone))
        if "date_to" in wanted:
            next_day = wanted["date_to"] + dt.timedelta(days=1)
            queryset = queryset.filter(starts_at__lt=_start_of_day(next_day, zone))
        if wanted["free"]:
            queryset = queryset.free().filter(starts_at__gt=timezone.now())
        return queryset
