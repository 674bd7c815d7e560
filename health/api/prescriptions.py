"""/api/prescriptions/: upload a prescription photo, follow its reading, check what was read and
confirm it into a medication schedule.

POST a file (multipart field ``image``: JPEG, PNG, HEIC/HEIF or a one-page PDF) -> 201, status
``pending``; the reading runs in the background and the websocket's ``prescription`` event says when
it moved on. ``extracted`` then lists the medications read, each with ``uncertain`` and ``missing``
fields; nothing is scheduled until ``confirm`` is posted with the list as the patient checked it.
"""

from __future__ import annotations

from django.http import FileResponse
from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import exceptions, mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import JSONParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from health.api.base import OwnedQuerysetMixin, StrictModelSerializer, StrictSerializer, domain_errors
from health.models import Medication, Prescription
from health.models.appointments import patient_zone
from health.scheduler import images, review
from health.scheduler.forms import CLOCK, MedicationReviewForm


class PrescriptionSerializer(StrictModelSerializer):
    # The image itself is health data served by an authenticated view, never a
    # public media URL; the API only says whether there is one.
    has_image = serializers.SerializerMethodField()
    status_text = serializers.CharField(source="get_parse_status_display", read_only=True)

    class Meta:
        model = Prescription
        fields = [
            "id",
            "has_image",
            "content_type",
            "ocr_text",
            "parse_status",
            "status_text",
            "parse_error",
            "extracted",
            "read_seconds",
            "prescriber",
            "issued_on",
            "uploaded_at",
            "parsed_at",
            "confirmed_at",
        ]
        read_only_fields = fields

    def get_has_image(self, prescription: Prescription) -> bool:
        return bool(prescription.image)


class UploadSerializer(StrictSerializer):
    image = serializers.FileField(help_text="JPEG, PNG, HEIC/HEIF photo or a one-page PDF, at most 20 MB.")


# A time as the review form takes it ("8:00", "20.30"); the form words the error for one it does not.
@extend_schema_field({"type": "string", "pattern": CLOCK.pattern})
class ReviewTimeField(serializers.CharField):
    pass


class ConfirmItemSerializer(StrictSerializer):
    include = serializers.BooleanField(default=True)
    name = serializers.CharField(max_length=120)
    strength = serializers.CharField(max_length=40, required=False, allow_blank=True, default="")
    dose = serializers.CharField(max_length=40, required=False, allow_blank=True, default="")
    # The review form's rules (health.scheduler.forms), stated so the schema carries them too.
    times = serializers.ListField(child=ReviewTimeField(), required=False, default=list, max_length=12)
    with_food = serializers.ChoiceField(
        choices=Medication.FoodTiming.choices, required=False, allow_null=True, default=Medication.FoodTiming.ANY
    )
    duration_days = serializers.IntegerField(
        required=False, allow_null=True, default=None, min_value=1, max_value=3650, help_text="Empty: until stopped."
    )


class ConfirmSerializer(StrictSerializer):
    medications = serializers.ListField(child=ConfirmItemSerializer(), min_length=1)
    start_date = serializers.DateField(required=False, help_text="First day of the schedule; today by default.")


class ScheduledSerializer(StrictSerializer):
    prescription = PrescriptionSerializer()
    medications = serializers.ListField(child=serializers.IntegerField())


class PrescriptionViewSet(
    OwnedQuerysetMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """The patient's prescriptions: upload, reading status, the medications read, confirm, delete."""

    queryset = Prescription.objects.all()
    serializer_class = PrescriptionSerializer
    parser_classes = [MultiPartParser, JSONParser]

    @extend_schema(
        request={"multipart/form-data": UploadSerializer},
        responses={201: PrescriptionSerializer, 400: OpenApiResponse(description="The file was refused; why.")},
    )
    def create(self, request: Request) -> Response:
        """Upload a prescription photo or scan; it is read in the background."""
        params = UploadSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        upload = params.validated_data["image"]
        if upload.size > images.max_bytes():
            raise exceptions.ValidationError({"image": [images.too_large(upload.size)]})
        try:
            prescription = review.receive_upload(request.user, upload.read())
        except images.RejectedUpload as exc:
            raise exceptions.ValidationError({"image": [str(exc)]}) from exc
        return Response(PrescriptionSerializer(prescription).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        request=None, responses={200: PrescriptionSerializer, 409: OpenApiResponse(description="Not failed.")}
    )
    @action(detail=True, methods=["post"])
    def retry(self, request: Request, pk: str | None = None) -> Response:
        """Read a prescription that could not be read once more."""
        prescription = self.get_object()
        with domain_errors():
            review.retry(prescription)
        return Response(PrescriptionSerializer(prescription).data)

    @extend_schema(
        request=ConfirmSerializer,
        responses={200: ScheduledSerializer, 409: OpenApiResponse(description="Not waiting to be confirmed.")},
    )
    # The review is a list of objects, which a form post cannot carry: JSON only.
    @action(detail=True, methods=["post"], parser_classes=[JSONParser])
    def confirm(self, request: Request, pk: str | None = None) -> Response:
        """Schedule the medications as the patient checked them (items with ``include`` false are
        left out); all or nothing."""
        prescription = self.get_object()
        params = ConfirmSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        items, errors = [], {}
        for index, item in enumerate(params.validated_data["medications"]):
            fields = {
                **item,
                "times": ", ".join(item["times"]),
                "with_food": item["with_food"] or "any",
                "duration_days": item["duration_days"] or "",
            }
            form = MedicationReviewForm(data=fields)
            if not form.is_valid():
                errors[str(index)] = form.errors.get_json_data()
            elif form.cleaned_data["include"]:
                items.append(form.schedule_fields())
        if errors:
            raise exceptions.ValidationError({"medications": errors})
        start = params.validated_data.get("start_date") or timezone.now().astimezone(patient_zone(request.user)).date()
        with domain_errors():
            try:
                medications = review.confirm(prescription, items, start)
            except review.ReviewError as exc:
                raise exceptions.ValidationError({"medications": [str(exc)]}) from exc
        prescription.refresh_from_db()
        return Response(
            {"prescription": PrescriptionSerializer(prescription).data, "medications": [m.pk for m in medications]}
        )

    @extend_schema(responses={(200, "image/jpeg"): OpenApiResponse(description="The stored photo."), 404: None})
    @action(detail=True, methods=["get"])
    def image(self, request: Request, pk: str | None = None) -> FileResponse:
        """The stored photo (upright, without metadata), for its owner only."""
        prescription = self.get_object()
        if not prescription.image:
            raise exceptions.NotFound("This prescription has no photo.")
        response = FileResponse(prescription.image.open("rb"), content_type="image/jpeg")
        response["Cache-Control"] = "private, no-store"
        return response

    def perform_destroy(self, instance: Prescription) -> None:
        review.delete(instance)
