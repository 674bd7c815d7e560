"""The outbox (read-only: only the messaging layer writes it) and in-app notifications."""

from __future__ import annotations

from django.contrib import admin
from django.utils.html import format_html

from health.admin.base import ViewOnlyAdmin
from health.models import Notification, OutboundMessage


@admin.register(OutboundMessage)
class OutboundMessageAdmin(ViewOnlyAdmin):
    list_display = (
        "created_at",
        "user",
        "recipient_kind",
        "recipient_name",
        "recipient",
        "delivery",
        "phase",
        "attempts",
        "status_detail",
        "sent_at",
    )
    list_filter = ("status", "recipient_kind", "phase", "channel")
    search_fields = ("recipient", "recipient_name", "body", "idempotency_key", "provider_message_id", "user__username")
    list_select_related = ("user", "alert")
    date_hierarchy = "created_at"

    @admin.display(description="status", ordering="status")
    def delivery(self, message: OutboundMessage) -> str:
        # Not sent (no provider) and failed are the same problem to an operator: nobody got the text.
        if message.status in OutboundMessage.UNDELIVERED_STATUSES:
            return format_html('<strong style="color:#b03a2e">{}</strong>', message.get_status_display().upper())
        return message.get_status_display()


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin):
    list_display = ("created_at", "user", "kind", "level", "title", "is_read")
    list_filter = ("level", "kind", ("read_at", admin.EmptyFieldListFilter))
    search_fields = ("title", "body", "user__username")
    list_select_related = ("user",)
    date_hierarchy = "created_at"
    readonly_fields = ("created_at", "read_at")

    @admin.display(boolean=True, description="read", ordering="read_at")
    def is_read(self, notification: Notification) -> bool:
        return notification.read_at is not None
