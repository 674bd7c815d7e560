"""factory_boy factories for the domain models."""

from __future__ import annotations

import datetime as dt

import factory
from django.contrib.auth import get_user_model
from django.utils import timezone

from agents.models import AgentStep, Conversation
from health import models as m


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda o: f"{o.username}@example.org")
    password = factory.django.Password("correct horse battery")

    @factory.post_generation
    def profile(obj, create, extracted, **kwargs):
        if create:
            m.PatientProfile.objects.get_or_create(
                user=obj, defaults={"home_latitude": 52.52, "home_longitude": 13.405, "timezone": "Europe/Berlin"}
            )


class DeviceFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = m.Device

    user = factory.SubFactory(UserFactory)
    name = "Wrist watch"
    kind = m.Device.Kind.WATCH

    @classmethod
    def _create(cls, model_class, *args, **kwargs):
        device = model_class(*args, **kwargs)
        device.issue_token()
        device.save()
        return device


class EmergencyContactFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = m.EmergencyContact

    user = factory.SubFactory(UserFactory)
    name = factory.Sequence(lambda n: f"Contact {n}")
    relation = "daughter"
    phone = factory.Sequence(lambda n: f"+1415555{n % 10000:04d}")


class SpecializationFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = m.Specialization
        django_get_or_create = ("name",)

    name = "general physician"


class SpecialistFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = m.Specialist

    name = factory.Sequence(lambda n: f"Dr. Test {n}")
    specialization = factory.SubFactory(SpecializationFactory)
    hospital = "City Hospital"
    latitude = 52.5
    longitude = 13.4


class SlotFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = m.Slot

    specialist = factory.SubFactory(SpecialistFactory)
    starts_at = factory.Sequence(lambda n: timezone.now().replace(microsecond=0) + dt.timedelta(days=1, hours=n))
    ends_at = factory.LazyAttribute(lambda o: o.starts_at + dt.timedelta(minutes=30))


class AppointmentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = m.Appointment

    user = factory.SubFactory(UserFactory)
    slot = factory.SubFactory(SlotFactory)
    specialist = factory.LazyAttribute(lambda o: o.slot.specialist)
    symptoms = "headache"


class AmbulanceFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = m.Ambulance

    code = factory.Sequence(lambda n: f"AMB-{n:03d}")
    phone = factory.Sequence(lambda n: f"+1415556{n % 10000:04d}")
    latitude = 52.5
    longitude = 13.4


class AlertFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = m.Alert

    user = factory.SubFactory(UserFactory)
    kind = m.Alert.Kind.SOFT
    condition = factory.Sequence(lambda n: f"condition-{n}")


class VitalReadingFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = m.VitalReading

    device = factory.SubFactory(DeviceFactory)
    user = factory.LazyAttribute(lambda o: o.device.user)
    measured_at = factory.Sequence(lambda n: timezone.now().replace(microsecond=0) - dt.timedelta(minutes=n))
    heart_rate = 72
    spo2 = 98.0


class NotificationFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = m.Notification

    user = factory.SubFactory(UserFactory)
    kind = "info"
    title = "Hello"


class OutboundMessageFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = m.OutboundMessage

    user = factory.SubFactory(UserFactory)
    recipient = "+14155550100"
    recipient_kind = m.OutboundMessage.RecipientKind.EMERGENCY_CONTACT
    body = "Test message"
    idempotency_key = factory.Sequence(lambda n: f"test-{n}")


class PrescriptionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = m.Prescription

    user = factory.SubFactory(UserFactory)
    ocr_text = "Amoxicillin 500 mg, 1 tablet three times a day for 5 days"


class MedicationFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = m.Medication

    user = factory.SubFactory(UserFactory)
    name = "Amoxicillin"
    strength = "500 mg"
    dose = "1 tablet"
    times_per_day = 3
    start_date = factory.LazyFunction(lambda: timezone.localdate())


class ReminderFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = m.Reminder

    medication = factory.SubFactory(MedicationFactory)
    time_of_day = dt.time(8, 0)


class DoseEventFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = m.DoseEvent

    reminder = factory.SubFactory(ReminderFactory)
    user = factory.LazyAttribute(lambda o: o.reminder.medication.user)
    due_at = factory.LazyFunction(timezone.now)


class DailyReportFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = m.DailyReport

    user = factory.SubFactory(UserFactory)
    date = factory.Sequence(lambda n: timezone.localdate() - dt.timedelta(days=n))


class SymptomRecordFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = m.SymptomRecord

    user = factory.SubFactory(UserFactory)
    text = "I have a headache"
    symptoms = ["headache"]


class AppointmentHistoryFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = m.AppointmentHistory

    user = factory.SubFactory(UserFactory)
    specialist_name = "Dr. Past"
    specialization = "neurologist"
    scheduled_for = factory.LazyFunction(lambda: timezone.now() - dt.timedelta(days=30))


class ConversationFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Conversation

    user = factory.SubFactory(UserFactory)


class AgentStepFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = AgentStep

    conversation = factory.SubFactory(ConversationFactory)
    index = factory.Sequence(lambda n: n)
    role = AgentStep.Role.USER
    payload = "hello"
