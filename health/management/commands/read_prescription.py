"""``python manage.py read_prescription FILE [FILE ...] --json OUT.json``: read prescription images
with the app's own path (``images.open_prescription`` then ``reading.read_prescription``) and write
what was read, for scripts and evaluation. Nothing is stored in the database.

The output is a JSON list in argument order, one object per file that could be read::

    {"file": <path as given>, "text": <OCR text>, "seconds": <wall time for this file>,
     "medications": [<extract_medications' dicts>]}

``seconds`` runs from the file's bytes to the medications (checking and decoding the file, OCR,
extraction); the reader is built before the first file, so its construction is in no file's time.
A file that cannot be read (missing, not an image, refused by the upload checks) is left out of the
list with its reason on stderr, and the command exits with status 1 once the others are written.
``--json -`` writes the list to stdout.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from health.scheduler.images import RejectedUpload, open_prescription
from health.scheduler.ocr import get_reader
from health.scheduler.reading import read_prescription


class Command(BaseCommand):
    help = "Read prescription images with the app's OCR path and write the text and medications as JSON."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="+", metavar="FILE", help="prescription photos, scans or PDFs")
        parser.add_argument(
            "--json", dest="out", default="-", metavar="OUT.json", help="where to write the list ('-': stdout)"
        )

    def handle(self, *args, files: list[str], out: str, **options) -> None:
        get_reader()  # built once, before any file is timed
        results, failed = [], 0
        for name in files:
            try:
                data = Path(name).read_bytes()
            except OSError as exc:
                failed += 1
                self.stderr.write(f"{name}: cannot open the file ({exc.strerror or exc})")
                continue
            start = time.perf_counter()
            try:
                loaded = open_prescription(data)
            except RejectedUpload as exc:
                failed += 1
                self.stderr.write(f"{name}: {exc}")
                continue
            reading = read_prescription(loaded.image)
            results.append(
                {
                    "file": name,
                    "text": reading.text,
                    "seconds": round(time.perf_counter() - start, 3),
                    "medications": reading.medications,
                }
            )
        text = json.dumps(results, indent=2, ensure_ascii=False) + "\n"
        if out == "-":
            self.stdout.write(text, ending="")
        else:
            Path(out).write_text(text, encoding="utf-8")
        if failed:
            raise CommandError(f"{failed} of {len(files)} file(s) could not be read", returncode=1)
