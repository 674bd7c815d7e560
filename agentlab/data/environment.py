"""The generated world the synthetic trajectories run in (seed paper §6.2, with real tools).

Observations are never written by hand: every trajectory runs against these
rows through the real tools. The directory (every demo specialization, random
specialists, slots with random gaps, ambulances near a few cities) is built
once per generation run; each conversation gets a fresh random patient with a
profile, emergency contacts and past complaints dated before the query time,
inside a savepoint that is rolled back afterwards.

Everything is created inside the caller's transaction and rolled back by the
caller: nothing generated is left in the database. Existing specialists and
ambulances (the demo's) are switched off inside that transaction, so searches
only ever see the generated directory.
"""

from __future__ import annotations

import datetime as dt
import random
import zoneinfo
from dataclasses import dataclass

from django.contrib.auth import get_user_model

from health import demo_data
from health.models import (
    Alert,
    Ambulance,
    Device,
    Dispatch,
    EmergencyContact,
    PatientProfile,
    Slot,
    Specialist,
    Specialization,
    SymptomRecord,
)

FIRST_NAMES = (
    "Amara Aiko Bilal Camila Chen Dmitri Elena Emeka Farah Gabriel Hana Ines Ivan Jamal Julia Kofi Laila Leon "
    "Lucia Mateo Mei Nadia Noah Olga Omar Priya Quinn Rafael Rosa Sakura Samir Sofia Tariq Tomás Uma Valentina "
    "Wei Yara Yusuf Zoe Arjun Beatriz Carlos Daniela Erik Fatima George Helga Ingrid Jorge Kenji Lars Maya "
    "Nikhil Oksana Pablo Rania Stefan Thandiwe Ursula Victor Wanjiru Ximena Yosef Zainab Agnes Bruno Clara "
    "Derek Esther Frank Gloria Harold Irene Joan Kurt Linda Martin Nora Oscar Peggy Ruth Stanley Thelma Walter"
).split()
LAST_NAMES = (
    "Abara Alvarez Andersson Bauer Becker Chowdhury Costa Dubois Eriksen Fernandes Fischer Garcia Gupta Haddad "
    "Hansen Ibrahim Ivanova Jensen Kaur Kim Kowalski Kumar Larsen Lopez Mahlangu Martin Mensah Moreau Müller "
    "Nakamura Nguyen Novak Okafor Oliveira Petrov Popescu Quispe Rahman Rossi Santos Schmidt Silva Singh "
    "Suzuki Tanaka Torres Tran Urquhart Varga Wagner Walker Wang Weber Yamamoto Yilmaz Zhang Zielinski "
    "Brown Clarke Davies Evans Green Hughes Johnson Miller O'Brien Patel Roberts Taylor Thompson Wilson"
).split()
HOSPITAL_WORDS = (
    "Riverside Northgate Lakeview St. Mary's Hillcrest Harbor Meadowbrook Central Westside Oakwood Sunrise "
    "Parkside Greenfield Bayview Maple"
).split()


@dataclass(frozen=True)
class City:
    name: str
    timezone: str
    latitude: float
    longitude: float
    area_codes: tuple[str, ...]


CITIES = (
    City("San Francisco", "America/Los_Angeles", 37.7749, -122.4194, ("415", "628")),
    City("Seattle", "America/Los_Angeles", 47.6062, -122.3321, ("206",)),
    City("New York", "America/New_York", 40.7128, -74.0060, ("212", "646", "917")),
    City("Boston", "America/New_York", 42.3601, -71.0589, ("617",)),
    City("Chicago", "America/Chicago", 41.8781, -87.6298, ("312", "773")),
    City("Denver", "America/Denver", 39.7392, -104.9903, ("303",)),
    City("Austin", "America/Chicago", 30.2672, -97.7431, ("512",)),
    City("Miami", "America/New_York", 25.7617, -80.1918, ("305",)),
)

CLINIC_HOURS = ((dt.time(9, 0), dt.time(13, 0)), (dt.time(14, 0), dt.time(17, 30)))
SLOT_MINUTES = 30


def person_name(rng: random.Random) -> tuple[str, str]:
    return rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)


def phone_number(rng: random.Random, city: City) -> str:
    # 555-01xx numbers are reserved for fiction and pass E.164 validation.
    return f"+1{rng.choice(city.area_codes)}55501{rng.randrange(100):02d}"


class Ids:
    """Random, unique primary keys: ids the model must copy, not guess."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[tuple[str, int]] = set()

    def new(self, kind: str, low: int = 10_000, high: int = 9_999_999) -> int:
        while True:
            value = self.rng.randrange(low, high)
            if (kind, value) not in self.used:
                self.used.add((kind, value))
                return value


@dataclass
class Directory:
    start: dt.datetime  # the earliest query time the directory serves
    days: int
    specializations: dict[str, Specialization]


def build_directory(rng: random.Random, ids: Ids, *, start: dt.datetime, days: int = 60) -> Directory:
    """Every demo specialization with 2-3 random specialists and slots (some taken) for ``days`` days."""
    Specialist.objects.filter(active=True).update(active=False)
    Ambulance.objects.filter(available=True).update(available=False)
    specializations: dict[str, Specialization] = {}
    specialists: list[Specialist] = []
    for row in demo_data.SPECIALIZATIONS:
        specialization, _ = Specialization.objects.get_or_create(
            name=row.name, defaults={"description": row.description, "synonyms": row.synonyms}
        )
        specializations[row.name] = specialization
        for _ in range(rng.choice((2, 2, 3))):
            first, last = person_name(rng)
            city = rng.choice(CITIES)
            specialists.append(
                Specialist(
                    pk=ids.new("specialist"),
                    name=f"Dr. {first} {last}",
                    specialization=specialization,
                    hospital=f"{rng.choice(HOSPITAL_WORDS)} {rng.choice(('Clinic', 'Hospital', 'Medical Center'))}"
                    f" {ids.new('hospital', 1, 10**6)}",
                    latitude=city.latitude,
                    longitude=city.longitude,
                    active=True,
                )
            )
    Specialist.objects.bulk_create(specialists)
    slots: list[Slot] = []
    tz = zoneinfo.ZoneInfo("America/Chicago")
    for specialist in specialists:
        for offset in range(days):
            day = start.astimezone(tz).date() + dt.timedelta(days=offset)
            if day.weekday() >= 5:
                continue
            for opens, closes in CLINIC_HOURS:
                moment = dt.datetime.combine(day, opens, tzinfo=tz)
                stop = dt.datetime.combine(day, closes, tzinfo=tz)
                while moment + dt.timedelta(minutes=SLOT_MINUTES) <= stop:
                    if rng.random() < 0.45:  # the others are taken
                        slots.append(
                            Slot(
                                specialist=specialist,
                                starts_at=moment,
                                ends_at=moment + dt.timedelta(minutes=SLOT_MINUTES),
                            )
                        )
                    moment += dt.timedelta(minutes=SLOT_MINUTES)
    Slot.objects.bulk_create(slots, batch_size=2000)
    ambulances = []
    for city in CITIES:
        for _ in range(3):
            ambulances.append(
                Ambulance(
                    code=f"AMB-{ids.new('ambulance', 100, 99_999)}",
                    operator=f"{city.name} EMS",
                    phone=phone_number(rng, city),
                    latitude=city.latitude + rng.uniform(-0.08, 0.08),
                    longitude=city.longitude + rng.uniform(-0.08, 0.08),
                    available=True,
                )
            )
    Ambulance.objects.bulk_create(ambulances)
    return Directory(start=start, days=days, specializations=specializations)


@dataclass
class Patient:
    user: object
    city: City
    now: dt.datetime  # the query time of this conversation

    @property
    def tz(self) -> zoneinfo.ZoneInfo:
        return zoneinfo.ZoneInfo(self.city.timezone)


def make_patient(rng: random.Random, ids: Ids, directory: Directory) -> Patient:
    """A random patient at a random query time inside the directory's window."""
    user_model = get_user_model()
    first, last = person_name(rng)
    pk = ids.new("user")
    user = user_model.objects.create(pk=pk, username=f"gen-{pk}", first_name=first, last_name=last)
    city = rng.choice(CITIES)
    latitude = city.latitude + rng.uniform(-0.05, 0.05)
    longitude = city.longitude + rng.uniform(-0.05, 0.05)
    PatientProfile.objects.create(
        user=user,
        timezone=city.timezone,
        home_latitude=round(latitude, 5),
        home_longitude=round(longitude, 5),
        phone=phone_number(rng, city),
    )
    numbers: set[str] = set()
    for priority in range(1, rng.choice((2, 2, 3)) + 1):
        contact_first, contact_last = person_name(rng)
        number = phone_number(rng, city)
        while number in numbers:
            number = phone_number(rng, city)
        numbers.add(number)
        EmergencyContact.objects.create(
            user=user,
            name=f"{contact_first} {contact_last}",
            relation=rng.choice(("spouse", "daughter", "son", "sister", "brother", "friend", "neighbour")),
            phone=number,
            priority=priority,
        )
    if rng.random() < 0.5:
        Device.objects.create(
            user=user,
            name="Watch",
            token_prefix=f"g{pk % 10**7:07d}",
            token_hash=f"{ids.new('token'):064d}",
            last_latitude=round(latitude + rng.uniform(-0.02, 0.02), 5),
            last_longitude=round(longitude + rng.uniform(-0.02, 0.02), 5),
            last_located_at=directory.start,
        )
    now = directory.start + dt.timedelta(minutes=rng.randrange(0, (directory.days - 21) * 24 * 60))
    return Patient(user=user, city=city, now=now.replace(second=0, microsecond=0))


def add_past_complaints(rng: random.Random, patient: Patient, texts: list[tuple[str, list[str]]]) -> None:
    """Past symptom records (text, symptoms) dated 2 weeks to 2 years before the query time."""
    for text, symptoms in texts:
        days_before = rng.randrange(14, 730)
        SymptomRecord.objects.create(
            user=patient.user,
            text=text,
            symptoms=symptoms,
            recorded_at=patient.now - dt.timedelta(days=days_before, minutes=rng.randrange(0, 1440)),
        )


SOFT_CONDITIONS = {
    "hypoxia": lambda rng: {"heart_rate": rng.randrange(95, 125), "oxygen": rng.randrange(82, 90)},
    "bradycardia": lambda rng: {"heart_rate": rng.randrange(32, 40), "oxygen": rng.randrange(94, 99)},
    "tachycardia_at_rest": lambda rng: {"heart_rate": rng.randrange(125, 165), "oxygen": rng.randrange(93, 99)},
    "hypertensive_crisis": lambda rng: {
        "heart_rate": rng.randrange(80, 115),
        "systolic_bp": rng.randrange(181, 215),
        "diastolic_bp": rng.randrange(121, 135),
    },
}


def soft_alert(rng: random.Random, patient: Patient) -> Alert:
    condition = rng.choice(sorted(SOFT_CONDITIONS))
    vitals = SOFT_CONDITIONS[condition](rng)
    if rng.random() < 0.4:
        vitals["sleep"] = {
            "deep": rng.randrange(20, 110),
            "light": rng.randrange(120, 260),
            "rem": rng.randrange(30, 120),
            "awake": rng.randrange(5, 60),
        }
    return Alert.objects.create(
        user=patient.user,
        kind=Alert.Kind.SOFT,
        condition=condition,
        summary=f"Abnormal vitals: {condition.replace('_', ' ')}",
        vitals_snapshot=vitals,
    )


def hard_alert(patient: Patient) -> Alert:
    return Alert.objects.create(user=patient.user, kind=Alert.Kind.HARD, state=Alert.State.OPEN)


def dispatched_alert(rng: random.Random, patient: Patient) -> Alert:
    """An open hard SOS with an ambulance on its way (what a hard SOS end finds)."""
    alert = hard_alert(patient)
    ambulance = rng.choice(list(Ambulance.objects.filter(available=True).order_by("pk")))
    Ambulance.objects.filter(pk=ambulance.pk).update(available=False)
    Dispatch.objects.create(alert=alert, ambulance=ambulance, distance_km=round(rng.uniform(0.5, 12), 2))
    return alert
