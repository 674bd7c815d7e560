"""The patient's long-term records: /api/appointment-history/ and /api/symptom-records/."""

from __future__ import annotations

from rest_framework import mixins, viewsets

from health.api.base import OwnedPrimaryKeyRelatedField, OwnedQuerysetMixin, StrictModelSerializer, StringListField
from health.models import Appointment, AppointmentHistory, SymptomRecord

# The longest free text a record takes (a symptom in the patient's words, a
# visit's summary): pages of it, far below what would bloat every list.
MAX_TEXT_LENGTH = 4000


class AppointmentHistorySerializer(StrictModelSerializer):
    appointment = OwnedPrimaryKeyRelatedField(queryset=Appointment.objects.all(), required=False, allow_null=True)

    class Meta:
        model = AppointmentHistory
        fields = ["id", "appointment", "specialist_name", "specialization", "scheduled_for", "summary", "created_at"]
        read_only_fields = ["created_at"]
        extra_kwargs = {"summary": {"max_length": MAX_TEXT_LENGTH}}


class SymptomRecordSerializer(StrictModelSerializer):
    symptoms = StringListField(help_text="Extracted symptoms, one string each.")

    class Meta:
        model = SymptomRecord
        fields = ["id", "text", "symptoms", "conversation", "recorded_at"]
        read_only_fields = ["conversation"]
        extra_kwargs = {"recorded_at": {"required": False}, "text": {"max_length": MAX_TEXT_LENGTH}}


class _ListRetrieveCreateViewSet(
    OwnedQuerysetMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    viewsets.GenericViewSet,
):
    """Records are appended, never edited: history is what happened."""


class AppointmentHistoryViewSet(_ListRetrieveCreateViewSet):
    """The patient's appointment history, kept even when an appointment is gone."""

    queryset = AppointmentHistory.objects.all()
    serializer_class = AppointmentHistorySerializer


class SymptomRecordViewSet(_ListRetrieveCreateViewSet):
    """Symptoms the patient reported, in their words and as extracted symptoms."""

    queryset = SymptomRecord.objects.all()
    serializer_class = SymptomRecordSerializer
