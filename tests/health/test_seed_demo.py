"""``manage.py seed_demo``: what it creates, and that running it again is harmless."""

from __future__ import annotations

import datetime as dt
import io
import math
import stat
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.utils import timezone

from health import demo_data as data
from health.management.demo import seed_demo, slot_times
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
from health.validators import normalize_e164

# The list plus every specialization named in the evaluation set
# (shared/eval/symptom2disease_specialists.json), as a user or model may write them.
REQUIRED_SPECIALIZATIONS = [
    "general physician",
    "cardiologist",
    "neurologist",
    "gastroenterologist",
    "pulmonologist",
    "dermatologist",
    "endocrinologist",
    "orthopedist",
    "ENT",
    "ophthalmologist",
    "psychiatrist",
    "nephrologist",
    "urologist",
    "gynecologist",
    "rheumatologist",
    "dietician",
    "allergist",
    "infectious disease specialist",
    "vascular surgeon",
    "general surgeon",
    "proctologist",
    "hepatologist",
    "pediatrician",
    "oncologist",
]
SYNONYMS = {
    "otolaryngologist": "ent",
    "ear nose and throat": "ent",
    "general practitioner": "general physician",
    "gp": "general physician",
    "family doctor": "general physician",
    "dietitian": "dietician",
    "nutritionist": "dietician",
}


@pytest.fixture
def data_dir(settings, tmp_path: Path) -> Path:
    settings.DATA_DIR = tmp_path
    return tmp_path


@pytest.fixture
def no_password_env(monkeypatch) -> None:
    monkeypatch.delenv("DEMO_PASSWORD", raising=False)
    monkeypatch.delenv("DEMO_ADMIN_PASSWORD", raising=False)


@pytest.fixture
def seeded(db, data_dir, no_password_env, settings) -> str:
    """Run the command once, with the demo on (as ``make run`` does); return what it printed."""
    settings.DEMO = True
    out = io.StringIO()
    call_command("seed_demo", stdout=out)
    return out.getvalue()


def _km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    h = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(lon2 - lon1) / 2) ** 2
    return 2 * 6371 * math.asin(math.sqrt(h))


def _row_counts() -> dict[str, int]:
    models = [*apps.get_app_config("health").get_models(), *apps.get_app_config("agents").get_models()]
    counts = {model._meta.label: model.objects.count() for model in models}
    counts["users"] = get_user_model().objects.count()
    return counts


def _demo_home() -> tuple[float, float]:
    profile = PatientProfile.objects.get(user__username="demo")
    return profile.home_latitude, profile.home_longitude


def test_it_creates_the_demo_patient_with_a_full_profile(seeded):
    profile = PatientProfile.objects.select_related("user").get(user__username="demo")
    assert profile.user.first_name == "Maya"
    assert profile.user.check_password("demo-health-2024")
    assert profile.date_of_birth is not None
    assert profile.sex == PatientProfile.Sex.FEMALE
    assert profile.timezone == data.TIMEZONE
    assert profile.home_address
    assert profile.home_latitude is not None and profile.home_longitude is not None
    assert profile.conditions and profile.allergies
    profile.full_clean()


def test_the_demo_patient_has_two_emergency_contacts_with_valid_numbers(seeded):
    contacts = EmergencyContact.objects.filter(user__username="demo")
    assert contacts.count() == 2
    for contact in contacts:
        assert normalize_e164(contact.phone) == contact.phone
    assert sorted(contacts.values_list("priority", flat=True)) == [1, 2]


def test_the_demo_patient_has_past_symptoms_and_an_appointment_history_line(seeded):
    now = timezone.now()
    records = SymptomRecord.objects.filter(user__username="demo")
    assert records.count() == 2
    assert all(record.recorded_at < now and record.symptoms for record in records)
    history = AppointmentHistory.objects.get(user__username="demo")
    assert history.scheduled_for < now
    assert Specialist.objects.filter(name=history.specialist_name, specialization__name=history.specialization).exists()


def test_it_creates_an_operator_superuser(seeded):
    operator = get_user_model().objects.get(username="admin")
    assert operator.is_staff and operator.is_superuser
    assert operator.check_password("admin-health-2024")


def test_the_directory_covers_every_required_specialization(seeded):
    assert Specialist.objects.count() >= 40
    assert Specialization.objects.count() >= 20
    names = set(Specialization.objects.values_list("name", flat=True))
    for required in REQUIRED_SPECIALIZATIONS:
        assert required.lower() in names, required


def test_synonyms_lead_to_the_right_specialization(seeded):
    by_synonym = {
        synonym.lower(): specialization.name
        for specialization in Specialization.objects.all()
        for synonym in specialization.synonyms
    }
    for synonym, name in SYNONYMS.items():
        assert by_synonym[synonym] == name
    assert all(specialization.description for specialization in Specialization.objects.all())


def test_every_specialization_has_two_specialists_at_different_hospitals_near_home(seeded):
    home = _demo_home()
    for specialization in Specialization.objects.prefetch_related("specialists"):
        specialists = list(specialization.specialists.all())
        assert len({specialist.hospital for specialist in specialists}) >= 2, specialization.name
        for specialist in specialists:
            assert _km(*home, specialist.latitude, specialist.longitude) < 15


def test_slots_are_weekday_half_hours_in_clinic_hours_within_the_next_30_days(seeded):
    now = timezone.now()
    tz = ZoneInfo(data.TIMEZONE)
    slots = list(Slot.objects.all())
    assert len(slots) >= 40 * 5 * 14  # at least a week of slots for every specialist
    assert min(slot.starts_at for slot in slots) > now - dt.timedelta(minutes=1)
    assert max(slot.starts_at for slot in slots) < now + dt.timedelta(days=30)
    for slot in slots:
        local = slot.starts_at.astimezone(tz)
        assert local.weekday() < 5
        assert local.minute in (0, 30)
        assert dt.time(9) <= local.time() < dt.time(13) or dt.time(14) <= local.time() < dt.time(17)
        assert slot.ends_at - slot.starts_at == dt.timedelta(minutes=30)


def test_every_specialist_gets_every_future_clinic_slot(seeded):
    now = timezone.now()
    today = now.astimezone(ZoneInfo(data.TIMEZONE)).date()
    expected = sum(1 for start, _ in slot_times(today, 30) if start > now)
    assert Slot.objects.count() == expected * Specialist.objects.count()


def test_ambulances_are_at_distinct_coordinates_and_distances_with_valid_phones(seeded):
    home = _demo_home()
    ambulances = list(Ambulance.objects.all())
    assert len(ambulances) >= 10
    assert len({(a.latitude, a.longitude) for a in ambulances}) == len(ambulances)
    assert len({round(_km(*home, a.latitude, a.longitude), 2) for a in ambulances}) == len(ambulances)
    for ambulance in ambulances:
        assert normalize_e164(ambulance.phone) == ambulance.phone
        assert ambulance.available


def test_the_demo_watch_token_is_written_owner_only_and_authenticates(seeded, data_dir):
    token_file = data_dir / "demo_device_token"
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    device = Device.for_token(token_file.read_text().strip())
    assert device is not None
    assert device.name == "Demo watch"
    assert device.user.username == "demo"


def test_a_second_run_changes_nothing(seeded, data_dir):
    counts = _row_counts()
    token = (data_dir / "demo_device_token").read_text()
    password_hash = get_user_model().objects.get(username="demo").password

    out = io.StringIO()
    call_command("seed_demo", stdout=out)

    assert _row_counts() == counts
    assert (data_dir / "demo_device_token").read_text() == token
    assert get_user_model().objects.get(username="demo").password == password_hash
    assert "added nothing" in out.getvalue()


def test_a_changed_password_survives_a_rerun_unless_the_environment_resets_it(seeded, monkeypatch):
    demo = get_user_model().objects.get(username="demo")
    demo.set_password("my own secret 42")
    demo.save()

    call_command("seed_demo", stdout=io.StringIO())
    demo.refresh_from_db()
    assert demo.check_password("my own secret 42")

    monkeypatch.setenv("DEMO_PASSWORD", "reset by env 42")
    monkeypatch.setenv("DEMO_ADMIN_PASSWORD", "admin reset 42")
    out = io.StringIO()
    call_command("seed_demo", stdout=out)
    demo.refresh_from_db()
    assert demo.check_password("reset by env 42")
    assert get_user_model().objects.get(username="admin").check_password("admin reset 42")
    assert "reset by env 42" not in out.getvalue()


def test_a_run_on_a_later_day_only_adds_the_new_days_slots(db, data_dir, no_password_env):
    # A Monday 08:00 in the demo time zone, then the next day.
    first = dt.datetime(2031, 3, 3, 8, 0, tzinfo=ZoneInfo(data.TIMEZONE))
    second = first + dt.timedelta(days=1)
    seed_demo(now=first)
    before = _row_counts()

    result = seed_demo(now=second)

    after = _row_counts()
    new_days = {start for start, _ in slot_times(second.date(), 30)} - {
        start for start, _ in slot_times(first.date(), 30)
    }
    added = after.pop("health.Slot") - before.pop("health.Slot")
    assert added == len(new_days) * Specialist.objects.count() > 0
    assert {kind: count for kind, count in result.created.items() if count} == {"slots": added}
    assert after == before


def test_a_lost_token_file_gets_a_fresh_token(seeded, data_dir):
    token_file = data_dir / "demo_device_token"
    old_token = token_file.read_text().strip()
    token_file.unlink()

    call_command("seed_demo", stdout=io.StringIO())

    new_token = token_file.read_text().strip()
    assert new_token != old_token
    assert Device.for_token(old_token) is None
    assert Device.for_token(new_token).name == "Demo watch"
    assert Device.objects.filter(user__username="demo").count() == 1
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600


def test_a_stale_token_file_is_replaced(seeded, data_dir):
    token_file = data_dir / "demo_device_token"
    token_file.write_text("token-from-an-older-database\n")
    token_file.chmod(0o644)

    call_command("seed_demo", stdout=io.StringIO())

    assert Device.for_token(token_file.read_text().strip()).name == "Demo watch"
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600


def test_a_revoked_demo_watch_is_replaced_by_a_newly_paired_one(seeded, data_dir):
    token_file = data_dir / "demo_device_token"
    old = Device.for_token(token_file.read_text().strip())
    old.revoked_at = timezone.now()
    old.save()

    call_command("seed_demo", stdout=io.StringIO())

    new = Device.for_token(token_file.read_text().strip())
    assert new is not None and new.pk != old.pk
    assert Device.objects.filter(user__username="demo", revoked_at__isnull=True).count() == 1


def test_it_prints_the_credentials_and_counts(seeded):
    assert "demo / demo-health-2024" in seeded
    assert "admin / admin-health-2024" in seeded
    assert f"{Specialist.objects.count()} specialists" in seeded
    assert f"{Ambulance.objects.count()} ambulances" in seeded


def test_the_demo_patient_can_sign_in(seeded, client):
    response = client.post("/login/", {"username": "demo", "password": "demo-health-2024"})
    assert response.status_code == 302
    assert client.get("/").status_code == 200


def test_seeding_again_adds_the_directory_names_added_since_and_keeps_an_operators(db):
    from health.management.demo import seed_demo
    from health.models import Specialization

    seed_demo(days=1, environ={})
    kidneys = Specialization.objects.get(name="nephrologist")
    kidneys.synonyms = ["kidney specialist", "renal man"]  # an older seed's names, one an operator's
    kidneys.save()

    seed_demo(days=1, environ={})

    kidneys.refresh_from_db()
    assert "kidney doctor" in kidneys.synonyms and "renal man" in kidneys.synonyms
    assert len(kidneys.synonyms) == len(set(kidneys.synonyms))
