"""/api/devices/: pairing wearables. The clear token is shown once, at pairing."""

from __future__ import annotations

from rest_framework import mixins, serializers, status, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from health.api.base import OwnedQuerysetMixin, StrictModelSerializer
from health.models import Device


class DeviceSerializer(StrictModelSerializer):
    is_active = serializers.BooleanField(read_only=True)
    token = serializers.SerializerMethodField(
        help_text="Send as 'Authorization: Device <token>'. Present only in the pairing response; "
        "only the token's hash is stored, so it cannot be shown again."
    )

    class Meta:
        model = Device
        fields = ["id", "name", "kind", "token", "is_active", *Device.SYSTEM_FIELDS]
        read_only_fields = Device.SYSTEM_FIELDS

    def get_token(self, device: Device) -> str | None:
        return getattr(device, "clear_token", None)


class DeviceViewSet(
    OwnedQuerysetMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """Devices paired to the patient. Deleting one revokes its token; the
    device and its readings stay on record."""

    queryset = Device.objects.all()
    serializer_class = DeviceSerializer

    def create(self, request: Request) -> Response:
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        device = Device(user=request.user, **serializer.validated_data)
        # Kept on this instance only, for this one response.
        device.clear_token = device.issue_token()
        device.save()
        return Response(self.get_serializer(device).data, status=status.HTTP_201_CREATED)

    def perform_destroy(self, instance: Device) -> None:
        instance.revoke()
