"""OpenAPI descriptions the schema generator cannot infer on its own.

Imported by ``health.api.urls`` so that the extension is registered before
the schema is generated.
"""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiAuthenticationExtension, OpenApiSerializerFieldExtension


class DeviceTokenScheme(OpenApiAuthenticationExtension):
    target_class = "health.auth.DeviceTokenAuthentication"
    name = "deviceToken"

    def get_security_definition(self, auto_schema) -> dict:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "'Device <token>' from pairing a device. Accepted only by POST /api/vitals/.",
        }


class LocalTimeField(OpenApiSerializerFieldExtension):
    """A time of day (a reminder's, the evening report's) is wall-clock time in the patient's time
    zone, written "HH:MM:SS" with no offset. drf-spectacular's ``format: time`` is RFC 3339's
    full-time, which requires an offset: every profile and reminder answered "violated" its own schema,
    and schema-valid inputs carried offsets the API drops (found by tests/api/test_schema_fuzz.py)."""

    target_class = "rest_framework.fields.TimeField"

    def map_serializer_field(self, auto_schema, direction) -> dict:
        return {"type": "string", "pattern": r"^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,6})?)?$", "example": "20:00:00"}
