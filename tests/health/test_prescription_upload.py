"""Uploading a prescription: the file is checked by content and limits, a bad one is refused with a
reason and leaves nothing behind; a good one is stored upright without metadata and queued."""

from __future__ import annotations

import io

import pillow_heif
import pytest
from PIL import Image

from health.models import Prescription
from health.scheduler import images
from health.scheduler.images import RejectedUpload, open_prescription

pillow_heif.register_heif_opener()


def encoded(fmt: str, size=(300, 200), **save) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, "white").save(buffer, format=fmt, **save)
    return buffer.getvalue()


def noisy_jpeg() -> bytes:
    buffer = io.BytesIO()
    Image.effect_noise((400, 400), 60).convert("RGB").save(buffer, format="JPEG")
    return buffer.getvalue()


def two_page_pdf() -> bytes:
    buffer = io.BytesIO()
    page = Image.new("RGB", (300, 200), "white")
    page.save(buffer, format="PDF", save_all=True, append_images=[page])
    return buffer.getvalue()


@pytest.fixture
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


def stored_files(media) -> list:
    return [path for path in media.rglob("*") if path.is_file()] if media.exists() else []


# -- by content, not by name ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "content_type"),
    [
        (encoded("JPEG"), "image/jpeg"),
        (encoded("PNG"), "image/png"),
        (encoded("HEIF"), "image/heif"),
        (encoded("PDF"), "application/pdf"),
    ],
    ids=["jpeg", "png", "heic", "pdf"],
)
def test_accepted_kinds_open_as_rgb_images(data, content_type):
    loaded = open_prescription(data)
    assert loaded.content_type == content_type
    assert loaded.image.mode == "RGB"
    assert min(loaded.image.size) > 100


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", "empty"),
        (b"hello, this is not an image", "not a photo or scan"),
        (encoded("GIF"), "not a photo or scan"),
        (encoded("BMP"), "not a photo or scan"),
        (noisy_jpeg()[:3000], "damaged or incomplete"),
        (b"%PDF-1.7 not really a pdf", "damaged"),
        (two_page_pdf(), "has 2 pages"),
        # A PNG header that declares 20,000 x 20,000 pixels in a few kilobytes.
        (encoded("PNG", size=(20000, 20000)), "too large"),
    ],
    ids=["empty", "text", "gif", "bmp", "truncated-jpeg", "corrupt-pdf", "two-page-pdf", "bomb"],
)
def test_bad_files_are_refused_with_a_reason(data, reason):
    with pytest.raises(RejectedUpload, match=reason):
        open_prescription(data)


def test_an_image_over_the_pixel_limit_is_refused(monkeypatch):
    monkeypatch.setattr(images, "MAX_PIXELS", 200 * 100)
    with pytest.raises(RejectedUpload, match="megapixels"):
        open_prescription(encoded("PNG", size=(300, 200)))


def test_a_file_over_the_size_limit_is_refused(settings):
    settings.PRESCRIPTION_MAX_MB = 0.001
    with pytest.raises(RejectedUpload, match="too large"):
        open_prescription(noisy_jpeg())


def test_exif_orientation_is_applied_and_the_stored_copy_has_no_metadata():
    exif = Image.Exif()
    exif[0x0112] = 6  # rotated 90 degrees clockwise: the camera held upright
    exif[0x8825] = {1: "N", 2: (52.0, 31.0, 0.0)}  # a GPS position
    loaded = open_prescription(encoded("JPEG", size=(300, 200), exif=exif))
    assert loaded.image.size == (200, 300)
    stored = Image.open(io.BytesIO(images.stored_copy(loaded.image)))
    assert stored.size == (200, 300)
    assert not stored.getexif()


# -- the API and the page: refused files leave nothing behind ---------------------------------------


def upload(client, data: bytes, name: str = "rx.jpg"):
    return client.post("/api/prescriptions/", {"image": io_file(data, name)}, format="multipart")


def io_file(data: bytes, name: str):
    handle = io.BytesIO(data)
    handle.name = name
    return handle


@pytest.mark.django_db
def test_an_upload_is_stored_and_waits_to_be_read(alice_api, alice, media):
    response = upload(alice_api, encoded("PNG"), "IMG_0001.png")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["parse_status"] == "pending"
    assert body["content_type"] == "image/png"
    assert body["extracted"] == []
    prescription = Prescription.objects.get(user=alice)
    # Stored under a random name, as JPEG, whatever the file was called.
    assert prescription.image.name.endswith(".jpg") and "IMG_0001" not in prescription.image.name
    assert len(stored_files(media)) == 1


@pytest.mark.django_db
@pytest.mark.parametrize(
    "name", ["../../../etc/cron.d/x.png", "..\\..\\windows\\evil.png", "/etc/passwd.png", "a/../../b.png", "rx\x00.png"]
)
def test_a_path_in_the_file_name_never_decides_where_it_is_stored(alice_api, alice, media, name):
    response = upload(alice_api, encoded("PNG"), name)
    assert response.status_code in (201, 400), response.content
    if response.status_code == 400:  # a name the upload cannot carry: refused, nothing kept
        assert not Prescription.objects.exists() and stored_files(media) == []
        return
    stored = Prescription.objects.get(user=alice).image.name
    assert ".." not in stored and "etc" not in stored and "windows" not in stored and "\\" not in stored
    files = stored_files(media)
    assert len(files) == 1 and files[0].resolve().is_relative_to(media.resolve())


@pytest.mark.django_db
@pytest.mark.parametrize(
    "data", [b"MZ\x90\x00 an executable", noisy_jpeg()[:2000], encoded("PNG", size=(20000, 20000))], ids=str
)
def test_a_refused_upload_leaves_no_row_and_no_file(alice_api, alice, media, data):
    response = upload(alice_api, data, "rx.jpg")  # the name claims a JPEG: the content decides
    assert response.status_code == 400
    assert response.json()["image"][0]
    assert not Prescription.objects.exists()
    assert stored_files(media) == []


@pytest.mark.django_db
def test_an_upload_without_a_file_is_a_clear_400(alice_api):
    response = alice_api.post("/api/prescriptions/", {}, format="multipart")
    assert response.status_code == 400
    assert "image" in response.json()


@pytest.mark.django_db
def test_the_page_refuses_a_bad_file_with_the_reason(client, alice, media):
    client.force_login(alice)
    response = client.post("/medications/upload/", {"image": io_file(b"not an image", "rx.png")}, follow=True)
    assert "not a photo or scan we can read" in response.content.decode()
    assert not Prescription.objects.exists()
    assert stored_files(media) == []


@pytest.mark.django_db
def test_the_photo_is_served_to_its_owner_only(alice_api, api, bob, media):
    prescription_id = upload(alice_api, encoded("JPEG")).json()["id"]
    own = alice_api.get(f"/api/prescriptions/{prescription_id}/image/")
    assert own.status_code == 200 and own["Content-Type"] == "image/jpeg"
    assert b"".join(own.streaming_content).startswith(b"\xff\xd8")
    api.force_authenticate(bob)
    assert api.get(f"/api/prescriptions/{prescription_id}/image/").status_code == 404


@pytest.mark.django_db
def test_deleting_a_prescription_removes_its_photo(alice_api, media, django_capture_on_commit_callbacks):
    prescription_id = upload(alice_api, encoded("JPEG")).json()["id"]
    with django_capture_on_commit_callbacks(execute=True):
        assert alice_api.delete(f"/api/prescriptions/{prescription_id}/").status_code == 204
    assert stored_files(media) == []
