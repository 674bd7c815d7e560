"""Fixtures for the operator dashboard: the seeded demo, and one row of every
model so that every change page has something to show."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from django.apps import apps
from django.db import models
from django.test import Client
from django.utils import timezone

from health import models as m
from health.management.demo import seed_demo
from tests.factories import (
    AgentStepFactory,
    AlertFactory,
    AmbulanceFactory,
    AppointmentFactory,
    AppointmentHistoryFactory,
    ConversationFactory,
    DailyReportFactory,
    DeviceFactory,
    DoseEventFactory,
    EmergencyContactFactory,
    MedicationFactory,
    NotificationFactory,
    OutboundMessageFactory,
    PrescriptionFactory,
    ReminderFactory,
    SymptomRecordFactory,
    UserFactory,
    VitalReadingFactory,
)


def domain_models() -> list[type[models.Model]]:
    """Every model of the health and agents apps."""
    return [*apps.get_app_config("health").get_models(), *apps.get_app_config("agents").get_models()]


def populate(user=None) -> dict[type[models.Model], models.Model]:
    """Create one linked row of every domain model for ``user`` (a new patient
    by default); return them by model."""
    user = user or UserFactory()
    device = DeviceFactory(user=user)
    conversation = ConversationFactory(user=user, title="Booking a cardiologist")
    alert = AlertFactory(user=user, conversation=conversation, summary="SpO2 below 90% for 5 minutes")
    prescription = PrescriptionFactory(user=user)
    medication = MedicationFactory(user=user, prescription=prescription)
    reminder = ReminderFactory(medication=medication)
    appointment = AppointmentFactory(user=user, conversation=conversation)
    dispatch = m.Dispatch.objects.create(alert=alert, ambulance=AmbulanceFactory(), distance_km=1.2)
    rows = [
        user.profile,
        EmergencyContactFactory(user=user),
        device,
        VitalReadingFactory(device=device),
        conversation,
        AgentStepFactory(conversation=conversation, index=0, payload="Book me a cardiologist"),
        AgentStepFactory(conversation=conversation, index=1, role="planner", payload={"reason": "r", "action": "a"}),
        alert,
        m.AlertEvent.objects.create(alert=alert, kind="created", message="Soft SOS raised"),
        dispatch,
        dispatch.ambulance,
        appointment,
        appointment.slot,
        appointment.specialist,
        appointment.specialist.specialization,
        AppointmentHistoryFactory(user=user, appointment=appointment),
        SymptomRecordFactory(user=user, conversation=conversation),
        OutboundMessageFactory(user=user, alert=alert, status=m.OutboundMessage.Status.FAILED),
        NotificationFactory(user=user),
        prescription,
        medication,
        reminder,
        DoseEventFactory(reminder=reminder, due_at=timezone.now() - dt.timedelta(hours=2)),
        DailyReportFactory(user=user, anomalies=["low SpO2 at night"]),
        m.WatchFeed.objects.create(user=user, device=device, scenario="hypoxia"),
    ]
    return {type(row): row for row in rows}


@pytest.fixture
def seeded(db, settings, tmp_path: Path) -> None:
    """The demo data, with a few days of slots (the full month adds time, not coverage)."""
    settings.DATA_DIR = tmp_path
    seed_demo(days=3, environ={})


@pytest.fixture
def rows(alice) -> dict[type[models.Model], models.Model]:
    """One row of every model, alice's."""
    return populate(alice)


@pytest.fixture
def seeded_rows(seeded, alice) -> dict[type[models.Model], models.Model]:
    """The demo data plus one row of every model, alice's."""
    return populate(alice)


@pytest.fixture
def operator(client: Client, carol) -> Client:
    """A browser signed in as carol, the staff operator."""
    client.force_login(carol)
    return client
