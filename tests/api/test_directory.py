"""The specialists directory: read-only, with filters that find bookable slots."""

from __future__ import annotations

import datetime as dt
import zoneinfo

from django.utils import timezone

from health.models import Appointment
from tests.api.helpers import ids
from tests.factories import AppointmentFactory, SlotFactory, SpecialistFactory, SpecializationFactory


def test_specialists_filter_by_specialization_name(alice_api):
    cardiology = SpecializationFactory(name="cardiologist")
    heart = SpecialistFactory(specialization=cardiology)
    SpecialistFactory(specialization=SpecializationFactory(name="dermatologist"))

    response = alice_api.get("/api/specialists/", {"specialization": "Cardiologist"})

    assert response.status_code == 200
    assert ids(response) == {heart.pk}
    assert response.json()["results"][0]["specialization"] == "cardiologist"


def test_inactive_specialists_and_their_slots_are_hidden(alice_api):
    retired = SpecialistFactory(active=False)
    slot = SlotFactory(specialist=retired)

    assert retired.pk not in ids(alice_api.get("/api/specialists/"))
    assert slot.pk not in ids(alice_api.get("/api/slots/"))
    assert alice_api.get(f"/api/specialists/{retired.pk}/").status_code == 404


def test_slots_filter_by_specialization_and_specialist(alice_api):
    cardiology = SpecializationFactory(name="cardiologist")
    first, second = SpecialistFactory(specialization=cardiology), SpecialistFactory(specialization=cardiology)
    a, b = SlotFactory(specialist=first), SlotFactory(specialist=second)
    SlotFactory(specialist=SpecialistFactory(specialization=SpecializationFactory(name="dermatologist")))

    assert ids(alice_api.get("/api/slots/", {"specialization": "cardiologist"})) == {a.pk, b.pk}
    assert ids(alice_api.get("/api/slots/", {"specialist": second.pk})) == {b.pk}


def test_free_slots_exclude_held_and_past_ones_but_not_cancelled_holds(alice, alice_api):
    free = SlotFactory()
    held = SlotFactory()
    AppointmentFactory(user=alice, slot=held)
    released = SlotFactory()
    AppointmentFactory(user=alice, slot=released, state=Appointment.State.CANCELLED)
    past_start = timezone.now() - dt.timedelta(hours=2)
    past = SlotFactory(starts_at=past_start, ends_at=past_start + dt.timedelta(minutes=30))

    everything = ids(alice_api.get("/api/slots/"))
    bookable = ids(alice_api.get("/api/slots/", {"free": "true"}))

    assert {free.pk, held.pk, released.pk, past.pk} <= everything
    assert bookable == {free.pk, released.pk}


def test_date_filters_are_days_in_the_patients_time_zone(alice, alice_api):
    """GIVEN alice lives in Berlin WHEN she asks for slots on one day
    THEN she gets the slots of that Berlin day, not of the UTC day."""
    berlin = zoneinfo.ZoneInfo("Europe/Berlin")
    day = timezone.localdate() + dt.timedelta(days=3)

    def at(hour: int, minute: int = 0, days: int = 0) -> dt.datetime:
        return dt.datetime.combine(day + dt.timedelta(days=days), dt.time(hour, minute), tzinfo=berlin)

    early = SlotFactory(starts_at=at(0, 30), ends_at=at(1))  # 23:30 UTC on the day before
    late = SlotFactory(starts_at=at(23, 15), ends_at=at(23, 45))
    next_day = SlotFactory(starts_at=at(0, 15, days=1), ends_at=at(0, 45, days=1))

    response = alice_api.get("/api/slots/", {"date_from": day.isoformat(), "date_to": day.isoformat()})

    assert response.status_code == 200
    assert ids(response) == {early.pk, late.pk}
    assert next_day.pk not in ids(response)


def test_bad_filters_answer_400_with_the_field(alice_api):
    assert "date_from" in alice_api.get("/api/slots/", {"date_from": "tomorrow"}).json()
    assert "specialist" in alice_api.get("/api/slots/", {"specialist": "dr-who"}).json()
    reversed_range = alice_api.get("/api/slots/", {"date_from": "2026-02-02", "date_to": "2026-02-01"})
    assert reversed_range.status_code == 400
    assert "date_to" in reversed_range.json()


def test_the_directory_is_read_only(alice_api):
    slot = SlotFactory()

    assert alice_api.post("/api/specializations/", {"name": "wizard"}, format="json").status_code == 405
    assert alice_api.post("/api/slots/", {}, format="json").status_code == 405
    assert alice_api.delete(f"/api/slots/{slot.pk}/").status_code == 405
