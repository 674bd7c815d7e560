"""Appointments (with their state machine), appointment history and symptom records."""

from __future__ import annotations

import datetime as dt
import zoneinfo

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, models, transaction
from django.db.models import Q
from django.template.loader import render_to_string
from django.utils import timezone

from health.models.directory import Slot, Specialist
from health.models.messaging import Notification


class SlotUnavailable(Exception):
    """The slot already holds a live appointment (or does not exist)."""


class AppointmentClash(SlotUnavailable):
    """The slot overlaps another live appointment of the same patient."""


def patient_zone(user) -> zoneinfo.ZoneInfo:
    """The patient's own time zone (their profile's), in which every time they read is shown."""
    profile = getattr(user, "profile", None)
    try:
        return zoneinfo.ZoneInfo(profile.timezone if profile else "UTC")
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


def format_when(starts_at: dt.datetime, ends_at: dt.datetime | None, tz: zoneinfo.ZoneInfo) -> str:
    """``Wed 3 Jun 2026, 09:00-09:30 (an en dash) (Europe/Berlin)``: the patient's local time, with the zone named."""
    start = starts_at.astimezone(tz)
    text = f"{start:%a} {start.day} {start:%b %Y, %H:%M}"
    if ends_at is not None:
        text += f"\u2013{ends_at.astimezone(tz):%H:%M}"
    return f"{text} ({tz.key})"


class InvalidTransition(Exception):
    """A row (appointment, alert, dose) cannot move to the requested state from its current one."""


class Appointment(models.Model):
    class State(models.TextChoices):
        # Held: the slot is kept for the patient, who has not confirmed it yet.
        HELD = "held", "Held \u2014 not booked yet"
        CONFIRMED = "confirmed", "Confirmed"
        COMPLETED = "completed", "Completed"
        CANCELLED = "cancelled", "Cancelled"

    # States in which the appointment holds its slot; the partial unique
    # constraint below makes a second live appointment on a slot impossible.
    HOLDING_STATES = (State.HELD, State.CONFIRMED, State.COMPLETED)
    # States that are still to come for the patient (may be cancelled or moved).
    ACTIVE_STATES = (State.HELD, State.CONFIRMED)
    TRANSITIONS = {
        State.HELD: {State.CONFIRMED, State.CANCELLED},
        State.CONFIRMED: {State.COMPLETED, State.CANCELLED},
        State.COMPLETED: set(),
        State.CANCELLED: set(),
    }

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="appointments")
    slot = models.ForeignKey(Slot, on_delete=models.PROTECT, related_name="appointments")
    specialist = models.ForeignKey(Specialist, on_delete=models.PROTECT, related_name="appointments")
    state = models.CharField(max_length=16, choices=State.choices, default=State.HELD)
    symptoms = models.TextField(blank=True)
    reason = models.TextField(blank=True, help_text="Why this specialist was chosen.")
    conversation = models.ForeignKey(
        "agents.Conversation", null=True, blank=True, on_delete=models.SET_NULL, related_name="appointments"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    confirmed_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    cancelled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["slot"],
                condition=Q(state__in=["held", "confirmed", "completed"]),
                name="appointment_one_live_per_slot",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.specialist.name}, {self.when_text()} ({self.get_state_display()})"

    @property
    def starts_at(self):
        return self.slot.starts_at

    @property
    def ends_at(self):
        return self.slot.ends_at

    @property
    def time_zone(self) -> zoneinfo.ZoneInfo:
        return patient_zone(self.user)

    def when_text(self) -> str:
        """When, as the patient reads it: their local time with the zone named."""
        return format_when(self.slot.starts_at, self.slot.ends_at, self.time_zone)

    @property
    def is_active(self) -> bool:
        return self.state in self.ACTIVE_STATES

    @staticmethod
    def _lock_patient(user) -> None:
        # One booking at a time per patient, so two concurrent bookings cannot
        # both pass the overlap check (on SQLite the IMMEDIATE write lock does this).
        get_user_model().objects.select_for_update().filter(pk=user.pk).exists()

    @classmethod
    def clashes(cls, user, slot: Slot, *, excluding: int | None = None) -> models.QuerySet[Appointment]:
        """The patient's held or confirmed appointments whose time overlaps ``slot``."""
        found = cls.objects.filter(
            user=user,
            state__in=cls.ACTIVE_STATES,
            slot__starts_at__lt=slot.ends_at,
            slot__ends_at__gt=slot.starts_at,
        ).select_related("slot", "specialist__specialization")
        return found.exclude(pk=excluding) if excluding else found

    @classmethod
    def _take(cls, user, slot_id: int, now, *, excluding: int | None = None) -> Slot:
        """Lock and check ``slot_id`` for ``user``: it exists, is ahead, and overlaps nothing of theirs."""
        cls._lock_patient(user)
        try:
            slot = Slot.objects.select_for_update().select_related("specialist").get(pk=slot_id)
        except Slot.DoesNotExist as exc:
            raise SlotUnavailable("No such slot.") from exc
        if slot.starts_at <= (now or timezone.now()):
            raise SlotUnavailable("This slot is in the past.")
        clash = cls.clashes(user, slot, excluding=excluding).first()
        if clash is not None:
            raise AppointmentClash(render_to_string("health/appointments/clash.txt", {"other": clash}).strip())
        return slot

    @classmethod
    def hold(
        cls, *, user, slot_id: int, symptoms: str = "", reason: str = "", conversation=None, now=None
    ) -> Appointment:
        """Hold ``slot_id`` for ``user`` (not booked until confirmed); raise SlotUnavailable if it is
        taken or past (at ``now``, default the real time: a generated world books on its own
        calendar), AppointmentClash if it overlaps another of the patient's appointments."""
        try:
            with transaction.atomic():
                slot = cls._take(user, slot_id, now)
                return cls.objects.create(
                    user=user,
                    slot=slot,
                    specialist=slot.specialist,
                    symptoms=symptoms,
                    reason=reason,
                    conversation=conversation,
                )
        except IntegrityError as exc:
            raise SlotUnavailable("This slot has just been booked by someone else.") from exc

    @classmethod
    def book(cls, *, user, slot_id: int, **kwargs) -> Appointment:
        """Hold and confirm in one transaction (a booking the user already agreed to)."""
        with transaction.atomic():
            appointment = cls.hold(user=user, slot_id=slot_id, **kwargs)
            appointment.confirm()
            return appointment

    def transition(self, target: str, *, notify: bool = True) -> None:
        """Move to ``target`` if the state machine allows it; stamps the time and tells the patient."""
        with transaction.atomic():
            current = Appointment.objects.select_for_update().get(pk=self.pk)
            if target not in self.TRANSITIONS[self.State(current.state)]:
                raise InvalidTransition(
                    f"Cannot go from {current.state} to {target}: this appointment is "
                    f"{self.State(current.state).label.lower()}."
                )
            now = timezone.now()
            self.state = target
            stamp = {
                self.State.CONFIRMED: "confirmed_at",
                self.State.COMPLETED: "completed_at",
                self.State.CANCELLED: "cancelled_at",
            }[self.State(target)]
            setattr(self, stamp, now)
            self.save(update_fields=["state", stamp])
            if notify and target in (self.State.CONFIRMED, self.State.CANCELLED):
                self.notify(target)

    def confirm(self) -> None:
        self.transition(self.State.CONFIRMED)

    def complete(self) -> None:
        self.transition(self.State.COMPLETED)

    def cancel(self) -> None:
        self.transition(self.State.CANCELLED)

    def reschedule(self, slot_id: int, *, now=None) -> None:
        """Move this held or confirmed appointment to another free slot of the same specialist
        (its state is kept); the old slot becomes free."""
        if self.state not in self.ACTIVE_STATES:
            raise InvalidTransition(f"A {self.get_state_display().lower()} appointment cannot be rescheduled.")
        previous = self.when_text()
        try:
            with transaction.atomic():
                slot = self._take(self.user, slot_id, now, excluding=self.pk)
                if slot.specialist_id != self.specialist_id:
                    raise SlotUnavailable("Choose another time with the same specialist.")
                self.slot = slot
                self.save(update_fields=["slot"])
        except IntegrityError as exc:
            raise SlotUnavailable("This slot has just been booked by someone else.") from exc
        self.notify("rescheduled", previous=previous)

    def free_slots(self, now=None, limit: int = 30) -> models.QuerySet[Slot]:
        """Other free slots of this appointment's specialist, soonest first (to reschedule to)."""
        return (
            Slot.objects.bookable(now)
            .filter(specialist_id=self.specialist_id)
            .exclude(pk=self.slot_id)
            .order_by("starts_at")[:limit]
        )

    def notify(self, event: str, **extra) -> Notification:
        """Tell the patient what happened, in words rendered from the recorded state."""
        context = {"appointment": self, "event": event, **extra}
        title = render_to_string("health/appointments/notification_title.txt", context).strip()
        body = render_to_string("health/appointments/notification_body.txt", context).strip()
        level = Notification.Level.WARNING if event == self.State.CANCELLED else Notification.Level.SUCCESS
        return Notification.objects.create(
            user=self.user,
            kind="appointment",
            level=level,
            title=title[:160],
            body=body,
            data={"appointment": self.pk, "event": event, "conversation": self.conversation_id},
        )


class AppointmentHistory(models.Model):
    """A line of the patient's long-term appointment history (seed paper's
    ``save_appointment_history``): kept even if the appointment row is gone."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="appointment_history")
    appointment = models.ForeignKey(
        Appointment, null=True, blank=True, on_delete=models.SET_NULL, related_name="history_entries"
    )
    specialist_name = models.CharField(max_length=120)
    specialization = models.CharField(max_length=80)
    scheduled_for = models.DateTimeField()
    summary = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-scheduled_for"]
        verbose_name_plural = "appointment history"

    def __str__(self) -> str:
        return f"{self.specialist_name} ({self.specialization}) {self.scheduled_for:%Y-%m-%d}"


class SymptomRecord(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="symptom_records")
    text = models.TextField(help_text="What the patient said, in their words.")
    symptoms = models.JSONField(default=list, blank=True, help_text="Extracted symptoms, one string each.")
    conversation = models.ForeignKey(
        "agents.Conversation", null=True, blank=True, on_delete=models.SET_NULL, related_name="symptom_records"
    )
    recorded_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-recorded_at"]

    def __str__(self) -> str:
        return f"{self.recorded_at:%Y-%m-%d}: {', '.join(self.symptoms) or self.text[:40]}"
