"""The audit log (django-auditlog): who read or changed whose health records.

Every change to the models below is recorded with its actor (the signed-in user of the request,
set by ``AuditlogMiddleware``; "system" for workers and beat), and every record an operator opens
in the admin is recorded as an access (``health.admin.base.AccessLoggedAdmin``). Each entry names
the patient the record belongs to (``additional_data["patient_id"]``), which the admin's audit
list shows. Vitals arrive with ``bulk_create`` and so are not logged one by one; an operator
opening a reading is.
"""

from __future__ import annotations

from auditlog.registry import auditlog
from django.contrib.auth import get_user_model

# The models holding a patient's health data, by name, and the columns not worth an entry.
AUDITED: dict[str, list[str]] = {
    "PatientProfile": [],
    "EmergencyContact": [],
    # A token's hash is a credential, and last_seen_at changes with every batch of readings.
    "Device": ["token_hash", "last_seen_at"],
    "VitalReading": [],
    "SymptomRecord": [],
    "AppointmentHistory": [],
    "Appointment": [],
    "Alert": [],
    "Prescription": [],
    "Medication": [],
    "Reminder": [],
    "DoseEvent": [],
    "DailyReport": [],
}


def audited_models() -> list[type]:
    from health import models

    return [getattr(models, name) for name in AUDITED]


def register() -> None:
    """Register the models with django-auditlog (from ``HealthConfig.ready``)."""
    from health.privacy.records import owned_models

    paths = {entry.model: entry.path for entry in owned_models()}
    for model in audited_models():
        model.get_additional_data = _patient_of(paths[model])
        auditlog.register(model, exclude_fields=AUDITED[model.__name__])


def _patient_of(path: str):
    """auditlog stores what ``get_additional_data`` returns on every entry: here, whose record it is."""
    hops = path.split("__")[:-1]

    def get_additional_data(instance) -> dict:
        owner = instance
        for hop in hops:
            owner = getattr(owner, hop)
        user_id = owner.user_id
        username = get_user_model().objects.filter(pk=user_id).values_list("username", flat=True).first()
        return {"patient_id": user_id, "patient": username}

    return get_additional_data
