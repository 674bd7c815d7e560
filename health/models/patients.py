"""The patient: profile, emergency contacts and paired devices."""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets

from django.conf import settings
from django.db import models, transaction
from django.utils import timezone

from health.validators import (
    normalize_e164,
    validate_e164,
    validate_latitude,
    validate_longitude,
    validate_timezone,
)


class PatientProfile(models.Model):
    class Sex(models.TextChoices):
        FEMALE = "female", "Female"
        MALE = "male", "Male"
        OTHER = "other", "Other"
        UNSPECIFIED = "unspecified", "Prefer not to say"

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile")
    date_of_birth = models.DateField(null=True, blank=True)
    sex = models.CharField(max_length=16, choices=Sex.choices, default=Sex.UNSPECIFIED)
    timezone = models.CharField(max_length=64, default="UTC", validators=[validate_timezone])
    phone = models.CharField(max_length=20, blank=True, validators=[validate_e164])
    home_address = models.CharField(max_length=255, blank=True)
    home_latitude = models.FloatField(null=True, blank=True, validators=[validate_latitude])
    home_longitude = models.FloatField(null=True, blank=True, validators=[validate_longitude])
    conditions = models.JSONField(default=list, blank=True, help_text="Known conditions, one string each.")
    allergies = models.JSONField(default=list, blank=True, help_text="Known allergies, one string each.")
    sms_opt_in = models.BooleanField(
        default=True, help_text="Allow SMS to emergency contacts and ambulances on this patient's behalf."
    )
    reminder_sms = models.BooleanField(
        default=False,
        help_text="Also send each medication reminder by SMS to the patient's phone (in-app reminders always go).",
    )
    tell_carer_of_missed_doses = models.BooleanField(
        default=False,
        help_text="When a dose is missed, send one SMS to each emergency contact marked as carer.",
    )
    report_time = models.TimeField(
        default=dt.time(20, 0),
        help_text="Local time (in the patient's time zone) at which the evening daily report is written.",
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(home_latitude__isnull=True)
                | models.Q(home_latitude__gte=-90, home_latitude__lte=90),
                name="profile_latitude_range",
            ),
            models.CheckConstraint(
                condition=models.Q(home_longitude__isnull=True)
                | models.Q(home_longitude__gte=-180, home_longitude__lte=180),
                name="profile_longitude_range",
            ),
        ]

    def __str__(self) -> str:
        return f"Profile of {self.user}"

    @property
    def display_name(self) -> str:
        return self.user.get_full_name() or self.user.get_username()


class EmergencyContact(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="emergency_contacts")
    name = models.CharField(max_length=120)
    relation = models.CharField(max_length=60, blank=True)
    phone = models.CharField(max_length=20, validators=[validate_e164], help_text="E.164, e.g. +14155550123")
    priority = models.PositiveSmallIntegerField(default=1, help_text="1 is called first.")
    is_carer = models.BooleanField(
        default=False,
        help_text="Looks after the patient's medicines: told of a missed dose when the patient opted in.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["priority", "id"]
        constraints = [
            models.UniqueConstraint(fields=["user", "phone"], name="contact_unique_phone_per_user"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.relation})" if self.relation else self.name

    def save(self, *args, **kwargs) -> None:
        self.phone = normalize_e164(self.phone)
        super().save(*args, **kwargs)


def _hash_token(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


SEEN_RESOLUTION = dt.timedelta(minutes=1)


class Device(models.Model):
    """A paired wearable (or phone). It authenticates with its own token, which
    only lets it post readings for its owner: a lost watch cannot read the
    patient's chats or records."""

    class Kind(models.TextChoices):
        WATCH = "watch", "Smartwatch"
        RING = "ring", "Smart ring"
        PHONE = "phone", "Phone"
        SIMULATOR = "simulator", "Simulator"

    # What the system writes (pairing, readings, revocation), never a person: read-only in the
    # API and the admin, which list these. token_hash is in no list: nothing ever shows it.
    SYSTEM_FIELDS = (
        "token_prefix",
        "last_seen_at",
        "last_latitude",
        "last_longitude",
        "last_located_at",
        "revoked_at",
        "created_at",
    )

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="devices")
    name = models.CharField(max_length=80)
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.WATCH)
    token_prefix = models.CharField(max_length=8, editable=False, db_index=True)
    token_hash = models.CharField(max_length=64, editable=False, unique=True)
    last_seen_at = models.DateTimeField(null=True, blank=True)
    last_latitude = models.FloatField(null=True, blank=True, validators=[validate_latitude])
    last_longitude = models.FloatField(null=True, blank=True, validators=[validate_longitude])
    last_located_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.get_kind_display()})"

    def issue_token(self) -> str:
        """Set a new token and return it in clear; only its hash is stored."""
        raw = secrets.token_urlsafe(32)
        self.token_prefix = raw[:8]
        self.token_hash = _hash_token(raw)
        return raw

    @classmethod
    def for_token(cls, raw: str) -> Device | None:
        try:
            return cls.objects.select_related("user").get(token_hash=_hash_token(raw), revoked_at__isnull=True)
        except cls.DoesNotExist:
            return None

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None

    def revoke(self) -> bool:
        """Make the device's token stop working from now on; the device row, and the
        readings it sent, stay. Revoking twice keeps the first revocation time.
        Returns whether this call revoked it (False: it already was)."""
        with transaction.atomic():
            locked = Device.objects.select_for_update().get(pk=self.pk)
            revoking = locked.revoked_at is None
            if revoking:
                locked.revoked_at = timezone.now()
                locked.save(update_fields=["revoked_at"])
        self.revoked_at = locked.revoked_at
        return revoking

    def touch(self) -> None:
        """Record that the device was just seen, to the minute: a watch streaming
        live posts every second, and a write per request only to move "last seen"
        by a second would cost a write transaction on each (the admin shows it
        to the minute)."""
        now = timezone.now()
        if self.last_seen_at is not None and dt.timedelta(0) <= now - self.last_seen_at < SEEN_RESOLUTION:
            return
        Device.objects.filter(pk=self.pk).update(last_seen_at=now)
        self.last_seen_at = now
