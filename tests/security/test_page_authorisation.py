"""Every browser page that takes an object's id or a day answers another patient 404 and changes
nothing of theirs; signed out, every page but sign-in sends to sign-in. The matrix must name every
such page of frontend/urls.py: a page added later without an entry fails here (the API's matrix is
tests/api/test_authorisation_matrix.py)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.core.files.base import ContentFile
from django.test import Client
from django.urls import URLPattern, reverse
from django.utils import timezone

from frontend import urls as frontend_urls
from health.models import Appointment, DailyReport, DoseEvent, Medication, Prescription
from health.reports.generate import build
from tests.factories import (
    AppointmentFactory,
    DoseEventFactory,
    MedicationFactory,
    PrescriptionFactory,
    ReminderFactory,
)


@dataclass(frozen=True)
class Page:
    make: Callable  # bob -> (the object, the URL's kwargs)
    methods: tuple[str, ...]
    state: Callable  # the object -> what a write would change


def _appointment(bob, action=None):
    appointment = AppointmentFactory(user=bob, state=Appointment.State.CONFIRMED)
    kwargs = {"pk": appointment.pk} | ({"action": action} if action else {})
    return appointment, kwargs


def _medication(bob):
    medication = MedicationFactory(user=bob, clock_times=["08:00"], times_per_day=1)
    return medication, {"pk": medication.pk}


def _dose(bob):
    dose = DoseEventFactory(reminder=ReminderFactory(medication=MedicationFactory(user=bob)))
    return dose, {"pk": dose.pk, "action": "taken"}


def _reminder(bob):
    reminder = ReminderFactory(medication=MedicationFactory(user=bob))
    return reminder, {"pk": reminder.pk}


def _prescription(bob):
    prescription = PrescriptionFactory(user=bob, parse_status=Prescription.ParseStatus.FAILED)
    prescription.image.save("rx.jpg", ContentFile(b"\xff\xd8\xff\xe0 a photo \xff\xd9"))
    return prescription, {"pk": prescription.pk}


def _report(bob):
    report = build(bob, timezone.localdate() - dt.timedelta(days=1))
    DailyReport.objects.filter(pk=report.pk).update(narrative="bob's private evening report")
    return report, {"day": report.date.isoformat()}


def _row(model):
    return lambda obj: model.objects.filter(pk=obj.pk).values().first()


MATRIX: dict[str, Page] = {
    "appointment-page": Page(_appointment, ("get",), _row(Appointment)),
    "appointment-page-action": Page(lambda bob: _appointment(bob, "cancel"), ("post",), _row(Appointment)),
    "medication-times": Page(_medication, ("post",), _row(Medication)),
    "medication-stop": Page(_medication, ("post",), _row(Medication)),
    "dose-action": Page(_dose, ("post",), _row(DoseEvent)),
    # Taking early makes a dose row: bob's reminder must keep none.
    "dose-take-early": Page(_reminder, ("post",), lambda obj: list(DoseEvent.objects.filter(reminder=obj).values())),
    "prescription-page": Page(_prescription, ("get",), _row(Prescription)),
    "prescription-page-image": Page(_prescription, ("get",), _row(Prescription)),
    "prescription-page-retry": Page(_prescription, ("post",), _row(Prescription)),
    "prescription-page-delete": Page(_prescription, ("post",), _row(Prescription)),
    "report-page": Page(_report, ("get",), _row(DailyReport)),
    "report-pdf": Page(_report, ("get",), _row(DailyReport)),
}
# Open to anyone: signing in and out, and the liveness check (it says only that the database answers).
PUBLIC = {"login", "logout", "healthz"}


def _pages() -> list[URLPattern]:
    return [p for p in frontend_urls.urlpatterns if isinstance(p, URLPattern) and p.name]


def test_every_page_with_an_id_or_a_day_is_in_the_matrix():
    with_parameters = {p.name for p in _pages() if "<" in str(p.pattern)}
    assert with_parameters == set(MATRIX), "describe each new page in MATRIX"


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path


@pytest.mark.parametrize("name", sorted(MATRIX))
def test_another_patient_gets_404_and_changes_nothing(name, alice, bob):
    page = MATRIX[name]
    obj, kwargs = page.make(bob)
    before = page.state(obj)
    client = Client()
    client.force_login(alice)

    for method in page.methods:
        response = getattr(client, method)(reverse(name, kwargs=kwargs), {"times": "09:00"})
        assert response.status_code == 404, f"{method.upper()} {name} as alice answered {response.status_code}"
        assert b"bob's private" not in response.content

    assert page.state(obj) == before, f"alice's request changed bob's {name}"


@pytest.mark.parametrize("name", sorted(p.name for p in _pages() if p.name not in PUBLIC))
def test_signed_out_every_page_sends_to_sign_in(name, bob):
    kwargs = MATRIX[name].make(bob)[1] if name in MATRIX else {}
    response = Client().get(reverse(name, kwargs=kwargs))

    assert response.status_code == 302 and response["Location"].startswith("/login/"), (name, response.status_code)


@pytest.mark.parametrize("name", sorted(MATRIX))
def test_the_owner_reaches_the_same_url(name, bob):
    """The control: the 404s above come from whose object it is, not from a URL that leads nowhere."""
    page = MATRIX[name]
    _obj, kwargs = page.make(bob)
    client = Client()
    client.force_login(bob)

    for method in page.methods:
        response = getattr(client, method)(reverse(name, kwargs=kwargs), {"times": "09:00"})
        assert response.status_code in (200, 302), f"{method.upper()} {name} as bob answered {response.status_code}"
