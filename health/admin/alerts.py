"""Soft and hard SOS alerts with their timelines, ambulances and dispatches.

Alerts are raised by the monitor and the SOS flow, never by hand: an operator
follows them up by acknowledging or resolving, and each such step is written
to the alert's timeline like any other.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from health.admin.base import AccessLoggedAdmin, ReadOnlyTabularInline, ViewOnlyAdmin
from health.models import Alert, AlertEvent, Ambulance, Dispatch


def _report(modeladmin: AlertAdmin, request: HttpRequest, selected: list, done: int, verb: str, left: str) -> None:
    modeladmin.message_user(request, f"{verb} {done} alert(s).", messages.SUCCESS)
    if done < len(selected):
        modeladmin.message_user(request, f"{len(selected) - done} alert(s) {left}; left unchanged.")


# Each action works on a fresh queryset of the selected ids: the changelist's joins
# the patient, and select_for_update would lock the patients' rows as well.


@admin.action(description="Acknowledge the selected open alerts", permissions=["change"])
def acknowledge(modeladmin: AlertAdmin, request: HttpRequest, queryset: QuerySet) -> None:
    selected = list(queryset.values_list("pk", flat=True))
    done = Alert.objects.filter(pk__in=selected).acknowledge(operator=request.user.get_username())
    _report(modeladmin, request, selected, done, "Acknowledged", "were not open")


@admin.action(description="Resolve the selected alerts (releases their ambulances)", permissions=["change"])
def resolve(modeladmin: AlertAdmin, request: HttpRequest, queryset: QuerySet) -> None:
    selected = list(queryset.values_list("pk", flat=True))
    done = Alert.objects.filter(pk__in=selected).resolve(operator=request.user.get_username())
    _report(modeladmin, request, selected, done, "Resolved", "were counting down or already closed")


class ActiveAlertFilter(admin.SimpleListFilter):
    title = "status"
    parameter_name = "active"

    def lookups(self, request: HttpRequest, model_admin) -> list[tuple[str, str]]:
        return [("yes", "Active (counting down, open, acknowledged)"), ("no", "Closed")]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value() == "yes":
            return queryset.filter(state__in=Alert.ACTIVE_STATES)
        if self.value() == "no":
            return queryset.exclude(state__in=Alert.ACTIVE_STATES)
        return queryset


class AlertEventInline(ReadOnlyTabularInline):
    model = AlertEvent
    fields = ("created_at", "kind", "message", "data")
    readonly_fields = fields
    ordering = ("created_at", "id")
    show_change_link = False


class DispatchInline(ReadOnlyTabularInline):
    model = Dispatch
    fields = ("ambulance", "distance_km", "dispatched_at", "released_at")
    readonly_fields = fields


@admin.register(Alert)
class AlertAdmin(AccessLoggedAdmin):
    list_display = (
        "created_at",
        "user",
        "kind",
        "state",
        "condition",
        "guard_acted",
        "acknowledged_at",
        "resolved_at",
    )
    list_filter = (ActiveAlertFilter, "kind", "state", "guard_acted")
    search_fields = ("user__username", "user__first_name", "user__last_name", "condition", "summary")
    list_select_related = ("user",)
    date_hierarchy = "created_at"
    ordering = ("-created_at",)
    inlines = [AlertEventInline, DispatchInline]
    actions = [acknowledge, resolve]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def get_readonly_fields(self, request: HttpRequest, obj=None) -> list[str]:
        # Every field is the SOS flow's record; operators act through the actions.
        return [field.name for field in Alert._meta.fields]


@admin.register(AlertEvent)
class AlertEventAdmin(ViewOnlyAdmin):
    list_display = ("created_at", "alert", "alert_user", "kind", "message")
    list_filter = ("kind", "alert__kind")
    search_fields = ("message", "kind", "alert__user__username")
    list_select_related = ("alert__user",)
    date_hierarchy = "created_at"

    @admin.display(description="patient", ordering="alert__user__username")
    def alert_user(self, event: AlertEvent) -> str:
        return event.alert.user.get_username()


@admin.action(description="Mark the selected ambulances available", permissions=["change"])
def mark_available(modeladmin: AmbulanceAdmin, request: HttpRequest, queryset: QuerySet) -> None:
    modeladmin.message_user(request, f"{queryset.update(available=True)} ambulance(s) available.", messages.SUCCESS)


@admin.action(description="Mark the selected ambulances unavailable", permissions=["change"])
def mark_unavailable(modeladmin: AmbulanceAdmin, request: HttpRequest, queryset: QuerySet) -> None:
    modeladmin.message_user(request, f"{queryset.update(available=False)} ambulance(s) unavailable.", messages.SUCCESS)


@admin.register(Ambulance)
class AmbulanceAdmin(admin.ModelAdmin):
    list_display = ("code", "operator", "phone", "latitude", "longitude", "available")
    list_filter = ("available", "operator")
    search_fields = ("code", "operator", "phone")
    actions = [mark_available, mark_unavailable]


class DispatchActiveFilter(admin.SimpleListFilter):
    title = "dispatch"
    parameter_name = "active"

    def lookups(self, request: HttpRequest, model_admin) -> list[tuple[str, str]]:
        return [("yes", "Active (not released)"), ("no", "Released")]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value() in ("yes", "no"):
            return queryset.filter(released_at__isnull=self.value() == "yes")
        return queryset


@admin.register(Dispatch)
class DispatchAdmin(admin.ModelAdmin):
    list_display = ("dispatched_at", "ambulance", "alert", "alert_user", "distance_km", "released_at")
    list_filter = (DispatchActiveFilter, "ambulance")
    search_fields = ("ambulance__code", "alert__user__username")
    list_select_related = ("ambulance", "alert__user")
    date_hierarchy = "dispatched_at"
    # Only the release time is an operator's to set (an ambulance back at base).
    readonly_fields = ("alert", "ambulance", "distance_km", "dispatched_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        # Dispatching is the SOS flow's job: it picks the nearest free ambulance
        # and messages it; a row added here would do neither.
        return False

    @admin.display(description="patient", ordering="alert__user__username")
    def alert_user(self, dispatch: Dispatch) -> str:
        return dispatch.alert.user.get_username()
