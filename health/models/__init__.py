"""Health Manager domain models, one module per domain."""

from health.models.alerts import Alert, AlertEvent, Ambulance, Dispatch
from health.models.appointments import (
    Appointment,
    AppointmentClash,
    AppointmentHistory,
    InvalidTransition,
    SlotUnavailable,
    SymptomRecord,
)
from health.models.directory import Slot, Specialist, Specialization
from health.models.messaging import Notification, OutboundMessage
from health.models.patients import Device, EmergencyContact, PatientProfile
from health.models.prescriptions import DoseEvent, Medication, Prescription, Reminder
from health.models.reports import DailyReport
from health.models.simulator import WatchFeed
from health.models.vitals import VitalReading

__all__ = [
    "Alert",
    "AlertEvent",
    "Ambulance",
    "Appointment",
    "AppointmentClash",
    "AppointmentHistory",
    "DailyReport",
    "Device",
    "Dispatch",
    "DoseEvent",
    "EmergencyContact",
    "InvalidTransition",
    "Medication",
    "Notification",
    "OutboundMessage",
    "PatientProfile",
    "Prescription",
    "Reminder",
    "Slot",
    "SlotUnavailable",
    "Specialist",
    "Specialization",
    "SymptomRecord",
    "VitalReading",
    "WatchFeed",
]
