"""/api/outbox/ (messages sent on the patient's behalf, read-only) and
/api/notifications/ (in-app notifications and their read state)."""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from health.api.base import ListFilterMixin, OwnedQuerysetMixin, StrictModelSerializer, StrictSerializer
from health.models import Notification, OutboundMessage


class OutboundMessageSerializer(StrictModelSerializer):
    class Meta:
        model = OutboundMessage
        # The idempotency key and provider id are plumbing, not the patient's business.
        fields = [
            "id",
            "channel",
            "recipient",
            "recipient_name",
            "recipient_kind",
            "body",
            "status",
            "status_detail",
            "attempts",
            "alert",
            "created_at",
            "sent_at",
        ]
        read_only_fields = fields


class OutboundMessageViewSet(OwnedQuerysetMixin, viewsets.ReadOnlyModelViewSet):
    """Messages sent (or queued) on the patient's behalf, with delivery status."""

    queryset = OutboundMessage.objects.all()
    serializer_class = OutboundMessageSerializer


class NotificationSerializer(StrictModelSerializer):
    class Meta:
        model = Notification
        fields = ["id", "kind", "level", "title", "body", "data", "created_at", "read_at"]
        read_only_fields = fields


class NotificationFilter(serializers.Serializer):
    unread = serializers.BooleanField(required=False, default=False, help_text="Only notifications not read yet.")


class UnreadCountSerializer(StrictSerializer):
    unread = serializers.IntegerField()


class MarkedReadSerializer(StrictSerializer):
    marked = serializers.IntegerField(help_text="Notifications that were unread and are read now.")


@extend_schema_view(list=extend_schema(parameters=[NotificationFilter]))
class NotificationViewSet(ListFilterMixin, OwnedQuerysetMixin, viewsets.ReadOnlyModelViewSet):
    """The patient's in-app notifications; ``?unread=true`` lists unread ones only."""

    queryset = Notification.objects.all()
    serializer_class = NotificationSerializer
    list_filter = NotificationFilter

    def filter_list(self, queryset: QuerySet[Notification], wanted: dict) -> QuerySet[Notification]:
        return queryset.filter(read_at__isnull=True) if wanted["unread"] else queryset

    @extend_schema(request=None, responses=NotificationSerializer)
    @action(detail=True, methods=["post"], url_path="mark-read", url_name="mark-read")
    def mark_read(self, request: Request, pk: str | None = None) -> Response:
        """Mark this notification as read (again is harmless)."""
        return Response(NotificationSerializer(self.get_object().mark_read()).data)

    @extend_schema(request=None, responses=MarkedReadSerializer)
    @action(detail=False, methods=["post"], url_path="mark-all-read", url_name="mark-all-read")
    def mark_all_read(self, request: Request) -> Response:
        """Mark every unread notification as read; answers how many were."""
        return Response({"marked": self.get_queryset().mark_read()})

    @extend_schema(responses=UnreadCountSerializer)
    @action(detail=False, methods=["get"], url_path="unread-count", url_name="unread-count")
    def unread_count(self, request: Request) -> Response:
        """How many notifications are unread (for the badge)."""
        return Response({"unread": self.get_queryset().filter(read_at__isnull=True).count()})
