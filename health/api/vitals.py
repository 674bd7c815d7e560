"""/api/vitals/: readings from paired devices.

POST takes one reading or a JSON list of up to ``MAX_BATCH`` readings, from
the patient's session (naming one of their devices) or from a device token
(the token's device). Every item is validated against the physiological
bounds and its ``measured_at`` against ``health.vitals``' window; one bad
item refuses the whole batch (400, with field errors keyed by the item's
position). Resent readings (same device and ``measured_at``) are
counted as duplicates, never stored twice.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, PolymorphicProxySerializer, extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser
from rest_framework.request import Request
from rest_framework.response import Response

from health.api.base import (
    IdFilterField,
    ListFilterMixin,
    OwnedPrimaryKeyRelatedField,
    OwnedQuerysetMixin,
    StrictModelSerializer,
    StrictSerializer,
)
from health.auth import request_device
from health.models import Device, VitalReading
from health.models.vitals import BOUNDS
from health.vitals import measured_at_error, record_readings

MAX_BATCH = 1000
METRICS = (*BOUNDS, "sleep_stage")
_INTEGER_METRICS = ("heart_rate", "systolic_bp", "diastolic_bp", "steps")
_FLOAT_METRICS = ("spo2", "sleep_minutes")
_SLEEP_STAGES = frozenset(VitalReading.SleepStage.values) | {""}


class VitalReadingSerializer(StrictModelSerializer):
    device = OwnedPrimaryKeyRelatedField(
        queryset=Device.objects.filter(revoked_at__isnull=True),
        required=False,
        help_text="One of your active devices. Required when signed in; a device token posts for its own device.",
    )

    class Meta:
        model = VitalReading
        fields = [
            "id",
            "device",
            "measured_at",
            "received_at",
            "heart_rate",
            "spo2",
            "systolic_bp",
            "diastolic_bp",
            "steps",
            "sleep_stage",
            "sleep_minutes",
        ]
        read_only_fields = ["received_at"]
        # A repeated (device, measured_at) is a resend to count, not an error.
        validators: list = []

    def validate_measured_at(self, value):
        # "now" from the context when the caller runs on a clock of its own (the simulated watch's tick)
        if error := measured_at_error(value, self.context.get("now")):
            raise serializers.ValidationError(error)
        return value

    def validate(self, attrs: dict) -> dict:
        errors: dict[str, str] = {}
        token_device = request_device(self.context["request"])
        if token_device is not None:
            if attrs.get("device", token_device) != token_device:
                errors["device"] = "A device can only post its own readings."
            attrs["device"] = token_device
        elif attrs.get("device") is None:
            errors["device"] = "Name the device that measured this reading."
        systolic, diastolic = attrs.get("systolic_bp"), attrs.get("diastolic_bp")
        if systolic is not None and diastolic is not None and systolic <= diastolic:
            errors["diastolic_bp"] = "Must be lower than systolic_bp."
        if not any(attrs.get(metric) not in (None, "") for metric in METRICS):
            errors["non_field_errors"] = f"A reading needs at least one of: {', '.join(METRICS)}."
        if errors:
            raise serializers.ValidationError(errors)
        return attrs


class VitalIngestResultSerializer(StrictSerializer):
    created = serializers.IntegerField(help_text="Readings stored by this request.")
    duplicates = serializers.IntegerField(help_text="Readings that were already stored (a resend).")


class VitalFilter(serializers.Serializer):
    since = serializers.DateTimeField(required=False, help_text="Readings measured at or after this instant.")
    until = serializers.DateTimeField(required=False, help_text="Readings measured before this instant.")
    device = IdFilterField(help_text="Only this device's readings.")

    def validate(self, attrs: dict) -> dict:
        if attrs.get("since") and attrs.get("until") and attrs["until"] <= attrs["since"]:
            raise serializers.ValidationError({"until": "Must be after since."})
        return attrs


_MEASURED_AT = serializers.DateTimeField()


def _plain_batch(items: list[Any], request: Request) -> list[dict] | None:
    """The validated data of ``items``, checked once per batch in plain Python,
    or None when any item is not a plain, valid reading.

    This is the fast path of the batch API: a watch's batch of 1,000 readings
    costs a few milliseconds here against most of the request's time through
    the serializer's per-field machinery. It accepts only what
    ``VitalReadingSerializer`` accepts and returns the same validated data
    (JSON numbers of the right type within ``BOUNDS``, a known sleep stage, an
    ISO 8601 ``measured_at`` within ``health.vitals``' window, the caller's own active device). Anything else,
    an invalid reading in particular, returns None: the serializer then
    validates the batch and words the errors, per item, as before.
    """
    if not 0 < len(items) <= MAX_BATCH:
        return None
    token_device = request_device(request)
    validated: list[dict] = []
    device_ids: set[int] = set()
    now = timezone.now()
    for item in items:
        if type(item) is not dict or "measured_at" not in item:
            return None
        attrs: dict[str, Any] = {}
        measured = False
        for name in _INTEGER_METRICS:
            if name in item:
                value = item[name]
                if value is not None:
                    low, high = BOUNDS[name]
                    if type(value) is not int or not low <= value <= high:
                        return None
                    measured = True
                attrs[name] = value
        for name in _FLOAT_METRICS:
            if name in item:
                value = item[name]
                if value is not None:
                    low, high = BOUNDS[name]
                    # The bounds also refuse NaN and infinities.
                    if type(value) not in (int, float) or not low <= value <= high:
                        return None
                    value = float(value)
                    measured = True
                attrs[name] = value
        if "sleep_stage" in item:
            stage = item["sleep_stage"]
            if type(stage) is not str or stage not in _SLEEP_STAGES:
                return None
            measured = measured or stage != ""
            attrs["sleep_stage"] = stage
        if not measured:
            return None
        systolic, diastolic = attrs.get("systolic_bp"), attrs.get("diastolic_bp")
        if systolic is not None and diastolic is not None and systolic <= diastolic:
            return None
        when = item["measured_at"]
        if type(when) is not str:
            return None
        try:
            attrs["measured_at"] = _MEASURED_AT.to_internal_value(when)
        except serializers.ValidationError:
            return None
        if measured_at_error(attrs["measured_at"], now) is not None:
            return None
        device = item.get("device", token_device.pk if token_device is not None else None)
        if type(device) is not int:
            return None
        if token_device is not None and device != token_device.pk:
            return None
        device_ids.add(device)
        attrs["device"] = device
        validated.append(attrs)
    if token_device is not None:
        devices = {token_device.pk: token_device}
    else:
        # One query for the batch: the caller's own active devices it names.
        devices = {
            device.pk: device
            for device in Device.objects.filter(pk__in=device_ids, user=request.user, revoked_at__isnull=True)
        }
        if len(devices) != len(device_ids):
            return None
    for attrs in validated:
        attrs["device"] = devices[attrs["device"]]
    return validated


ONE_OR_MANY = PolymorphicProxySerializer(
    component_name="VitalReadingOneOrMany",
    serializers=[VitalReadingSerializer, VitalReadingSerializer(many=True, allow_empty=False, max_length=MAX_BATCH)],
    resource_type_field_name=None,
    many=False,
)


@extend_schema_view(
    list=extend_schema(parameters=[VitalFilter]),
    create=extend_schema(
        request=ONE_OR_MANY,
        responses={
            201: VitalIngestResultSerializer,
            200: OpenApiResponse(VitalIngestResultSerializer, description="Every reading was a duplicate."),
            400: OpenApiResponse(
                description="A reading is invalid (out of bounds, or measured outside the accepted window);"
                " field errors per item for a batch. Nothing is stored."
            ),
        },
    ),
)
class VitalReadingViewSet(
    ListFilterMixin, OwnedQuerysetMixin, mixins.ListModelMixin, mixins.CreateModelMixin, viewsets.GenericViewSet
):
    """The patient's vital readings. POST one reading or a list of up to 1,000,
    signed in (naming your device) or with a device token (for that device).
    A bad item refuses the whole batch; resent readings are counted, not stored twice."""

    queryset = VitalReading.objects.all()
    serializer_class = VitalReadingSerializer
    list_filter = VitalFilter
    # A batch is a JSON list, which form encodings cannot carry.
    parser_classes = [JSONParser]

    @property
    def device_scope(self) -> bool:
        # A device token may post readings, and do nothing else: a lost watch
        # must not read the patient's history.
        return self.action == "create"

    def filter_list(self, queryset: QuerySet[VitalReading], wanted: dict) -> QuerySet[VitalReading]:
        if "since" in wanted:
            queryset = queryset.filter(measured_at__gte=wanted["since"])
        if "until" in wanted:
            queryset = queryset.filter(measured_at__lt=wanted["until"])
        if "device" in wanted:
            queryset = queryset.filter(device_id=wanted["device"])
        return queryset

    def create(self, request: Request) -> Response:
        data = request.data
        if not isinstance(data, dict | list):
            raise ParseError("Send one reading (a JSON object) or a JSON list of readings.")
        # Plain valid readings take the fast path; the serializer validates
        # (and words the errors of) anything else.
        readings = _plain_batch(data if isinstance(data, list) else [data], request)
        if readings is None:
            readings = self._validate_with_serializer(data)
        result = record_readings(user=request.user, readings=readings)
        answer = VitalIngestResultSerializer(result).data
        return Response(answer, status=status.HTTP_201_CREATED if result.created else status.HTTP_200_OK)

    def _validate_with_serializer(self, data: dict | list) -> list[dict]:
        context = self.get_serializer_context()
        if isinstance(data, dict):
            # One reading: its errors come back as a plain object of field errors.
            single = VitalReadingSerializer(data=data, context=context)
            single.is_valid(raise_exception=True)
            return [single.validated_data]
        # A batch: errors come back as a list, one object per item, in order.
        batch = VitalReadingSerializer(data=data, many=True, allow_empty=False, max_length=MAX_BATCH, context=context)
        batch.is_valid(raise_exception=True)
        return batch.validated_data
