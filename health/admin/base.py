"""Building blocks shared by the domain admins."""

from __future__ import annotations

import datetime as dt

from auditlog.signals import accessed
from django.contrib import admin
from django.contrib.admin.utils import unquote
from django.db.models import Q, QuerySet
from django.http import HttpRequest
from django.utils import timezone


class AccessLoggedAdmin(admin.ModelAdmin):
    """Opening one of a patient's records in the admin is written to the audit log as an access
    by the operator (``health.audit``): the patient can be told who looked at their data."""

    def change_view(self, request: HttpRequest, object_id: str, form_url: str = "", extra_context=None):
        response = super().change_view(request, object_id, form_url, extra_context)
        if request.method == "GET" and response.status_code == 200:
            obj = self.get_object(request, unquote(object_id))
            if obj is not None:
                accessed.send(sender=obj.__class__, instance=obj)
        return response


class ViewOnlyAdmin(admin.ModelAdmin):
    """For rows only the system writes (device readings, agent trajectories,
    the outbox, generated reports): an operator reads them and may delete them
    (a patient's right to erasure), but never adds or edits them by hand."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


class ReadOnlyTabularInline(admin.TabularInline):
    """An inline that shows related system-written rows without editing them."""

    extra = 0
    max_num = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


class WhenFilter(admin.SimpleListFilter):
    """Today / upcoming / past on ``field_path`` (a datetime). Days are UTC days."""

    title = "when"
    parameter_name = "when"
    field_path = ""

    def lookups(self, request: HttpRequest, model_admin) -> list[tuple[str, str]]:
        return [("today", "Today (UTC)"), ("upcoming", "Upcoming"), ("past", "Past")]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        now = timezone.now()
        start_of_day = now.astimezone(dt.UTC).replace(hour=0, minute=0, second=0, microsecond=0)
        window = {
            "today": Q(**{f"{self.field_path}__gte": start_of_day})
            & Q(**{f"{self.field_path}__lt": start_of_day + dt.timedelta(days=1)}),
            "upcoming": Q(**{f"{self.field_path}__gte": now}),
            "past": Q(**{f"{self.field_path}__lt": now}),
        }.get(self.value())
        return queryset if window is None else queryset.filter(window)
