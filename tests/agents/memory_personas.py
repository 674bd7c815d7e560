"""Small fixed personas for the memory tests: their history is built through the real models."""

from __future__ import annotations

import datetime as dt

from django.utils import timezone

from agents.tools import REGISTRY, ToolContext
from health.models import Appointment, Medication
from health.models.appointments import patient_zone
from tests.factories import (
    AppointmentFactory,
    ConversationFactory,
    SlotFactory,
    SpecialistFactory,
    SpecializationFactory,
    SymptomRecordFactory,
)


def complaint(user, text: str, days_ago: int, specialization: str = "", state: str = Appointment.State.COMPLETED):
    """A past complaint of ``user``; with ``specialization``, the appointment it led to."""
    when = timezone.now() - dt.timedelta(days=days_ago)
    conversation = ConversationFactory(user=user) if specialization else None
    record = SymptomRecordFactory(user=user, text=text, symptoms=[], conversation=conversation, recorded_at=when)
    record.appointment = None
    if specialization:
        specialist = SpecialistFactory(specialization=SpecializationFactory(name=specialization))
        slot = SlotFactory(specialist=specialist, starts_at=when + dt.timedelta(days=2))
        record.appointment = AppointmentFactory(
            user=user, slot=slot, conversation=conversation, state=state, symptoms=text
        )
    return record


def run(tool: str, ctx: ToolContext, **parameters):
    """Call ``tool`` as the runtime does: validated, then executed."""
    REGISTRY.get(tool).validate(parameters)
    return REGISTRY.get(tool)(ctx, **parameters)


def conditions(user, *names: str, allergies: tuple[str, ...] = ()) -> None:
    profile = user.profile
    profile.conditions = list(names)
    profile.allergies = list(allergies)
    profile.save()


def medication(user, name: str, strength: str = "") -> Medication:
    # Started today on the patient's own calendar, as the scheduler starts a medicine.
    today = timezone.now().astimezone(patient_zone(user)).date()
    return Medication.objects.create(user=user, name=name, strength=strength, times_per_day=1, start_date=today)
