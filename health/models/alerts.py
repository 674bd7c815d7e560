"""Soft and hard SOS alerts, their timelines, ambulances and dispatches."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db import models, transaction
from django.db.models import Q
from django.utils import timezone

from health.models.appointments import InvalidTransition
from health.validators import validate_e164, validate_latitude, validate_longitude


class Ambulance(models.Model):
    code = models.CharField("ambulance id", max_length=32, unique=True)
    operator = models.CharField(max_length=120, blank=True)
    phone = models.CharField(max_length=20, validators=[validate_e164])
    latitude = models.FloatField(validators=[validate_latitude])
    longitude = models.FloatField(validators=[validate_longitude])
    available = models.BooleanField(default=True)

    class Meta:
        ordering = ["code"]

    def __str__(self) -> str:
        return self.code


class AlertQuerySet(models.QuerySet):
    """An operator's follow-up of many alerts at once (the admin's actions). The
    SOS flow's own steps (cancel, end, escalate) are ``health.sos``'s."""

    def acknowledge(self, *, operator: str, via: str = "admin") -> int:
        """Move the open alerts among these to acknowledged, with a timeline event
        each; return how many moved. Alerts still counting down are left to the
        SOS flow (the patient may yet cancel them)."""
        with transaction.atomic():
            return len(self._advance(Alert.State.ACKNOWLEDGED, "acknowledged_at", operator, via, timezone.now()))

    def resolve(self, *, operator: str, via: str = "admin") -> int:
        """Resolve the open or acknowledged alerts among these, release their
        ambulances' active dispatches and record it on each timeline; return how
        many were resolved."""
        with transaction.atomic():
            now = timezone.now()
            alerts = self._advance(Alert.State.RESOLVED, "resolved_at", operator, via, now)
            Dispatch.objects.filter(alert__in=alerts, released_at__isnull=True).update(released_at=now)
        return len(alerts)

    def _advance(self, target: str, stamp: str, operator: str, via: str, now: dt.datetime) -> list[Alert]:
        """Lock the alerts among these that may move to ``target`` (from an earlier
        active state, never from the countdown), move them, stamp ``stamp`` and
        write "<target> by operator ..." on each timeline. Inside a transaction."""
        sources = {
            Alert.State.ACKNOWLEDGED: [Alert.State.OPEN],
            Alert.State.RESOLVED: [Alert.State.OPEN, Alert.State.ACKNOWLEDGED],
        }[target]
        alerts = list(self.select_for_update().filter(state__in=sources))
        for alert in alerts:
            alert.state = target
            setattr(alert, stamp, now)
            alert.save(update_fields=["state", stamp])
        label = Alert.State(target).label
        AlertEvent.objects.bulk_create(
            AlertEvent(
                alert=alert,
                kind=target,
                message=f"{label} by operator {operator}.",
                data={"operator": operator, "via": via},
            )
            for alert in alerts
        )
        return alerts


class Alert(models.Model):
    class Kind(models.TextChoices):
        SOFT = "soft", "Soft SOS"
        HARD = "hard", "Hard SOS"

    class State(models.TextChoices):
        COUNTDOWN = "countdown", "Counting down"
        OPEN = "open", "Open"
        ACKNOWLEDGED = "acknowledged", "Acknowledged"
        RESOLVED = "resolved", "Resolved"
        CANCELLED = "cancelled", "Cancelled"

    class EndReason(models.TextChoices):
        """What the patient said when ending a hard SOS; the end messages say the same."""

        HELP_ARRIVED = "help_arrived", "Help arrived"
        SAFE = "safe", "I'm safe now"
        FALSE_ALARM = "false_alarm", "It was a false alarm"

    ACTIVE_STATES = (State.COUNTDOWN, State.OPEN, State.ACKNOWLEDGED)

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="alerts")
    kind = models.CharField(max_length=8, choices=Kind.choices)
    state = models.CharField(max_length=16, choices=State.choices, default=State.OPEN)
    condition = models.CharField(max_length=40, blank=True, help_text="For soft SOS: the abnormality, e.g. 'hypoxia'.")
    summary = models.TextField(blank=True)
    vitals_snapshot = models.JSONField(default=dict, blank=True)
    latitude = models.FloatField(null=True, blank=True)
    longitude = models.FloatField(null=True, blank=True)
    countdown_ends_at = models.DateTimeField(null=True, blank=True)
    escalated_from = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="escalated_to"
    )
    guard_acted = models.BooleanField(
        default=False, help_text="The runtime's SOS guard completed steps the model did not."
    )
    conversation = models.ForeignKey(
        "agents.Conversation", null=True, blank=True, on_delete=models.SET_NULL, related_name="alerts"
    )
    end_reason = models.CharField(max_length=16, choices=EndReason.choices, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    acknowledged_at = models.DateTimeField(null=True, blank=True)
    resolved_at = models.DateTimeField(null=True, blank=True)

    objects = AlertQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            # One open soft SOS per condition, not one per abnormal reading.
            models.UniqueConstraint(
                fields=["user", "condition"],
                condition=Q(kind="soft", state__in=["open", "acknowledged"]),
                name="alert_one_active_soft_per_condition",
            ),
        ]
        indexes = [models.Index(fields=["state", "-created_at"])]

    def __str__(self) -> str:
        label = f"{self.get_kind_display()}"
        return f"{label}: {self.condition}" if self.condition else label

    @property
    def is_active(self) -> bool:
        return self.state in self.ACTIVE_STATES

    def acknowledge(self) -> Alert:
        """The patient has seen this open soft SOS: stamped, and written on its timeline.
        A hard SOS is ended through ``health.sos``, not acknowledged; cancelling is
        ``health.sos.cancel`` (the one implementation, with the countdown's timer)."""
        with transaction.atomic():
            locked = Alert.objects.select_for_update().get(pk=self.pk)
            if locked.kind != Alert.Kind.SOFT:
                raise InvalidTransition("Only a soft SOS can be acknowledged here.")
            if locked.state != Alert.State.OPEN:
                raise InvalidTransition(f"Cannot acknowledge an alert that is {locked.state}.")
            locked.state = Alert.State.ACKNOWLEDGED
            locked.acknowledged_at = timezone.now()
            locked.save(update_fields=["state", "acknowledged_at"])
            AlertEvent.objects.create(alert=locked, kind="acknowledged", message="Acknowledged by the patient.")
        self.state, self.acknowledged_at = locked.state, locked.acknowledged_at
        return self


class AlertEvent(models.Model):
    """One line of an alert's timeline (created, located, ambulance assigned, ...)."""

    alert = models.ForeignKey(Alert, on_delete=models.CASCADE, related_name="events")
    kind = models.CharField(max_length=40)
    message = models.CharField(max_length=255)
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.kind}: {self.message}"


class Dispatch(models.Model):
    alert = models.ForeignKey(Alert, on_delete=models.CASCADE, related_name="dispatches")
    ambulance = models.ForeignKey(Ambulance, on_delete=models.PROTECT, related_name="dispatches")
    distance_km = models.FloatField(null=True, blank=True)
    dispatched_at = models.DateTimeField(auto_now_add=True)
    released_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-dispatched_at"]
        verbose_name_plural = "dispatches"
        constraints = [
            models.UniqueConstraint(
                fields=["ambulance"], condition=Q(released_at__isnull=True), name="dispatch_one_active_per_ambulance"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.ambulance} for alert {self.alert_id}"
