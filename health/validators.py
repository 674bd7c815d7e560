"""Field validators shared by the health models and their serializers."""

from __future__ import annotations

import zoneinfo

import phonenumbers
from django.core.exceptions import ValidationError


def normalize_e164(raw: str) -> str:
    """Return ``raw`` as an E.164 number (``+4915112345678``) or raise ValidationError.

    Only numbers written with their country code are accepted: guessing a
    region for an emergency number would be worse than asking again.
    """
    text = (raw or "").strip()
    if not text.startswith("+"):
        raise ValidationError("Enter the number with its country code, e.g. +14155550123.", code="phone_format")
    try:
        number = phonenumbers.parse(text, None)
    except phonenumbers.NumberParseException as exc:
        raise ValidationError(f"Not a phone number: {exc}.", code="phone_format") from exc
    if not phonenumbers.is_valid_number(number):
        raise ValidationError("This phone number is not valid.", code="phone_invalid")
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)


def validate_e164(value: str) -> None:
    normalize_e164(value)
    if normalize_e164(value) != value:
        raise ValidationError("Store phone numbers in E.164 form, e.g. +14155550123.", code="phone_format")


def validate_timezone(value: str) -> None:
    try:
        zoneinfo.ZoneInfo(value)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError) as exc:
        raise ValidationError(f"Unknown time zone {value!r}.", code="timezone") from exc


def validate_latitude(value: float) -> None:
    if not -90.0 <= value <= 90.0:
        raise ValidationError("Latitude must be between -90 and 90.", code="latitude")


def validate_longitude(value: float) -> None:
    if not -180.0 <= value <= 180.0:
        raise ValidationError("Longitude must be between -180 and 180.", code="longitude")
