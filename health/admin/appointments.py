"""Appointments (state changes only through the model's state machine),
appointment history and symptom records."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone

from health.admin.base import AccessLoggedAdmin, WhenFilter
from health.models import Appointment, AppointmentHistory, InvalidTransition, Slot, SymptomRecord


class AppointmentWhenFilter(WhenFilter):
    field_path = "slot__starts_at"


class AppointmentForm(forms.ModelForm):
    class Meta:
        model = Appointment
        fields = ("user", "slot", "symptoms", "reason", "conversation")

    def clean_slot(self) -> Slot:
        """Refuse what Appointment.hold refuses: a past or already held slot
        (the database constraint would otherwise surface as a server error)."""
        slot = self.cleaned_data["slot"]
        if self.instance.pk is None:
            if slot.starts_at <= timezone.now():
                raise forms.ValidationError("This slot is in the past.")
            if not Slot.objects.free().filter(pk=slot.pk).exists():
                raise forms.ValidationError("This slot is already booked.")
        return slot


def _transition(modeladmin: AppointmentAdmin, request: HttpRequest, queryset: QuerySet, target: str) -> None:
    """Move each selected appointment to ``target`` through Appointment.transition,
    so the same rules apply as for the patient and the agent."""
    moved, refused = 0, 0
    for appointment in queryset:
        try:
            appointment.transition(target)
        except InvalidTransition:
            refused += 1
        else:
            moved += 1
    label = Appointment.State(target).label.lower()
    modeladmin.message_user(request, f"{moved} appointment(s) {label}.", messages.SUCCESS)
    if refused:
        modeladmin.message_user(
            request, f"{refused} appointment(s) could not become {label} from their current state.", messages.WARNING
        )


@admin.action(description="Confirm the selected appointments", permissions=["change"])
def confirm_appointments(modeladmin: AppointmentAdmin, request: HttpRequest, queryset: QuerySet) -> None:
    _transition(modeladmin, request, queryset, Appointment.State.CONFIRMED)


@admin.action(description="Mark the selected appointments completed", permissions=["change"])
def complete_appointments(modeladmin: AppointmentAdmin, request: HttpRequest, queryset: QuerySet) -> None:
    _transition(modeladmin, request, queryset, Appointment.State.COMPLETED)


@admin.action(description="Cancel the selected appointments (frees their slots)", permissions=["change"])
def cancel_appointments(modeladmin: AppointmentAdmin, request: HttpRequest, queryset: QuerySet) -> None:
    _transition(modeladmin, request, queryset, Appointment.State.CANCELLED)


@admin.register(Appointment)
class AppointmentAdmin(AccessLoggedAdmin):
    form = AppointmentForm
    list_display = (
        "starts_at",
        "patient_time",
        "user",
        "specialist",
        "specialization",
        "hospital",
        "state",
        "created_at",
    )
    list_filter = (AppointmentWhenFilter, "state", "specialist__specialization")
    search_fields = ("user__username", "user__first_name", "specialist__name", "specialist__hospital", "symptoms")
    list_select_related = ("user__profile", "slot", "specialist__specialization")
    date_hierarchy = "slot__starts_at"
    ordering = ("slot__starts_at",)
    raw_id_fields = ("slot", "conversation")
    actions = [confirm_appointments, complete_appointments, cancel_appointments]
    system_fields = ("specialist", "state", "created_at", "confirmed_at", "completed_at", "cancelled_at")

    def get_fields(self, request: HttpRequest, obj=None) -> tuple[str, ...]:
        editable = ("user", "slot", "symptoms", "reason", "conversation")
        # The specialist always follows the slot; on the add page it is set on save.
        return editable if obj is None else (*editable, *self.system_fields)

    def get_readonly_fields(self, request: HttpRequest, obj=None) -> tuple[str, ...]:
        # State moves only through the actions (the state machine); the slot and
        # patient of a booked appointment are fixed.
        return () if obj is None else ("user", "slot", *self.system_fields)

    def save_model(self, request: HttpRequest, obj: Appointment, form, change: bool) -> None:
        if not change:
            obj.specialist = obj.slot.specialist
        super().save_model(request, obj, form, change)

    @admin.display(description="starts at (UTC)", ordering="slot__starts_at")
    def starts_at(self, appointment: Appointment):
        return appointment.slot.starts_at

    @admin.display(description="patient's time", ordering="slot__starts_at")
    def patient_time(self, appointment: Appointment) -> str:
        return appointment.when_text()

    @admin.display(description="specialization", ordering="specialist__specialization__name")
    def specialization(self, appointment: Appointment) -> str:
        return appointment.specialist.specialization.name

    @admin.display(description="hospital", ordering="specialist__hospital")
    def hospital(self, appointment: Appointment) -> str:
        return appointment.specialist.hospital


@admin.register(AppointmentHistory)
class AppointmentHistoryAdmin(AccessLoggedAdmin):
    list_display = ("scheduled_for", "user", "specialist_name", "specialization", "created_at")
    list_filter = ("specialization",)
    search_fields = ("user__username", "specialist_name", "specialization", "summary")
    list_select_related = ("user",)
    date_hierarchy = "scheduled_for"
    raw_id_fields = ("appointment",)
    readonly_fields = ("created_at",)


@admin.register(SymptomRecord)
class SymptomRecordAdmin(AccessLoggedAdmin):
    list_display = ("recorded_at", "user", "symptom_list", "excerpt")
    search_fields = ("user__username", "text", "symptoms")
    list_select_related = ("user",)
    date_hierarchy = "recorded_at"
    raw_id_fields = ("conversation",)

    @admin.display(description="symptoms")
    def symptom_list(self, record: SymptomRecord) -> str:
        return ", ".join(record.symptoms)

    @admin.display(description="in their words")
    def excerpt(self, record: SymptomRecord) -> str:
        return record.text if len(record.text) <= 80 else record.text[:79] + "\u2026"
