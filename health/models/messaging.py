"""The outbox of messages sent on the patient's behalf, and in-app notifications."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class OutboundMessage(models.Model):
    class Channel(models.TextChoices):
        SMS = "sms", "SMS"

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        SENT = "sent", "Sent"
        FAILED = "failed", "Failed"
        NOT_SENT = "not_sent", "Not sent"

    class RecipientKind(models.TextChoices):
        EMERGENCY_CONTACT = "emergency_contact", "Emergency contact"
        AMBULANCE = "ambulance", "Ambulance"
        PATIENT = "patient", "Patient"

    class Phase(models.TextChoices):
        """For an SOS message: does it raise the alarm or stand it down."""

        NONE = "", "-"
        START = "start", "SOS start"
        END = "end", "SOS end"

    FINAL_STATUSES = (Status.SENT, Status.FAILED, Status.NOT_SENT)
    # Outcomes that mean the recipient was not reached: a problem a person must see.
    UNDELIVERED_STATUSES = (Status.FAILED, Status.NOT_SENT)

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="outbound_messages")
    channel = models.CharField(max_length=8, choices=Channel.choices, default=Channel.SMS)
    recipient = models.CharField(max_length=20, help_text="E.164 number.")
    recipient_name = models.CharField(max_length=120, blank=True)
    recipient_kind = models.CharField(max_length=24, choices=RecipientKind.choices)
    body = models.TextField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    status_detail = models.CharField(max_length=255, blank=True)
    provider_message_id = models.CharField(max_length=64, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    idempotency_key = models.CharField(max_length=128, unique=True)
    alert = models.ForeignKey("health.Alert", null=True, blank=True, on_delete=models.SET_NULL, related_name="messages")
    phase = models.CharField(max_length=8, choices=Phase.choices, default=Phase.NONE, blank=True)
    attempt_owner = models.CharField(
        max_length=100,
        blank=True,
        help_text="host:pid of the process making the current attempt: a dead owner's lease is void at once.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    last_attempt_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status", "-created_at"])]

    def __str__(self) -> str:
        return f"{self.get_channel_display()} to {self.recipient_name or self.recipient} ({self.status})"

    @property
    def is_final(self) -> bool:
        return self.status in self.FINAL_STATUSES

    @property
    def is_emergency(self) -> bool:
        return self.alert_id is not None and self.recipient_kind != self.RecipientKind.PATIENT


class NotificationQuerySet(models.QuerySet):
    def mark_read(self) -> int:
        """Stamp the unread notifications among these as read; return how many were unread.
        A conditional update: two tabs marking the same one at once stamp it once."""
        return self.filter(read_at__isnull=True).update(read_at=timezone.now())


class Notification(models.Model):
    class Level(models.TextChoices):
        INFO = "info", "Info"
        SUCCESS = "success", "Success"
        WARNING = "warning", "Warning"
        DANGER = "danger", "Danger"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications")
    kind = models.CharField(max_length=40, help_text="e.g. alert, appointment, message_sent, reminder, report.")
    level = models.CharField(max_length=8, choices=Level.choices, default=Level.INFO)
    title = models.CharField(max_length=160)
    body = models.TextField(blank=True)
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    read_at = models.DateTimeField(null=True, blank=True)

    objects = NotificationQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["user", "read_at"])]

    def __str__(self) -> str:
        return self.title

    def mark_read(self) -> Notification:
        """Stamp the notification as read; reading it again keeps the first time."""
        if self.read_at is None:
            Notification.objects.filter(pk=self.pk).mark_read()
            self.refresh_from_db(fields=["read_at"])
        return self
