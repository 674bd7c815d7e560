"""The specialists directory: specializations, specialists and bookable slots."""

from __future__ import annotations

import datetime as dt
import zoneinfo

from django.db import models
from django.db.models import Q
from django.utils import timezone

from health.validators import validate_latitude, validate_longitude


class Specialization(models.Model):
    name = models.CharField(max_length=80, unique=True, help_text="Lower case, e.g. 'cardiologist'.")
    description = models.CharField(max_length=255, blank=True)
    synonyms = models.JSONField(default=list, blank=True, help_text="Other names users or models may use.")

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        self.name = self.normalise(self.name)
        super().save(*args, **kwargs)

    @staticmethod
    def normalise(name: str) -> str:
        """A specialization's name as stored (and searched): trimmed, lower case."""
        return name.strip().lower()


class Specialist(models.Model):
    name = models.CharField(max_length=120)
    specialization = models.ForeignKey(Specialization, on_delete=models.PROTECT, related_name="specialists")
    hospital = models.CharField(max_length=160)
    address = models.CharField(max_length=255, blank=True)
    latitude = models.FloatField(null=True, blank=True, validators=[validate_latitude])
    longitude = models.FloatField(null=True, blank=True, validators=[validate_longitude])
    phone = models.CharField(max_length=20, blank=True)
    active = models.BooleanField(default=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["name", "hospital"], name="specialist_unique_per_hospital"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.specialization.name})"


class SlotQuerySet(models.QuerySet):
    def free(self) -> SlotQuerySet:
        """Slots with no live (proposed, confirmed or completed) appointment."""
        from health.models.appointments import Appointment  # appointments imports this module

        return self.exclude(appointments__state__in=Appointment.HOLDING_STATES)

    def bookable(self, now: dt.datetime | None = None) -> SlotQuerySet:
        """Free slots that start after ``now`` (default: the real time)."""
        return self.free().filter(starts_at__gt=now or timezone.now())

    def of_specialization(self, name: str) -> SlotQuerySet:
        return self.filter(specialist__specialization__name=Specialization.normalise(name))

    def on_days(self, first: dt.date | None, last: dt.date | None, zone: zoneinfo.ZoneInfo) -> SlotQuerySet:
        """Slots starting on the days ``first`` to ``last`` (inclusive; either may be
        open) as they fall in ``zone``: "from Monday" means the patient's Monday."""

        def start_of(day: dt.date) -> dt.datetime:
            return dt.datetime.combine(day, dt.time.min, tzinfo=zone)

        found = self
        if first is not None:
            found = found.filter(starts_at__gte=start_of(first))
        if last is not None:
            found = found.filter(starts_at__lt=start_of(last + dt.timedelta(days=1)))
        return found


class Slot(models.Model):
    specialist = models.ForeignKey(Specialist, on_delete=models.CASCADE, related_name="slots")
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField()

    objects = SlotQuerySet.as_manager()

    class Meta:
        ordering = ["starts_at", "specialist_id"]
        constraints = [
            models.UniqueConstraint(fields=["specialist", "starts_at"], name="slot_unique_start"),
            models.CheckConstraint(condition=Q(ends_at__gt=models.F("starts_at")), name="slot_ends_after_start"),
        ]
        indexes = [models.Index(fields=["starts_at"])]

    def __str__(self) -> str:
        return f"{self.specialist.name} {self.starts_at:%Y-%m-%d %H:%M}"
