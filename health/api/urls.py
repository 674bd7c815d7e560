"""REST routes of the Health Manager, mounted at /api/. Every route acts for
the signed-in user only; tests/api/test_authorisation_matrix.py holds the list."""

from __future__ import annotations

from django.urls import path
from rest_framework.routers import SimpleRouter

from health.api.account import AccountArchiveView, AccountDeleteView, AccountExportView
from health.api.alerts import AlertViewSet
from health.api.appointments import AppointmentViewSet
from health.api.contacts import EmergencyContactViewSet
from health.api.devices import DeviceViewSet
from health.api.directory import SlotViewSet, SpecialistViewSet, SpecializationViewSet
from health.api.medications import DoseEventViewSet, MedicationViewSet, ReminderViewSet
from health.api.messaging import NotificationViewSet, OutboundMessageViewSet
from health.api.prescriptions import PrescriptionViewSet
from health.api.profile import PatientProfileView
from health.api.records import AppointmentHistoryViewSet, SymptomRecordViewSet
from health.api.reports import DailyReportViewSet
from health.api.schema import DeviceTokenScheme  # noqa: F401  (registers the auth scheme)
from health.api.sos import SosViewSet
from health.api.vitals import VitalReadingViewSet
from health.api.watch import WatchSimulatorView

router = SimpleRouter(trailing_slash=True)
router.register("emergency-contacts", EmergencyContactViewSet, basename="emergency-contact")
router.register("devices", DeviceViewSet, basename="device")
router.register("specializations", SpecializationViewSet, basename="specialization")
router.register("specialists", SpecialistViewSet, basename="specialist")
router.register("slots", SlotViewSet, basename="slot")
router.register("appointments", AppointmentViewSet, basename="appointment")
router.register("appointment-history", AppointmentHistoryViewSet, basename="appointment-history")
router.register("symptom-records", SymptomRecordViewSet, basename="symptom-record")
router.register("vitals", VitalReadingViewSet, basename="vital-reading")
router.register("alerts", AlertViewSet, basename="alert")
router.register("sos", SosViewSet, basename="sos")
router.register("outbox", OutboundMessageViewSet, basename="outbound-message")
router.register("notifications", NotificationViewSet, basename="notification")
router.register("prescriptions", PrescriptionViewSet, basename="prescription")
router.register("medications", MedicationViewSet, basename="medication")
router.register("reminders", ReminderViewSet, basename="reminder")
router.register("dose-events", DoseEventViewSet, basename="dose-event")
router.register("daily-reports", DailyReportViewSet, basename="daily-report")

urlpatterns = [
    path("profile/", PatientProfileView.as_view(), name="patient-profile"),
    path("profile/export/", AccountExportView.as_view(), name="account-export"),
    path("profile/export.zip", AccountArchiveView.as_view(), name="account-archive"),
    path("profile/delete/", AccountDeleteView.as_view(), name="account-delete"),
    path("watch/simulator/", WatchSimulatorView.as_view(), name="watch-simulator"),
    *router.urls,
]
