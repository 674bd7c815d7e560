"""Device-token authentication for wearables, and the scope such a token gets.

A device token authenticates as the device's owner, but only for endpoints
that opt in with ``device_scope = True`` (vitals ingestion). Everything else
answers 403 to a device: a lost watch must not read the patient's records.
"""

from __future__ import annotations

from rest_framework import authentication, exceptions, permissions

from health.models import Device


class DeviceTokenAuthentication(authentication.BaseAuthentication):
    keyword = "Device"

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].lower() != self.keyword.lower().encode():
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("Authorization header must be 'Device <token>'.")
        try:
            raw = header[1].decode()
        except UnicodeError as exc:
            raise exceptions.AuthenticationFailed("Invalid device token.") from exc
        device = Device.for_token(raw)
        if device is None or not device.user.is_active:
            raise exceptions.AuthenticationFailed("Invalid or revoked device token.")
        device.touch()
        return (device.user, device)

    def authenticate_header(self, request) -> str:
        return self.keyword


def request_device(request) -> Device | None:
    return request.auth if isinstance(request.auth, Device) else None


class DeviceScope(permissions.BasePermission):
    message = "Device tokens may only post readings; sign in as the patient for this."

    def has_permission(self, request, view) -> bool:
        if request_device(request) is None:
            return True
        return bool(getattr(view, "device_scope", False))
