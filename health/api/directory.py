"""The specialists directory, read-only for every signed-in patient:
/api/specializations/, /api/specialists/ and /api/slots/."""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import serializers, viewsets

from health.api.base import IdFilterField, ListFilterMixin, StrictModelSerializer
from health.models import Slot, Specialist, Specialization
from health.models.appointments import patient_zone


class SpecializationSerializer(StrictModelSerializer):
    class Meta:
        model = Specialization
        fields = ["id", "name", "description", "synonyms"]


class SpecialistSerializer(StrictModelSerializer):
    specialization = serializers.SlugRelatedField(slug_field="name", read_only=True)

    class Meta:
        model = Specialist
        fields = ["id", "name", "specialization", "hospital", "address", "latitude", "longitude", "phone"]


class SlotSerializer(StrictModelSerializer):
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
    specialist = IdFilterField(help_text="Specialist id.")
    date_from = serializers.DateField(required=False, help_text="First day, in the patient's time zone.")
    date_to = serializers.DateField(required=False, help_text="Last day (inclusive), in the patient's time zone.")
    free = serializers.BooleanField(
        required=False, default=False, help_text="Only slots that can still be booked: free and in the future."
    )

    def validate(self, attrs: dict) -> dict:
        if attrs.get("date_from") and attrs.get("date_to") and attrs["date_to"] < attrs["date_from"]:
            raise serializers.ValidationError({"date_to": "Must not be before date_from."})
        return attrs


class SpecializationViewSet(viewsets.ReadOnlyModelViewSet):
    """Medical specializations of the directory's specialists."""

    queryset = Specialization.objects.all()
    serializer_class = SpecializationSerializer


@extend_schema_view(list=extend_schema(parameters=[SpecialistFilter]))
class SpecialistViewSet(ListFilterMixin, viewsets.ReadOnlyModelViewSet):
    """Active specialists, optionally of one specialization."""

    queryset = Specialist.objects.filter(active=True).select_related("specialization")
    serializer_class = SpecialistSerializer
    list_filter = SpecialistFilter

    def filter_list(self, queryset: QuerySet[Specialist], wanted: dict) -> QuerySet[Specialist]:
        if name := wanted.get("specialization"):
            queryset = queryset.filter(specialization__name=Specialization.normalise(name))
        return queryset


@extend_schema_view(list=extend_schema(parameters=[SlotFilter]))
class SlotViewSet(ListFilterMixin, viewsets.ReadOnlyModelViewSet):
    """Slots of active specialists, filtered by specialization, specialist,
    day range and availability."""

    queryset = Slot.objects.filter(specialist__active=True).select_related("specialist__specialization")
    serializer_class = SlotSerializer
    list_filter = SlotFilter

    def filter_list(self, queryset: QuerySet[Slot], wanted: dict) -> QuerySet[Slot]:
        if name := wanted.get("specialization"):
            queryset = queryset.of_specialization(name)
        if "specialist" in wanted:
            queryset = queryset.filter(specialist_id=wanted["specialist"])
        if "date_from" in wanted or "date_to" in wanted:
            zone = patient_zone(self.request.user)
            queryset = queryset.on_days(wanted.get("date_from"), wanted.get("date_to"), zone)
        if wanted["free"]:
            queryset = queryset.bookable()
        return queryset
