"""/api/prescriptions/: the patient's uploaded prescriptions and what OCR read
from them. Uploading (and reading) comes with the scheduler; here they can be
listed, read and deleted."""

from __future__ import annotations

from django.db import transaction
from rest_framework import mixins, serializers, viewsets

from health.api.base import OwnedQuerysetMixin
from health.models import Prescription


class PrescriptionSerializer(serializers.ModelSerializer):
    # The image itself is health data served by an authenticated view, never a
    # public media URL; the API only says whether there is one.
    has_image = serializers.SerializerMethodField()

    class Meta:
        model = Prescription
        fields = [
            "id",
            "has_image",
            "ocr_text",
            "parse_status",
            "parse_error",
            "prescriber",
            "issued_on",
            "uploaded_at",
            "parsed_at",
        ]
        read_only_fields = fields

    def get_has_image(self, prescription: Prescription) -> bool:
        return bool(prescription.image)


class PrescriptionViewSet(
    OwnedQuerysetMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """The patient's prescriptions; deleting one also deletes its photo."""

    queryset = Prescription.objects.all()
    serializer_class = PrescriptionSerializer

    def perform_destroy(self, instance: Prescription) -> None:
        image = instance.image
        instance.delete()
        if image:
            # Remove the photo only once the row is gone for good: a rolled-back
            # request must not leave a row pointing at a deleted file.
            transaction.on_commit(lambda: image.storage.delete(image.name))
