"""/api/profile/: the signed-in patient's own profile (one per user)."""

from __future__ import annotations

import datetime as dt

from django.utils import timezone
from rest_framework import generics, serializers

from health.api.base import E164PhoneField, StrictModelSerializer, StringListField
from health.models import PatientProfile

# A date of birth is a real one: not in the future, and not before 1900 (a
# year typed wrong, which would make every age-based check meaningless).
EARLIEST_BIRTH_DATE = dt.date(1900, 1, 1)


class PatientProfileSerializer(StrictModelSerializer):
    phone = E164PhoneField(required=False, allow_blank=True, help_text="With country code, e.g. +14155550123.")
    conditions = StringListField()
    allergies = StringListField()
    display_name = serializers.CharField(read_only=True)

    class Meta:
        model = PatientProfile
        fields = [
            "display_name",
            "date_of_birth",
            "sex",
            "timezone",
            "phone",
            "home_address",
            "home_latitude",
            "home_longitude",
            "conditions",
            "allergies",
            "sms_opt_in",
            "reminder_sms",
            "tell_carer_of_missed_doses",
            "report_time",
            "updated_at",
        ]
        read_only_fields = ["updated_at"]
        # The model's validators say the same; as bounds, the schema states them too.
        extra_kwargs = {
            "home_latitude": {"min_value": -90, "max_value": 90},
            "home_longitude": {"min_value": -180, "max_value": 180},
        }

    def validate_date_of_birth(self, value: dt.date | None) -> dt.date | None:
        if value is None:
            return value
        if value < EARLIEST_BIRTH_DATE:
            raise serializers.ValidationError(f"Must not be before {EARLIEST_BIRTH_DATE:%Y-%m-%d}.")
        if value > timezone.localdate():
            raise serializers.ValidationError("Must not be in the future.")
        return value

    def validate(self, attrs: dict) -> dict:
        # A home location is used to find the nearest ambulance: half of one
        # would silently send it to the equator or the prime meridian.
        latitude = attrs.get("home_latitude", getattr(self.instance, "home_latitude", None))
        longitude = attrs.get("home_longitude", getattr(self.instance, "home_longitude", None))
        if (latitude is None) != (longitude is None):
            missing = "home_longitude" if longitude is None else "home_latitude"
            raise serializers.ValidationError({missing: "Give latitude and longitude together."})
        return attrs


class PatientProfileView(generics.RetrieveUpdateAPIView):
    """Read or change the signed-in patient's profile; it is created, empty,
    the first time it is asked for."""

    serializer_class = PatientProfileSerializer
    http_method_names = ["get", "patch", "head", "options"]

    def get_object(self) -> PatientProfile:
        profile, _ = PatientProfile.objects.select_related("user").get_or_create(user=self.request.user)
        return profile
