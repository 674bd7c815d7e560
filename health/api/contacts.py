"""/api/emergency-contacts/: the people messaged when the patient raises a hard SOS."""

from __future__ import annotations

from rest_framework import serializers, viewsets

from health.api.base import E164PhoneField, OwnedQuerysetMixin, StrictModelSerializer
from health.models import EmergencyContact


class EmergencyContactSerializer(StrictModelSerializer):
    phone = E164PhoneField(help_text="With country code, e.g. +14155550123; stored in E.164.")

    class Meta:
        model = EmergencyContact
        fields = ["id", "name", "relation", "phone", "priority", "is_carer", "created_at"]
        read_only_fields = ["created_at"]

    def validate_phone(self, phone: str) -> str:
        # The database refuses a second contact with the same number; say so
        # as a field error instead of failing the request.
        user = self.context["request"].user
        others = EmergencyContact.objects.filter(user=user, phone=phone)
        if self.instance is not None:
            others = others.exclude(pk=self.instance.pk)
        if others.exists():
            raise serializers.ValidationError("You already have an emergency contact with this number.")
        return phone


class EmergencyContactViewSet(OwnedQuerysetMixin, viewsets.ModelViewSet):
    """The patient's emergency contacts, messaged in priority order on a hard SOS.
    Phone numbers are accepted with their country code and stored in E.164."""

    queryset = EmergencyContact.objects.all()
    serializer_class = EmergencyContactSerializer
