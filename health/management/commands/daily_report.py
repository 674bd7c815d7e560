"""``python manage.py daily_report --user USERNAME [--date YYYY-MM-DD] [--json OUT.json]``: build (or
rebuild) one patient's daily report, as the evening tick does, and write its computed facts.

The date is the patient's local day (default: their today, up to now). The JSON is the report's
facts (``health.reports.generate.as_facts``): ``heart_rate {min, mean, max, resting}``, ``spo2 {min,
mean, minutes_below_92}``, ``blood_pressure {systolic_mean, diastolic_mean, systolic_max}``,
``steps``, ``sleep_minutes``, ``alerts [{kind, started_at, outcome}]``, ``doses {taken, missed,
skipped, adherence}``, ``appointments``, ``narrative`` and more; a measure without readings is
null. ``--json -`` (the default) writes it to stdout.

An unknown user, a malformed date or a day that has not started yet stops the command with the
reason before anything is written (no report row, no file).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import tempfile
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from health.models.appointments import patient_zone
from health.reports.facts import ReportError
from health.reports.generate import as_facts, build


def _write_atomically(path: Path, text: str) -> None:
    """The file appears whole or not at all (a reader never sees half a report)."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


class Command(BaseCommand):
    help = "Build (or rebuild) a patient's daily report and write its computed facts as JSON."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--user", required=True, metavar="USERNAME", help="the patient's username")
        parser.add_argument("--date", metavar="YYYY-MM-DD", help="the patient's local day (default: today)")
        parser.add_argument(
            "--json", dest="out", default="-", metavar="OUT.json", help="where to write the facts ('-': stdout)"
        )

    def handle(self, *args, user: str, date: str | None, out: str, **options) -> None:
        try:
            patient = get_user_model().objects.select_related("profile").get(username=user)
        except get_user_model().DoesNotExist:
            raise CommandError(f"No user named {user!r}.") from None
        if date is None:
            day = timezone.now().astimezone(patient_zone(patient)).date()
        else:
            try:
                day = dt.date.fromisoformat(date)
            except ValueError:
                raise CommandError(f"--date {date!r} is not a date in the form YYYY-MM-DD.") from None
        target = None if out == "-" else Path(out)
        if target is not None and not target.parent.is_dir():
            raise CommandError(f"--json {out!r}: the folder {str(target.parent)!r} does not exist.")
        try:
            report = build(patient, day)
        except ReportError as exc:
            raise CommandError(str(exc)) from None
        text = json.dumps(as_facts(report), ensure_ascii=False, indent=2) + "\n"
        if target is None:
            self.stdout.write(text, ending="")
        else:
            _write_atomically(target, text)
            self.stderr.write(f"Report of {day.isoformat()} for {user} written to {out}.")
