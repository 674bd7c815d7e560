"""``python manage.py bench_report``: how long the evening report of a day of 1 Hz vitals takes to build.

A throwaway user gets one local day of readings, one a second by default (86,400 rows: heart rate,
SpO2 with a few dips below 92 %, steps while walking, blood pressure every 15 minutes, sleep stages
in the night), on a throwaway copy of the configured database (for SQLite a temporary file with the
app's options), never the real one. Then the report is built (``health.reports.generate.build``,
facts, narrative and the write) ``--runs`` times: the first build creates the row, the next rebuild
it. It prints the rows, the first build's seconds, the median and the slowest, and the target
(< 1 s per user-day).
"""

from __future__ import annotations

import datetime as dt
import math
import random
import statistics
import tempfile
import time
import zoneinfo
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser
from django.db import connection, transaction

from health.models import Device, PatientProfile, VitalReading
from health.reports.generate import build

ZONE = "Europe/Berlin"
DAY = dt.date(2026, 3, 2)
TARGET_SECONDS = 1.0
BATCH = 5000


def day_of_readings(device: Device, seconds: int, *, seed: int = 7) -> int:
    """Store ``seconds`` readings a second apart from the local midnight of ``DAY``; return how many."""
    rng = random.Random(seed)
    start = dt.datetime.combine(DAY, dt.time(), tzinfo=zoneinfo.ZoneInfo(ZONE))
    rows, stored = [], 0
    for second in range(seconds):
        hour = second / 3600
        asleep = hour < 6.5
        walking = 8 <= hour < 9 or 17.5 <= hour < 18.25
        heart = 52 + 6 * math.sin(second / 900) if asleep else (105 if walking else 72) + rng.gauss(0, 4)
        reading = VitalReading(
            user=device.user,
            device=device,
            measured_at=start + dt.timedelta(seconds=second),
            heart_rate=max(30, min(200, round(heart))),
            spo2=round(min(100.0, (90.5 if 3 <= hour < 3.05 else 97.0) + rng.gauss(0, 0.6)), 1),
            steps=rng.randint(1, 3) if walking else 0,
        )
        if second % 900 == 0:
            reading.systolic_bp, reading.diastolic_bp = 118 + rng.randint(-8, 12), 76 + rng.randint(-6, 8)
        if asleep:
            reading.sleep_stage = ("light", "deep", "light", "rem")[int(hour * 2) % 4]
            reading.sleep_minutes = 1 / 60
        rows.append(reading)
        if len(rows) == BATCH:
            VitalReading.objects.bulk_create(rows)
            stored, rows = stored + len(rows), []
    VitalReading.objects.bulk_create(rows)
    return stored + len(rows)


def measure(seconds: int, runs: int) -> tuple[int, list[float]]:
    """(rows stored, seconds of each build) for a throwaway user's day in the current database."""
    user = get_user_model().objects.create_user(username=f"bench-report-{time.time_ns()}", password=None)
    PatientProfile.objects.update_or_create(user=user, defaults={"timezone": ZONE})
    device = Device(user=user, name="Bench watch", kind=Device.Kind.SIMULATOR)
    device.issue_token()
    device.save()
    with transaction.atomic():
        rows = day_of_readings(device, seconds)
    end_of_day = dt.datetime.combine(DAY + dt.timedelta(days=1), dt.time(), tzinfo=zoneinfo.ZoneInfo(ZONE))
    timings = []
    for _ in range(runs):
        begin = time.perf_counter()
        build(user, DAY, now=end_of_day)
        timings.append(time.perf_counter() - begin)
    return rows, timings


class Command(BaseCommand):
    help = "Time the daily report's build over a day of 1 Hz vitals, on a throwaway database."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--seconds", type=int, default=86_400, help="readings, one a second (default: a day)")
        parser.add_argument("--runs", type=int, default=5, help="builds to time (the first creates the report)")

    def handle(self, *args, seconds: int, runs: int, **options) -> None:
        with tempfile.TemporaryDirectory(prefix="bench-report-") as folder:
            if connection.vendor == "sqlite":
                connection.settings_dict.setdefault("TEST", {})["NAME"] = str(Path(folder) / "bench.sqlite3")
            original = connection.settings_dict["NAME"]
            connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
            try:
                rows, timings = measure(seconds, max(1, runs))
            finally:
                connection.creation.destroy_test_db(original, verbosity=0)
        table = [
            ("measure", "value", "target"),
            ("readings in the day (1 Hz)", f"{rows:,}", ""),
            ("first build (creates the report)", f"{timings[0]:.3f} s", f"< {TARGET_SECONDS:g} s"),
            (f"median of {len(timings)} builds", f"{statistics.median(timings):.3f} s", f"< {TARGET_SECONDS:g} s"),
            ("slowest build", f"{max(timings):.3f} s", f"< {TARGET_SECONDS:g} s"),
        ]
        widths = [max(len(row[i]) for row in table) for i in range(3)]
        for row in table:
            self.stdout.write("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip())
        self.stdout.write(f"{connection.vendor} database; {rows:,} readings; {len(timings)} builds")
