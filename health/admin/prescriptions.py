"""Prescriptions, medications with their reminders, and dose events."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Q, QuerySet
from django.http import HttpRequest
from django.utils import timezone

from health.admin.base import AccessLoggedAdmin
from health.models import DoseEvent, Medication, Prescription, Reminder


class MedicationInline(admin.TabularInline):
    model = Medication
    extra = 0
    fields = ("name", "strength", "dose", "times_per_day", "food_timing", "start_date", "end_date", "active")
    show_change_link = True


@admin.register(Prescription)
class PrescriptionAdmin(AccessLoggedAdmin):
    list_display = ("uploaded_at", "user", "prescriber", "issued_on", "parse_status", "parsed_at")
    list_filter = ("parse_status",)
    search_fields = ("user__username", "prescriber", "ocr_text")
    list_select_related = ("user",)
    date_hierarchy = "uploaded_at"
    # OCR writes these; an operator corrects the medications below instead.
    readonly_fields = ("parse_status", "parse_error", "uploaded_at", "parsed_at")
    inlines = [MedicationInline]


class ReminderInline(admin.TabularInline):
    model = Reminder
    extra = 0
    fields = ("time_of_day", "enabled", "checked_until")
    readonly_fields = ("checked_until",)


@admin.register(Medication)
class MedicationAdmin(AccessLoggedAdmin):
    list_display = (
        "name",
        "strength",
        "dose",
        "user",
        "times_per_day",
        "food_timing",
        "start_date",
        "end_date",
        "active",
    )
    list_filter = ("active", "food_timing")
    search_fields = ("name", "instructions", "user__username")
    list_select_related = ("user",)
    date_hierarchy = "start_date"
    raw_id_fields = ("prescription",)
    readonly_fields = ("created_at",)
    inlines = [ReminderInline]


@admin.register(Reminder)
class ReminderAdmin(AccessLoggedAdmin):
    list_display = ("medication", "patient", "time_of_day", "enabled")
    list_filter = ("enabled",)
    search_fields = ("medication__name", "medication__user__username")
    list_select_related = ("medication__user",)
    raw_id_fields = ("medication",)
    # The dispatcher's mark: moving it by hand would owe (and send) doses or lose them.
    readonly_fields = ("checked_until",)

    @admin.display(description="patient", ordering="medication__user__username")
    def patient(self, reminder: Reminder) -> str:
        return reminder.medication.user.get_username()


class DoseAttentionFilter(admin.SimpleListFilter):
    """The quick views an operator checks adherence with."""

    title = "needs attention"
    parameter_name = "attention"

    def lookups(self, request: HttpRequest, model_admin) -> list[tuple[str, str]]:
        return [("missed", "Missed"), ("overdue", "Overdue (due, not yet taken or missed)")]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        now = timezone.now()
        if self.value() == "missed":
            return queryset.filter(state=DoseEvent.State.MISSED)
        if self.value() == "overdue":
            pending = Q(state__in=[DoseEvent.State.DUE, DoseEvent.State.SENT]) | Q(
                state=DoseEvent.State.SNOOZED, snoozed_until__lt=now
            )
            return queryset.filter(pending, due_at__lt=now)
        return queryset


@admin.register(DoseEvent)
class DoseEventAdmin(AccessLoggedAdmin):
    list_display = ("due_at", "user", "medication", "state", "sent_at", "late", "acted_at", "snoozed_until")
    list_filter = (DoseAttentionFilter, "state", "late")
    search_fields = ("user__username", "reminder__medication__name")
    list_select_related = ("user", "reminder__medication")
    date_hierarchy = "due_at"
    raw_id_fields = ("reminder",)
    # What the dispatcher and the patient recorded: the dose's history, not an operator's to edit.
    readonly_fields = ("due_on", "sent_at", "late", "acted_at", "realerted_at", "missed_at", "carer_notified_at")

    @admin.display(description="medication", ordering="reminder__medication__name")
    def medication(self, event: DoseEvent) -> str:
        return str(event.reminder.medication)
