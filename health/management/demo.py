"""Seeding the demo: one patient with history, an operator, the specialists
directory with bookable slots, and an ambulance fleet (tables in ``health.demo_data``).

Seeding only ever adds what is missing: a second run changes nothing, a run on
a later day adds the new days' slots, and an operator's edits (or a changed
password) survive unless the environment asks for a reset.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from zoneinfo import ZoneInfo

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import models, transaction
from django.utils import timezone

from health import demo_data as data
from health.models import (
    Ambulance,
    AppointmentHistory,
    Device,
    EmergencyContact,
    PatientProfile,
    Slot,
    Specialist,
    Specialization,
    SymptomRecord,
)

DEMO_PASSWORD_ENV = "DEMO_PASSWORD"
ADMIN_PASSWORD_ENV = "DEMO_ADMIN_PASSWORD"


@dataclass
class SeedResult:
    """What a run did: rows created per kind, and which secrets it (re)wrote."""

    created: dict[str, int] = field(default_factory=dict)
    demo_password: str | None = None
    admin_password: str | None = None
    token_file: Path | None = None
    token_written: bool = False

    def add(self, kind: str, count: int = 1) -> None:
        self.created[kind] = self.created.get(kind, 0) + count


def seed_demo(
    *, now: dt.datetime | None = None, days: int = data.SLOT_DAYS, environ: Mapping[str, str] | None = None
) -> SeedResult:
    """Create whatever demo rows are missing and return what was created.

    ``days`` is how many days of slots, from today in the demo time zone, the
    directory should offer; only slots starting after ``now`` are added.
    ``environ`` supplies DEMO_PASSWORD / DEMO_ADMIN_PASSWORD (default: os.environ).
    """
    now = now or timezone.now()
    environ = os.environ if environ is None else environ
    result = SeedResult()
    with transaction.atomic():
        seed_directory(result, now=now, days=days)
        _seed_ambulances(result)
        demo = _seed_demo_patient(result, now=now, environ=environ)
        _seed_admin(result, environ=environ)
        _seed_device(result, demo)
    return result


def seed_shared(*, now: dt.datetime | None = None, days: int = data.SLOT_DAYS) -> SeedResult:
    """Only what is nobody's personal data and has no password: the specialists directory with
    its slots, and the ambulances. What a deployment without the demo (DEMO off) gets."""
    result = SeedResult()
    with transaction.atomic():
        seed_directory(result, now=now or timezone.now(), days=days)
        _seed_ambulances(result)
    return result


def seed_directory(result: SeedResult, *, now: dt.datetime, days: int = data.SLOT_DAYS) -> None:
    """The specializations, specialists and their free slots (idempotent; the evaluation seeds only this)."""
    specialists = _seed_directory(result)
    _seed_slots(result, specialists, now=now, days=days)


def _seed_directory(result: SeedResult) -> list[Specialist]:
    specialists: list[Specialist] = []
    for row in data.SPECIALIZATIONS:
        specialization, created = Specialization.objects.get_or_create(
            name=row.name, defaults={"description": row.description, "synonyms": row.synonyms}
        )
        missing = [name for name in row.synonyms if name not in (specialization.synonyms or [])]
        if not created and missing:
            # A directory seeded by an earlier version learns the names added since ("kidney doctor");
            # names an operator added in the admin stay.
            specialization.synonyms = [*(specialization.synonyms or []), *missing]
            specialization.save(update_fields=["synonyms"])
        result.add("specializations", int(created))
        for doctor, hospital_index in row.specialists:
            hospital = data.HOSPITALS[hospital_index]
            specialist, created = Specialist.objects.get_or_create(
                name=doctor,
                hospital=hospital.name,
                defaults={
                    "specialization": specialization,
                    "address": hospital.address,
                    "latitude": hospital.latitude,
                    "longitude": hospital.longitude,
                    "phone": hospital.phone,
                },
            )
            result.add("specialists", int(created))
            specialists.append(specialist)
    return specialists


def slot_times(today: dt.date, days: int) -> Iterator[tuple[dt.datetime, dt.datetime]]:
    """Yield (starts_at, ends_at) in UTC for every clinic slot on the weekdays
    of ``days`` local days starting with ``today`` (demo time zone)."""
    tz = ZoneInfo(data.TIMEZONE)
    step = dt.timedelta(minutes=data.SLOT_MINUTES)
    for offset in range(days):
        day = today + dt.timedelta(days=offset)
        if day.weekday() >= 5:
            continue
        for opens, closes in data.CLINIC_HOURS:
            start = dt.datetime.combine(day, opens, tzinfo=tz)
            stop = dt.datetime.combine(day, closes, tzinfo=tz)
            # Clinic hours never cross a DST change (those happen at 02:00), so
            # wall-clock arithmetic is exact here.
            while start + step <= stop:
                yield start.astimezone(dt.UTC), (start + step).astimezone(dt.UTC)
                start += step


def _seed_slots(result: SeedResult, specialists: list[Specialist], *, now: dt.datetime, days: int) -> None:
    today = now.astimezone(ZoneInfo(data.TIMEZONE)).date()
    times = [(start, end) for start, end in slot_times(today, days) if start > now]
    if not times:
        return
    existing = set(
        Slot.objects.filter(
            specialist__in=specialists, starts_at__gte=times[0][0], starts_at__lte=times[-1][0]
        ).values_list("specialist_id", "starts_at")
    )
    missing = [
        Slot(specialist=specialist, starts_at=start, ends_at=end)
        for specialist in specialists
        for start, end in times
        if (specialist.pk, start) not in existing
    ]
    # ignore_conflicts: a concurrent seeding run may have added some meanwhile.
    Slot.objects.bulk_create(missing, batch_size=2000, ignore_conflicts=True)
    result.add("slots", len(missing))


def _seed_ambulances(result: SeedResult) -> None:
    for row in data.AMBULANCES:
        _, created = Ambulance.objects.get_or_create(
            code=row.code,
            defaults={
                "operator": row.operator,
                "phone": row.phone,
                "latitude": row.latitude,
                "longitude": row.longitude,
                "available": True,
            },
        )
        result.add("ambulances", int(created))


def _ensure_user(
    username: str, *, default_password: str, env_password: str | None, **defaults
) -> tuple[AbstractBaseUser, bool, str | None]:
    """Get or create ``username``; set its password only when it is new or the
    environment supplies one. Returns (user, created, password_set)."""
    user, created = get_user_model().objects.get_or_create(username=username, defaults=defaults)
    password = env_password or (default_password if created else None)
    if password:
        user.set_password(password)
        user.save(update_fields=["password"])
    return user, created, password


def _fill_blanks(instance: models.Model, values: Mapping[str, object]) -> bool:
    """Set each field in ``values`` that still holds its empty default; keep
    anything someone has filled in. Returns whether anything changed."""
    changed = []
    for name, value in values.items():
        current = getattr(instance, name)
        if current in (None, "", [], {}) or current == instance._meta.get_field(name).get_default():
            if current != value:
                setattr(instance, name, value)
                changed.append(name)
    if changed:
        instance.save(update_fields=changed)
    return bool(changed)


def _seed_demo_patient(result: SeedResult, *, now: dt.datetime, environ: Mapping[str, str]) -> AbstractBaseUser:
    demo, created, password = _ensure_user(
        data.DEMO_USERNAME,
        default_password=data.DEMO_PASSWORD,
        env_password=environ.get(DEMO_PASSWORD_ENV),
        **data.DEMO_USER,
    )
    result.add("users", int(created))
    result.demo_password = password
    # get_or_create then fill blanks: a profile may already exist, created
    # empty when the user was (by a signal or the API).
    profile, created = PatientProfile.objects.get_or_create(user=demo)
    result.add("profiles", int(created))
    _fill_blanks(profile, data.DEMO_PROFILE)

    for contact in data.EMERGENCY_CONTACTS:
        _, created = EmergencyContact.objects.get_or_create(
            user=demo,
            phone=contact.phone,
            defaults={"name": contact.name, "relation": contact.relation, "priority": contact.priority},
        )
        result.add("emergency contacts", int(created))

    for past in data.PAST_SYMPTOMS:
        _, created = SymptomRecord.objects.get_or_create(
            user=demo,
            text=past.text,
            defaults={"symptoms": past.symptoms, "recorded_at": now - dt.timedelta(days=past.days_ago)},
        )
        result.add("symptom records", int(created))

    visit = data.PAST_APPOINTMENT
    local_day = (now - dt.timedelta(days=visit.days_ago)).astimezone(ZoneInfo(data.TIMEZONE)).date()
    _, created = AppointmentHistory.objects.get_or_create(
        user=demo,
        specialist_name=visit.specialist_name,
        specialization=visit.specialization,
        defaults={
            "scheduled_for": dt.datetime.combine(local_day, dt.time(10, 30), tzinfo=ZoneInfo(data.TIMEZONE)),
            "summary": visit.summary,
        },
    )
    result.add("appointment history", int(created))
    return demo


def _seed_admin(result: SeedResult, *, environ: Mapping[str, str]) -> None:
    _, created, password = _ensure_user(
        data.ADMIN_USERNAME,
        default_password=data.ADMIN_PASSWORD,
        env_password=environ.get(ADMIN_PASSWORD_ENV),
        email="admin@example.org",
        is_staff=True,
        is_superuser=True,
    )
    result.add("users", int(created))
    result.admin_password = password


def _seed_device(result: SeedResult, demo: AbstractBaseUser) -> None:
    """Pair the demo watch and keep DATA_DIR/demo_device_token holding its
    valid clear token, so the watch simulator can post readings. A demo watch
    an operator revoked is replaced by a newly paired one."""
    path = Path(settings.DATA_DIR) / data.DEVICE_TOKEN_FILE
    result.token_file = path
    device = Device.objects.filter(user=demo, name=data.DEVICE_NAME, revoked_at__isnull=True).first()
    created = device is None
    if created:
        device = Device(user=demo, name=data.DEVICE_NAME, kind=Device.Kind.WATCH)
    result.add("devices", int(created))
    if not created and _file_token_matches(path, device):
        return
    # Only the hash is stored, so a lost or stale file means a new token.
    token = device.issue_token()
    device.save()
    _write_secret(path, token)
    result.token_written = True


def _file_token_matches(path: Path, device: Device) -> bool:
    try:
        token = path.read_text().strip()
    except FileNotFoundError:
        return False
    found = Device.for_token(token) if token else None
    return found is not None and found.pk == device.pk


def _write_secret(path: Path, secret: str) -> None:
    """Write ``secret`` to ``path`` readable by the owner only (0600), even if
    the file existed with wider permissions."""
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        os.fchmod(handle.fileno(), 0o600)
        handle.write(secret + "\n")
