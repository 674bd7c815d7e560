"""OpenAPI descriptions the schema generator cannot infer on its own.

Imported by ``health.api.urls`` so that the extension is registered before
the schema is generated.
"""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiAuthenticationExtension


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
