"""Simulated watch feeds (the browser's Watch panel): seen here, stopped here,
but never started or edited by hand."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from health.admin.base import ViewOnlyAdmin
from health.models import WatchFeed


@admin.register(WatchFeed)
class WatchFeedAdmin(ViewOnlyAdmin):
    list_display = ("user", "scenario", "running", "started_at", "readings_sent", "steps", "device", "updated_at")
    list_filter = ("running", "scenario")
    search_fields = ("user__username",)
    list_select_related = ("user", "device")
    actions = ["stop_feeds"]

    @admin.action(description="Stop the selected feeds")
    def stop_feeds(self, request: HttpRequest, queryset: QuerySet[WatchFeed]) -> None:
        stopped = queryset.filter(running=True).update(running=False, stopped_reason="Stopped by an operator.")
        self.message_user(request, f"{stopped} feed(s) stopped.", messages.SUCCESS)
