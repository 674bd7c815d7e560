"""An uploaded prescription file -> an upright RGB image, or a refusal the patient can act on.

The type comes from the file's first bytes, never from its name or the browser's claim: JPEG, PNG,
HEIC/HEIF (phone cameras; opened with ``pillow-heif``) and PDF (one page, rendered with ``pypdfium2``).
Limits guard the worker that reads it: the file's size, the image's pixel count (a small file can
declare a huge image: a decompression bomb) and the PDF page's size. A truncated or corrupt file is
refused here, before anything is stored. EXIF orientation is applied (a phone photo taken upright is
stored upright) and the stored copy is re-encoded without metadata: a photo's EXIF may carry the
place it was taken.
"""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass

from django.conf import settings
from PIL import Image, ImageOps, UnidentifiedImageError

MAX_PIXELS = 40_000_000  # a 48 MP phone photo is refused: 40 MP is ample for a page, and bounds memory
PDF_RENDER_DPI = 200
MAX_PDF_PAGE_INCHES = 17  # a page larger than A3/tabloid on either side is not a prescription

# Magic numbers: (offset, bytes) -> content type. HEIF is an ISO-BMFF file whose ``ftyp`` box
# names a HEIF brand.
HEIF_BRANDS = {b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"mif1", b"msf1", b"avif"}
CONTENT_TYPES = {"image/jpeg": "JPEG", "image/png": "PNG", "image/heif": "HEIF"}


class RejectedUpload(ValueError):
    """The file cannot be used; ``str(exc)`` is the reason, written for the patient."""


@dataclass(frozen=True)
class LoadedImage:
    image: Image.Image  # upright, RGB
    content_type: str  # what the file is: image/jpeg, image/png, image/heif or application/pdf


def sniff(data: bytes) -> str | None:
    """The content type the bytes begin with, or None when it is none we accept."""
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data[4:8] == b"ftyp" and data[8:12] in HEIF_BRANDS:
        return "image/heif"
    if data.startswith(b"%PDF-"):
        return "application/pdf"
    return None


def max_bytes() -> int:
    """The largest file accepted (``PRESCRIPTION_MAX_MB``)."""
    return int(settings.PRESCRIPTION_MAX_MB * 1_000_000)


def open_prescription(data: bytes) -> LoadedImage:
    """Check ``data`` and open it as an upright RGB image; ``RejectedUpload`` says why not."""
    if not data:
        raise RejectedUpload("The file is empty.")
    if len(data) > max_bytes():
        raise RejectedUpload(too_large(len(data)))
    content_type = sniff(data)
    if content_type is None:
        raise RejectedUpload("This is not a photo or scan we can read. Use a JPEG, PNG or HEIC photo, or a PDF.")
    if content_type == "application/pdf":
        image = _render_pdf(data)
    else:
        image = _open_image(data, CONTENT_TYPES[content_type])
    return LoadedImage(image=image, content_type=content_type)


def _open_image(data: bytes, expected_format: str) -> Image.Image:
    if expected_format == "HEIF":
        import pillow_heif  # registers its opener, only once a HEIF arrives

        pillow_heif.register_heif_opener()
    try:
        with warnings.catch_warnings():
            # Pillow warns (not raises) between MAX_IMAGE_PIXELS and twice that; both are refused.
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
            if image.format not in (expected_format, "HEIC" if expected_format == "HEIF" else expected_format):
                raise RejectedUpload("The file's content does not match an image we can read.")
            width, height = image.size
            if width * height > MAX_PIXELS:
                raise RejectedUpload(_too_many_pixels(width, height))
            image.load()  # decodes now: a truncated or corrupt file fails here, not in the reader
            upright = ImageOps.exif_transpose(image)
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise RejectedUpload("The image is far too large to read safely.") from exc
    except RejectedUpload:
        raise
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
        # Pillow reports truncated data as OSError, some corrupt headers as SyntaxError/ValueError.
        raise RejectedUpload("The image is damaged or incomplete. Please take the photo again.") from exc
    return upright.convert("RGB")


def _render_pdf(data: bytes) -> Image.Image:
    import pypdfium2  # only once a PDF arrives

    try:
        document = pypdfium2.PdfDocument(data)
    except pypdfium2.PdfiumError as exc:
        raise RejectedUpload("The PDF is damaged or password-protected.") from exc
    try:
        if len(document) != 1:
            raise RejectedUpload(f"The PDF has {len(document)} pages; upload one page (the prescription) at a time.")
        page = document[0]
        width_pt, height_pt = page.get_size()
        if max(width_pt, height_pt) > MAX_PDF_PAGE_INCHES * 72:
            raise RejectedUpload("The PDF page is far larger than a prescription.")
        scale = PDF_RENDER_DPI / 72
        if width_pt * height_pt * scale * scale > MAX_PIXELS:
            scale = (MAX_PIXELS / (width_pt * height_pt)) ** 0.5
        try:
            image = page.render(scale=scale).to_pil()
        except pypdfium2.PdfiumError as exc:
            raise RejectedUpload("The PDF page could not be drawn; it may be damaged.") from exc
    finally:
        document.close()
    return image.convert("RGB")


def too_large(size: int) -> str:
    return (
        f"The file is too large ({size / 1e6:.1f} MB); the limit is {max_bytes() / 1e6:g} MB. "
        "A photo from a phone camera is well below it."
    )


def _too_many_pixels(width: int, height: int) -> str:
    return (
        f"The image is {width} x {height} pixels; the limit is {MAX_PIXELS / 1e6:.0f} megapixels. "
        "Take the photo at a lower resolution, or crop it to the prescription."
    )


def stored_copy(image: Image.Image) -> bytes:
    """The image as the app keeps it: JPEG without metadata (no EXIF, so no place the photo was taken)."""
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=90, optimize=True)
    return buffer.getvalue()
