"""Image -> text -> medications: the one reading path that the app's Celery task and the
``read_prescription`` command share, so what is evaluated is what patients get. No database access:
the caller stores the result.

Importing this module loads neither torch, EasyOCR nor spaCy; the first ``read_prescription`` call
builds the process's reader (``ocr.get_reader``), which later calls reuse.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from PIL import Image

from health.scheduler.ocr import DEFAULT_SETTINGS, Line, OcrSettings, get_reader, read_text


@dataclass(frozen=True)
class Reading:
    text: str  # the OCR text, one line per printed or written line, in reading order
    lines: list[Line]  # the same lines with the recogniser's confidence and box
    medications: list[dict[str, Any]] = field(default_factory=list)  # extract_medications(text)
    seconds: float = 0.0  # wall time of this reading (OCR and extraction), the reader already built
    steps: list[str] = field(default_factory=list)  # preprocessing that changed the image


def read_prescription(image: Image.Image, settings: OcrSettings = DEFAULT_SETTINGS) -> Reading:
    """Read an upright RGB image (``images.open_prescription(data).image``) into text and medications."""
    # Deferred: spaCy imports thinc, which imports torch whenever it is installed (about 2 s).
    from health.scheduler.extract import extract_medications

    get_reader()  # built once per process, outside the reading's time
    start = time.perf_counter()
    result = read_text(image, settings)
    medications = extract_medications(result.text)
    return Reading(
        text=result.text,
        lines=result.lines,
        medications=medications,
        seconds=time.perf_counter() - start,
        steps=result.steps,
    )
