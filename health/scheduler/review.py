"""A prescription from upload to schedule: received -> read (Celery) -> checked by the patient -> confirmed.

Nothing read from a prescription is scheduled until the patient confirms it: the reading only fills
``Prescription.extracted``, the list the review page shows beside the photo and the text. Each item
carries ``uncertain`` (fields the patient should look at: a name matched only approximately, a
strength whose number is not in the text, a line the OCR was unsure of or read a word of as the
nearest medicine or direction word) and ``missing`` (fields the
prescription did not give: the page leaves them empty, never guesses them).

The text is data. The extractor drops sentences that read like instructions, and nothing here
passes the text to an agent or to messaging: the only things a prescription can produce are rows the
patient confirms on the review page.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from collections import Counter
from typing import Any

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from core.events import Event
from core.realtime import push_to_user
from health.models import Medication, Prescription
from health.scheduler import images
from health.scheduler.lexicon import load_lexicon

log = logging.getLogger(__name__)

FIELDS = ("name", "strength", "dose", "times_per_day", "times", "duration_days", "with_food")
UNSURE_LINE_CONFIDENCE = 0.5  # EasyOCR's confidence below which a line's fields are shown as uncertain


class ReviewError(ValueError):
    """The confirmed list cannot be scheduled; ``str(exc)`` says why, for the patient."""


# -- receiving and reading ---------------------------------------------------------------------------


def receive_upload(user, data: bytes) -> Prescription:
    """Check the file (``images.RejectedUpload`` says why not: nothing is stored then), store its
    upright copy without metadata and queue the reading."""
    loaded = images.open_prescription(data)
    stored = images.stored_copy(loaded.image)
    with transaction.atomic():
        prescription = Prescription(user=user, content_type=loaded.content_type)
        prescription.image.save("prescription.jpg", ContentFile(stored), save=False)
        try:
            prescription.save()
        except Exception:
            prescription.image.storage.delete(prescription.image.name)
            raise
        _queue_reading(prescription)
    return prescription


def retry(prescription: Prescription) -> None:
    """Read a prescription that could not be read once more (``InvalidTransition`` otherwise)."""
    with transaction.atomic():
        prescription.retry()
        _queue_reading(prescription)


def _queue_reading(prescription: Prescription) -> None:
    from health.tasks import read_prescription  # health.tasks imports this module

    prescription_id, user_id = prescription.pk, prescription.user_id
    transaction.on_commit(lambda: _push(user_id, prescription_id, Prescription.ParseStatus.PENDING, ""), robust=True)
    transaction.on_commit(lambda: read_prescription.delay(prescription_id), robust=True)


def stalled_readings(now: dt.datetime | None = None) -> list[int]:
    """Ids of the prescriptions whose reading was lost: queued for longer than a healthy queue keeps
    one (``OCR_QUEUE_STALLED_SECONDS``: the broker lost the task, or the web process died before it
    enqueued it), or being read for longer than any reading takes (``OCR_READ_STALLED_SECONDS``: the
    worker died and the broker lost the task with it)."""
    stalled = Prescription.objects.filter(_stalled(now or timezone.now()))
    return list(stalled.order_by("status_changed_at").values_list("pk", flat=True))


def requeue_stalled_readings(now: dt.datetime | None = None) -> int:
    """Queue the reading of every stalled prescription again; return how many. Each is claimed by
    moving its ``status_changed_at`` to now (a conditional update): two sweeps at once queue it
    once, and a reading lost again is queued again one period later, not at every sweep. A
    duplicate of a reading that was only slow is harmless: ``Prescription.start_reading`` and
    ``record_reading`` are conditional, so the second one finds it read and does nothing."""
    from health.tasks import read_prescription  # health.tasks imports this module

    now = now or timezone.now()
    requeued = 0
    for pk in stalled_readings(now):
        with transaction.atomic():
            claimed = Prescription.objects.filter(_stalled(now), pk=pk).update(status_changed_at=now)
            if claimed:
                transaction.on_commit(lambda pk=pk: read_prescription.delay(pk), robust=True)
                requeued += 1
    if requeued:
        log.warning("queued %d stalled prescription reading(s) again", requeued)
    return requeued


def _stalled(now: dt.datetime) -> Q:
    status = Prescription.ParseStatus
    queued = Q(parse_status=status.PENDING, status_changed_at__lt=now - _seconds("OCR_QUEUE_STALLED_SECONDS"))
    reading = Q(parse_status=status.PROCESSING, status_changed_at__lt=now - _seconds("OCR_READ_STALLED_SECONDS"))
    return queued | reading


def _seconds(setting: str) -> dt.timedelta:
    return dt.timedelta(seconds=float(getattr(settings, setting)))


def read(prescription_id: int) -> str:
    """The Celery task's work: read the stored image, keep what was found for the patient to check,
    and tell the open pages. Returns the prescription's status."""
    from health.scheduler.reading import read_prescription  # loads EasyOCR: only in the worker

    prescription = Prescription.objects.filter(pk=prescription_id).first()
    if prescription is None or not prescription.start_reading():
        return "gone" if prescription is None else prescription.parse_status
    _push(prescription.user_id, prescription.pk, prescription.parse_status, "")
    try:
        with prescription.image.open("rb") as handle:
            loaded = images.open_prescription(handle.read())
        reading = read_prescription(loaded.image)
    except images.RejectedUpload as exc:
        prescription.record_failure(f"The stored photo could not be opened: {exc}")
    except Exception:
        log.exception("reading prescription %s failed", prescription_id)
        prescription.record_failure("Reading the photo failed unexpectedly. Try again.")
    else:
        if reading.medications:
            items = review_items(reading.text, reading.medications, getattr(reading, "lines", None))
            prescription.record_reading(reading.text, items, reading.seconds)
        elif reading.text.strip():
            prescription.record_reading(reading.text, [], reading.seconds)
        else:
            prescription.record_failure(
                "No text was found in the photo. Take it again in good light, flat and filling the frame."
            )
    _push(prescription.user_id, prescription.pk, prescription.parse_status, prescription.parse_error)
    return prescription.parse_status


def _push(user_id: int, prescription_id: int, status: str, error: str) -> None:
    push_to_user(user_id, Event.PRESCRIPTION, {"id": prescription_id, "status": status, "error": error})


# -- what the patient checks -------------------------------------------------------------------------


def review_items(text: str, medications: list[dict[str, Any]], lines: list | None = None) -> list[dict[str, Any]]:
    """The extractor's medications with, for each, the fields to look at (``uncertain``) and the
    fields the prescription did not give (``missing``)."""
    words = _words(text)
    unsure_lines = [_line_text(line).lower() for line in lines or [] if _unsure(line)]
    items = []
    for medication in medications:
        item = {field: medication.get(field) for field in FIELDS}
        missing = [field for field in FIELDS if item[field] in (None, [], "")]
        uncertain = set()
        names_seen = _names_in_text(item["name"] or "", words)
        if item["name"] and not names_seen:
            uncertain.add("name")
        if item["strength"] and not _numbers_in_text(item["strength"], text):
            uncertain.add("strength")
        if any(seen in line for line in unsure_lines for seen in names_seen):
            uncertain.update(field for field in FIELDS if field not in missing)
        item["uncertain"] = sorted(uncertain)
        item["missing"] = [field for field in missing if field != "with_food"]  # no food rule is a valid answer
        item["default_times"] = bool(item["times"]) and not all(_time_in_text(t, text) for t in item["times"])
        item["dose_unit"] = _dose_unit(text, names_seen) if item["dose"] is not None else None
        # Only a name, nothing about taking it: perhaps a word of a note, not a medicine to take. The
        # review offers it unticked; the patient ticks it if it is one.
        item["name_only"] = all(field in missing for field in ("strength", "dose", "times_per_day", "duration_days"))
        items.append(item)
    return items


# The form written on the medicine's line ("Tab.", "Cap", "Syp") names what one dose is counted in:
# the review shows "1 tablet", not a bare "1". Only what the line says; nothing is assumed.
DOSE_FORMS = (
    (r"tab(?:let)?s?", "tablet"),
    (r"cap(?:sule)?s?", "capsule"),
    (r"syp|syrup|susp(?:ension)?|liquid|ml", "ml"),
    (r"drops?|gtts?", "drop"),
    (r"puffs?|inhaler", "puff"),
    (r"sachets?", "sachet"),
)


def _dose_unit(text: str, names_seen: list[str]) -> str | None:
    for line in text.lower().splitlines():
        if any(f" {seen} " in _words(line) for seen in names_seen):
            for pattern, unit in DOSE_FORMS:
                if re.search(rf"(?<![a-z]){pattern}(?![a-z])", line):
                    return unit
            return None
    return None


def _words(text: str) -> str:
    return " " + " ".join(re.findall(r"[a-z0-9]+", text.lower())) + " "


def _names_in_text(name: str, words: str) -> list[str]:
    """The lexicon's spellings of ``name`` (or of each part of a combination) found as words in the text."""
    lexicon = load_lexicon()
    parts = [part.strip() for part in re.split(r"\s*\+\s*", name) if part.strip()]
    found = []
    for part in parts:
        spellings = {part, *(word for word, generic in lexicon.names.items() if generic == part)}
        seen = [s for s in spellings if f" {' '.join(re.findall(r'[a-z0-9]+', s))} " in words]
        if not seen:
            return []
        found.extend(seen)
    return found


def _numbers_in_text(strength: str, text: str) -> bool:
    numbers = re.findall(r"\d+(?:\.\d+)?", strength)
    return all(re.search(rf"(?<![\d.]){re.escape(number)}(?![\d])", text) for number in numbers)


def _time_in_text(clock: str, text: str) -> bool:
    hour, minute = (int(part) for part in clock.split(":"))
    return bool(re.search(rf"(?<!\d)0?{hour}[:.]{minute:02d}(?!\d)", text))


def _line_text(line: Any) -> str:
    return line.get("text", "") if isinstance(line, dict) else getattr(line, "text", str(line))


def _unsure(line: Any) -> bool:
    """The OCR was unsure of the line, read a word of it as the nearest word of its vocabulary, or the
    extractor read a number on it from a glyph that only looks like one."""
    get = line.get if isinstance(line, dict) else lambda key, default: getattr(line, key, default)
    confidence = get("confidence", 1.0)
    return (
        float(confidence if confidence is not None else 1.0) < UNSURE_LINE_CONFIDENCE
        or bool(get("corrected", ()))
        or _digits_from_look_alikes(_line_text(line))
    )


def _digits_from_look_alikes(text: str) -> bool:
    """Whether the extractor's reading of ``text`` holds a digit the text does not: "for G wks" read
    as 6 weeks, "TAKE ) CAPSULE" as 1 capsule, "1Ong" as 10 mg. A likely reading, never a certain one,
    so the patient is asked to check it (the numbers the page itself wrote are left alone)."""
    from health.scheduler.extract import normalise, with_fractions_written  # imports spaCy: only when needed

    written = with_fractions_written(text)
    return bool(Counter(re.findall(r"\d", normalise(text))) - Counter(re.findall(r"\d", written)))


# -- confirming --------------------------------------------------------------------------------------


def confirm(prescription: Prescription, items: list[dict[str, Any]], start_date: dt.date) -> list[Medication]:
    """Schedule the medications the patient checked (cleaned by ``forms.MedicationReviewForm``) and
    mark the prescription confirmed, all or nothing."""
    from health.scheduler.schedule import ScheduleError, schedule_medication

    if not items:
        raise ReviewError("Choose at least one medicine to schedule, or delete the prescription.")
    try:
        with transaction.atomic():
            prescription.mark_confirmed()
            return [
                schedule_medication(prescription.user, prescription=prescription, start_date=start_date, **item)
                for item in items
            ]
    except ScheduleError as exc:
        raise ReviewError(str(exc)) from exc


def delete(prescription: Prescription) -> None:
    """Delete the prescription and, once that is committed, its photo; medicines scheduled from it stay."""
    image = prescription.image
    prescription.delete()
    if image:
        # Only once the row is gone for good: a rolled-back request must not leave a row without its file.
        transaction.on_commit(lambda: image.storage.delete(image.name))
