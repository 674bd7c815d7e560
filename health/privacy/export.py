"""Everything tied to an account, as one download: ``data.json`` with every row, the daily reports
as the PDFs a doctor gets, and the prescription photos as stored.

The JSON is written row by row (a year of 1 Hz vitals is tens of millions of rows), so building
an export holds one row in memory, not the whole history.
"""

from __future__ import annotations

import logging
import tempfile
import zipfile
from collections.abc import Iterator
from typing import IO

from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.utils import timezone

from health.models import DailyReport, Prescription
from health.privacy.records import SECRET_FIELDS, owned_models
from health.reports.pdf import report_pdf

FORMAT = "agent-lite-export"
VERSION = 1
_encode = DjangoJSONEncoder(ensure_ascii=False).encode
log = logging.getLogger(__name__)


def export_json(user) -> Iterator[str]:
    """The account and every row tied to it, as chunks of one JSON document:
    ``{"format", "version", "exported_at", "account", "records": {"app.Model": [row, ...]}}``."""
    header = {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": timezone.now(),
        "account": {
            "id": user.pk,
            "username": user.get_username(),
            "first_name": user.first_name,
            "last_name": user.last_name,
            "email": user.email,
            "date_joined": user.date_joined,
            "last_login": user.last_login,
        },
    }
    yield _encode(header)[:-1] + ', "records": {'
    for index, owned in enumerate(owned_models()):
        yield ("" if index == 0 else ", ") + _encode(owned.label) + ": ["
        columns = [f.attname for f in owned.model._meta.concrete_fields if f.name not in SECRET_FIELDS]
        for number, row in enumerate(owned.rows(user).values(*columns).iterator(chunk_size=2000)):
            yield ("" if number == 0 else ", ") + _encode(row)
        yield "]"
    yield "}}"


def write_archive(user, target: IO[bytes]) -> None:
    """The ZIP download: ``data.json``, ``reports/<date>.pdf`` and ``prescriptions/<id>.<ext>``."""
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        with archive.open("data.json", "w") as data:
            for chunk in export_json(user):
                data.write(chunk.encode())
        for report in DailyReport.objects.filter(user=user).select_related("user").order_by("date"):
            try:
                pdf = report_pdf(report)
            except (KeyError, TypeError, ValueError):
                # One report whose figures cannot be laid out must not cost the patient the rest of
                # their data: its figures are in data.json, and the archive says so.
                log.exception("daily report %s could not be rendered for the export", report.pk)
                archive.writestr(
                    f"reports/{report.date.isoformat()}.txt",
                    "This report could not be made into a PDF; its figures are in data.json (health.DailyReport).\n",
                )
                continue
            archive.writestr(f"reports/{report.date.isoformat()}.pdf", pdf)
        for prescription in Prescription.objects.filter(user=user).exclude(image="").order_by("pk"):
            _add_file(archive, prescription.image, f"prescriptions/{prescription.pk}")


def _add_file(archive: zipfile.ZipFile, field: models.fields.files.FieldFile, stem: str) -> None:
    suffix = "." + field.name.rsplit(".", 1)[-1] if "." in field.name else ""
    try:
        with field.open("rb") as source, archive.open(stem + suffix, "w") as copy:
            for block in iter(lambda: source.read(1 << 16), b""):
                copy.write(block)
    except FileNotFoundError:
        # A photo removed from disk by hand: its row in data.json still says it existed.
        pass


def archive_file(user) -> IO[bytes]:
    """The ZIP in a temporary file, rewound for reading; it disappears when closed."""
    target = tempfile.TemporaryFile()
    write_archive(user, target)
    target.seek(0)
    return target


def archive_name(user) -> str:
    return f"agent-lite-{user.get_username()}-{timezone.localdate().isoformat()}.zip"
