"""Vital readings from paired devices, with physiological bounds enforced twice:
by validators (clear field errors) and by database constraints (no path around them)."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

from health.models.patients import Device

# Inclusive bounds of what a wrist device can physically report. Values outside
# are sensor or transmission errors and are refused, not stored. A heart rate
# of 0 is what watches send when they lose skin contact; it is stored so the
# monitor can see (and ignore) the glitch.
BOUNDS: dict[str, tuple[float, float]] = {
    "heart_rate": (0, 250),
    "spo2": (50, 100),
    "systolic_bp": (50, 260),
    "diastolic_bp": (25, 180),
    "steps": (0, 100_000),
    "sleep_minutes": (0, 1440),
}


def _bounded(field: str) -> list:
    low, high = BOUNDS[field]
    return [MinValueValidator(low), MaxValueValidator(high)]


def _range_check(field: str) -> models.CheckConstraint:
    low, high = BOUNDS[field]
    return models.CheckConstraint(
        condition=Q(**{f"{field}__isnull": True}) | Q(**{f"{field}__gte": low, f"{field}__lte": high}),
        name=f"vital_{field}_in_bounds",
    )


class VitalReading(models.Model):
    class SleepStage(models.TextChoices):
        AWAKE = "awake", "Awake"
        LIGHT = "light", "Light"
        DEEP = "deep", "Deep"
        REM = "rem", "REM"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="vital_readings")
    device = models.ForeignKey(Device, on_delete=models.CASCADE, related_name="readings")
    measured_at = models.DateTimeField()
    received_at = models.DateTimeField(auto_now_add=True)
    heart_rate = models.PositiveSmallIntegerField(null=True, blank=True, validators=_bounded("heart_rate"))
    spo2 = models.FloatField("SpO2 (%)", null=True, blank=True, validators=_bounded("spo2"))
    systolic_bp = models.PositiveSmallIntegerField(null=True, blank=True, validators=_bounded("systolic_bp"))
    diastolic_bp = models.PositiveSmallIntegerField(null=True, blank=True, validators=_bounded("diastolic_bp"))
    steps = models.PositiveIntegerField(
        null=True, blank=True, validators=_bounded("steps"), help_text="Steps since the previous reading."
    )
    sleep_stage = models.CharField(max_length=8, choices=SleepStage.choices, blank=True)
    sleep_minutes = models.FloatField(
        null=True, blank=True, validators=_bounded("sleep_minutes"), help_text="Minutes in sleep_stage."
    )

    class Meta:
        ordering = ["-measured_at"]
        constraints = [
            models.UniqueConstraint(fields=["device", "measured_at"], name="vital_unique_device_time"),
            *(_range_check(field) for field in BOUNDS),
            models.CheckConstraint(
                condition=Q(systolic_bp__isnull=True)
                | Q(diastolic_bp__isnull=True)
                | Q(systolic_bp__gt=models.F("diastolic_bp")),
                name="vital_systolic_above_diastolic",
            ),
        ]
        indexes = [models.Index(fields=["user", "-measured_at"])]

    def __str__(self) -> str:
        return f"{self.device_id}@{self.measured_at:%Y-%m-%d %H:%M:%S}"
