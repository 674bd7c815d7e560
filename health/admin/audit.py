"""The audit log in the operator dashboard: django-auditlog's list, with whose record each entry is."""

from __future__ import annotations

from auditlog.admin import LogEntryAdmin
from auditlog.models import LogEntry
from django.contrib import admin


class PatientLogEntryAdmin(LogEntryAdmin):
    list_display = ["created", "patient", "resource_url", "action", "msg_short", "user_url"]
    search_fields = [*LogEntryAdmin.search_fields, "additional_data__patient"]

    @admin.display(description="Patient")
    def patient(self, entry: LogEntry) -> str:
        data = entry.additional_data or {}
        return data.get("patient") or (f"#{data['patient_id']}" if data.get("patient_id") else "")


admin.site.unregister(LogEntry)
admin.site.register(LogEntry, PatientLogEntryAdmin)
