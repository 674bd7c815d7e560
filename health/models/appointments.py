"""Appointments (with their state machine), appointment history and symptom records."""

from __future__ import annotations

from django.conf import settings
from django.db import IntegrityError, models, transaction
from django.db.models import Q
from django.utils import timezone

from health.models.directory import Slot, Specialist


class SlotUnavailable(Exception):
    """The slot already holds a live appointment (or does not exist)."""


class InvalidTransition(Exception):
    """The appointment cannot move to the requested state from its current one."""


class Appointment(models.Model):
    class State(models.TextChoices):
        PROPOSED = "proposed", "Proposed"
        CONFIRMED = "confirmed", "Confirmed"
        COMPLETED = "completed", "Completed"
        CANCELLED = "cancelled", "Cancelled"

    # States in which the appointment holds its slot; the partial unique
    # constraint below makes a second live appointment on a slot impossible.
    HOLDING_STATES = (State.PROPOSED, State.CONFIRMED, State.COMPLETED)
    TRANSITIONS = {
        State.PROPOSED: {State.CONFIRMED, State.CANCELLED},
        State.CONFIRMED: {State.COMPLETED, State.CANCELLED},
        State.COMPLETED: set(),
        State.CANCELLED: set(),
    }

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="appointments")
    slot = models.ForeignKey(Slot, on_delete=models.PROTECT, related_name="appointments")
    specialist = models.ForeignKey(Specialist, on_delete=models.PROTECT, related_name="appointments")
    state = models.CharField(max_length=16, choices=State.choices, default=State.PROPOSED)
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
                condition=Q(state__in=["proposed", "confirmed", "completed"]),
                name="appointment_one_live_per_slot",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.specialist.name} at {self.slot.starts_at:%Y-%m-%d %H:%M} ({self.state})"

    @property
    def starts_at(self):
        return self.slot.starts_at

    @classmethod
    def propose(
        cls, *, user, slot_id: int, symptoms: str = "", reason: str = "", conversation=None, now=None
    ) -> Appointment:
        """Hold ``slot_id`` for ``user``; raise SlotUnavailable if it is taken or past (at ``now``,
        default the real time: a generated world books on its own calendar)."""
        try:
            with transaction.atomic():
                slot = Slot.objects.select_for_update().select_related("specialist").get(pk=slot_id)
                if slot.starts_at <= (now or timezone.now()):
                    raise SlotUnavailable("This slot is in the past.")
                return cls.objects.create(
                    user=user,
                    slot=slot,
                    specialist=slot.specialist,
                    symptoms=symptoms,
                    reason=reason,
                    conversation=conversation,
                )
        except Slot.DoesNotExist as exc:
            raise SlotUnavailable("No such slot.") from exc
        except IntegrityError as exc:
            raise SlotUnavailable("This slot has just been booked by someone else.") from exc

    @classmethod
    def book(cls, *, user, slot_id: int, **kwargs) -> Appointment:
        """Propose and confirm in one transaction (a booking the user already agreed to)."""
        with transaction.atomic():
            appointment = cls.propose(user=user, slot_id=slot_id, **kwargs)
            appointment.transition(cls.State.CONFIRMED)
            return appointment

    def transition(self, target: str) -> None:
        """Move to ``target`` if the state machine allows it; stamps the time."""
        with transaction.atomic():
            current = Appointment.objects.select_for_update().get(pk=self.pk)
            if target not in self.TRANSITIONS[self.State(current.state)]:
                raise InvalidTransition(f"Cannot go from {current.state} to {target}.")
            now = timezone.now()
            self.state = target
            stamp = {
                self.State.CONFIRMED: "confirmed_at",
                self.State.COMPLETED: "completed_at",
                self.State.CANCELLED: "cancelled_at",
            }[self.State(target)]
            setattr(self, stamp, now)
            self.save(update_fields=["state", stamp])

    def confirm(self) -> None:
        self.transition(self.State.CONFIRMED)

    def complete(self) -> None:
        self.transition(self.State.COMPLETED)

    def cancel(self) -> None:
        self.transition(self.State.CANCELLED)


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
