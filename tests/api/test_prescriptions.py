"""Prescriptions: listed and deleted (with their photo); an upload without a file is refused; the text read
is never edited by hand."""

from __future__ import annotations

from django.core.files.uploadedfile import SimpleUploadedFile

from health.models import Medication, Prescription
from tests.factories import MedicationFactory, PrescriptionFactory


def _with_photo(user) -> Prescription:
    prescription = PrescriptionFactory(user=user)
    prescription.image.save("alice-smith-rx.png", SimpleUploadedFile("rx.png", b"\x89PNG fake"), save=True)
    return prescription


def test_a_prescription_says_whether_it_has_a_photo_without_exposing_it(alice, alice_api):
    prescription = _with_photo(alice)
    PrescriptionFactory(user=alice)

    rows = alice_api.get("/api/prescriptions/").json()["results"]

    assert sorted(row["has_image"] for row in rows) == [False, True]
    assert prescription.image.name not in alice_api.get(f"/api/prescriptions/{prescription.pk}/").content.decode()


def test_deleting_a_prescription_deletes_its_photo_once_committed(alice, alice_api, django_capture_on_commit_callbacks):
    prescription = _with_photo(alice)
    storage, name = prescription.image.storage, prescription.image.name
    medication = MedicationFactory(user=alice, prescription=prescription)

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = alice_api.delete(f"/api/prescriptions/{prescription.pk}/")

    assert response.status_code == 204
    assert not Prescription.objects.filter(pk=prescription.pk).exists()
    assert storage.exists(name)  # not before the commit
    for callback in callbacks:
        callback()
    assert not storage.exists(name)
    # The medication stays: the patient still takes it.
    assert Medication.objects.get(pk=medication.pk).prescription is None


def test_an_upload_without_a_file_is_refused_and_the_text_read_is_not_editable(alice, alice_api):
    prescription = PrescriptionFactory(user=alice)

    response = alice_api.post("/api/prescriptions/", {}, format="multipart")
    assert response.status_code == 400 and "image" in response.json()
    assert Prescription.objects.filter(user=alice).count() == 1  # nothing left behind
    assert alice_api.patch(f"/api/prescriptions/{prescription.pk}/", {"ocr_text": "x"}).status_code == 405
