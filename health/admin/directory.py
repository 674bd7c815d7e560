"""The specialists directory: specializations, specialists and their slots."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Count, Exists, OuterRef, QuerySet
from django.http import HttpRequest

from health.admin.base import WhenFilter
from health.models import Appointment, Slot, Specialist, Specialization


@admin.register(Specialization)
class SpecializationAdmin(admin.ModelAdmin):
    list_display = ("name", "synonym_list", "description", "specialist_count")
    # icontains on the JSON list finds "ENT" when an operator types "otolaryngologist".
    search_fields = ("name", "synonyms", "description")

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).annotate(specialist_total=Count("specialists"))

    @admin.display(description="synonyms")
    def synonym_list(self, specialization: Specialization) -> str:
        return ", ".join(specialization.synonyms)

    @admin.display(description="specialists", ordering="specialist_total")
    def specialist_count(self, specialization: Specialization) -> int:
        return specialization.specialist_total


@admin.register(Specialist)
class SpecialistAdmin(admin.ModelAdmin):
    list_display = ("name", "specialization", "hospital", "phone", "latitude", "longitude", "active")
    list_filter = ("active", "specialization", "hospital")
    search_fields = ("name", "hospital", "address", "specialization__name")
    list_select_related = ("specialization",)


class SlotWhenFilter(WhenFilter):
    field_path = "starts_at"


class SlotBookedFilter(admin.SimpleListFilter):
    title = "booking"
    parameter_name = "booked"

    def lookups(self, request: HttpRequest, model_admin) -> list[tuple[str, str]]:
        return [("yes", "Booked"), ("no", "Free")]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value() == "yes":
            return queryset.filter(is_booked=True)
        if self.value() == "no":
            return queryset.filter(is_booked=False)
        return queryset


@admin.register(Slot)
class SlotAdmin(admin.ModelAdmin):
    list_display = ("starts_at", "ends_at", "specialist", "specialization", "hospital", "booked")
    list_filter = (SlotWhenFilter, SlotBookedFilter, "specialist__specialization")
    search_fields = ("specialist__name", "specialist__hospital", "specialist__specialization__name")
    list_select_related = ("specialist__specialization",)
    date_hierarchy = "starts_at"

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        held = Appointment.objects.filter(slot=OuterRef("pk"), state__in=Appointment.HOLDING_STATES)
        return super().get_queryset(request).annotate(is_booked=Exists(held))

    def formfield_for_foreignkey(self, db_field, request: HttpRequest, **kwargs):
        # A specialist's label names its specialization: fetch both at once.
        if db_field.name == "specialist":
            kwargs["queryset"] = Specialist.objects.select_related("specialization")
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    @admin.display(description="specialization", ordering="specialist__specialization__name")
    def specialization(self, slot: Slot) -> str:
        return slot.specialist.specialization.name

    @admin.display(description="hospital", ordering="specialist__hospital")
    def hospital(self, slot: Slot) -> str:
        return slot.specialist.hospital

    @admin.display(boolean=True, description="booked", ordering="is_booked")
    def booked(self, slot: Slot) -> bool:
        return slot.is_booked
