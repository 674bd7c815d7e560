"""``python manage.py bench_vitals``: how fast vitals get in, and how fast an
abnormal reading reaches the user.

It runs on a throwaway copy of the configured database (for SQLite a
temporary file with the same options: WAL, IMMEDIATE, synchronous=NORMAL),
never on the real one, and prints one table:

- *batch API*: readings/s posted through ``/api/vitals/`` with DRF's
  ``APIClient`` and a device token, in batches of ``--batch`` (the full
  request path in-process: authentication, validation, the idempotency
  check, storing, the vitals monitor, the live push), no network;
- *bulk_create*: the same rows stored with a plain ``bulk_create`` per batch,
  the reference the issue measures against (the two paths take turns, batch
  by batch, so the machine's load weighs on both alike);
- *soft SOS latency*: for each trial, a watch has sent a minute of low SpO2
  minus one reading; the clock runs from just before the POST of the reading
  that completes the persistence rule to (a) the soft SOS notification row
  being written (in the request's transaction, which commits as the view
  returns; the live push follows at commit) and (b) the POST's answer. With
  no broker configured Celery runs eagerly, so (b) also includes the Action
  Manager's soft SOS flow run inline after commit: with the local model
  loaded that is seconds of generation. With a worker running, that flow runs
  there and does not hold up the answer.

``--worker`` measures the soft SOS latency with a real broker and a Celery
worker subprocess instead (see ``_bench_worker``). Either way the bench's
cache, channel layer and (without ``--worker``) Celery stay in-process: its
users and alerts never reach the app's.
"""

from __future__ import annotations

import datetime as dt
import gc
import statistics
import tempfile
import time
from pathlib import Path

from celery import current_app as celery_app
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser
from django.db import connection, transaction
from django.test.utils import override_settings
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from rest_framework.test import APIClient

from health.models import Device, Notification, VitalReading
from health.simulator import batches, readings


def _watch(username: str) -> tuple[Device, APIClient]:
    user = get_user_model().objects.create_user(username=username, password=None)
    device = Device(user=user, name="Bench watch", kind=Device.Kind.SIMULATOR)
    token = device.issue_token()
    device.save()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Device {token}")
    return device, client


def measure_throughput(total: int, batch: int) -> tuple[float, float]:
    """Readings/s through the batch API, and through plain bulk_create of the same rows.

    The two paths take turns batch by batch (the API stores a batch for one
    watch, bulk_create the same rows for another), so a load change on a
    shared machine weighs on both alike and the tables grow alike.
    """
    start = timezone.now() - dt.timedelta(seconds=total + 60)
    items = list(readings("normal", start=start, seconds=total, seed=7))
    _, client = _watch("bench-api")
    device, _ = _watch("bench-bulk")
    # One warm-up each first: imports and first-query set-up are start-up
    # costs, not throughput.
    warm_up = list(readings("normal", start=start - dt.timedelta(hours=1), seconds=5))
    client.post("/api/vitals/", warm_up, format="json")
    VitalReading.objects.bulk_create(
        [VitalReading(user_id=device.user_id, device=device, measured_at=start - dt.timedelta(hours=1), heart_rate=70)]
    )
    # What lives on (the bench's own readings, every module loaded) is moved
    # out of the collector's way, as a preforking server does after start-up;
    # else each full collection walks it all and lands on whichever path
    # happens to allocate at that moment.
    gc.collect()
    gc.freeze()
    api_seconds = bulk_seconds = 0.0
    try:
        for chunk in batches(iter(items), batch):
            began = time.perf_counter()
            response = client.post("/api/vitals/", chunk, format="json")
            api_seconds += time.perf_counter() - began
            if response.status_code != 201:
                raise RuntimeError(f"the API refused a bench batch: {response.status_code} {response.content[:300]!r}")
            # The reference gets the rows parsed, as the API's view gets them
            # (the API's time includes its JSON and its validation).
            parsed = [{**item, "measured_at": parse_datetime(item["measured_at"])} for item in chunk]
            began = time.perf_counter()
            with transaction.atomic():
                VitalReading.objects.bulk_create(
                    [VitalReading(user_id=device.user_id, device=device, **r) for r in parsed]
                )
            bulk_seconds += time.perf_counter() - began
    finally:
        gc.unfreeze()
    return len(items) / api_seconds, len(items) / bulk_seconds


def measure_latency(trials: int) -> tuple[list[float], list[float]]:
    """Per trial: seconds from the triggering POST to the notification row, and to the answer."""
    written: list[float] = []
    answered: list[float] = []
    for trial in range(trials):
        device, client = _watch(f"bench-latency-{trial}")
        t0 = timezone.now() - dt.timedelta(minutes=5)
        low = [
            {"measured_at": (t0 + dt.timedelta(seconds=10 * i)).isoformat(), "spo2": 86, "heart_rate": 88}
            for i in range(7)
        ]
        client.post("/api/vitals/", low[:-1], format="json")
        if Notification.objects.filter(user_id=device.user_id).exists():
            raise RuntimeError("the soft SOS was raised before the trigger reading: the bench is wrong")
        sent_at = timezone.now()
        began = time.perf_counter()
        response = client.post("/api/vitals/", low[-1], format="json")
        answered.append(time.perf_counter() - began)
        notification = Notification.objects.filter(user_id=device.user_id, kind="alert").order_by("pk").first()
        if response.status_code != 201 or notification is None:
            raise RuntimeError("the trigger reading did not notify the user")
        written.append((notification.created_at - sent_at).total_seconds())
    return written, answered


def _p(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def _ms(values: list[float]) -> str:
    return f"{_p(values, 0.5) * 1000:.0f} / {_p(values, 0.95) * 1000:.0f} ms"


class Command(BaseCommand):
    help = "Benchmark vitals ingestion (batch API vs bulk_create) and abnormal-reading -> notification latency."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--readings", type=int, default=20_000, help="Readings per throughput run.")
        parser.add_argument("--batch", type=int, default=1000, help="Readings per POST (at most 1,000).")
        parser.add_argument("--trials", type=int, default=None, help="Latency trials (30; 20 with --worker).")
        parser.add_argument(
            "--worker",
            action="store_true",
            help="Soft SOS latency with a Celery worker subprocess and Redis (a local redis-server unless "
            "REDIS_URL is set), instead of the in-process benchmark.",
        )
        parser.add_argument(
            "--redis-db", type=int, default=15, help="With --worker and REDIS_URL set: the logical database to use."
        )

    def handle(self, *args, **options) -> None:
        worker = options["worker"]
        trials = options["trials"] or (20 if worker else 30)
        # The bench's users are not the app's: their baselines must not land
        # in the app's cache, their live events not in its channel layer, and
        # their soft SOS flows not on its broker (a worker of the app would
        # look their alert ids up in the app's database).
        isolated = override_settings(
            ALLOWED_HOSTS=[*settings.ALLOWED_HOSTS, "testserver"],  # the test client's host
            EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend",
            CACHES={"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}},
            CHANNEL_LAYERS={"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}},
        )
        eager = celery_app.conf.task_always_eager
        if not worker:
            celery_app.conf.task_always_eager = True
        with isolated, tempfile.TemporaryDirectory(prefix="bench-vitals-") as folder:
            if connection.vendor == "sqlite":
                connection.settings_dict.setdefault("TEST", {})["NAME"] = str(Path(folder) / "bench.sqlite3")
            original = connection.settings_dict["NAME"]
            connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
            try:
                if worker:
                    # the two bench modules use each other
                    from health.management.commands._bench_worker import measure_with_worker

                    results, what = measure_with_worker(trials, options["redis_db"])
                else:
                    api_rate, bulk_rate = measure_throughput(options["readings"], min(1000, options["batch"]))
                    written, answered = measure_latency(trials)
            finally:
                connection.creation.destroy_test_db(original, verbosity=0)
                celery_app.conf.task_always_eager = eager
        if worker:
            self._table(
                [
                    ("soft SOS with the worker: p50 / p95", "value", "target"),
                    ("POST of the trigger reading answered", _ms(results["answered"]), ""),
                    ("notification event at the user's websocket", _ms(results["event"]), "p95 < 2 s"),
                    ("worker's soft SOS flow: notification row", _ms(results["agent_row"]), ""),
                    ("worker's soft SOS flow: websocket event", _ms(results["agent_event"]), ""),
                ]
            )
            self.stdout.write(
                f"\n{trials} trials; {what}; database: {connection.vendor}; AGENT_BACKEND={settings.AGENT_BACKEND}."
            )
            return
        ratio = api_rate / bulk_rate
        self._table(
            [
                ("metric", "value", "target"),
                (f"batch API ({options['batch']}/POST, APIClient)", f"{api_rate:,.0f} readings/s", ">= 2,000"),
                ("plain bulk_create (same rows)", f"{bulk_rate:,.0f} readings/s", "reference"),
                ("batch API / bulk_create", f"{ratio:.0%}", ">= 50%"),
                ("soft SOS: notification written p50/p95", _ms(written), "p95 < 2 s"),
                ("soft SOS: POST answered p50/p95", _ms(answered), "p95 < 2 s"),
            ]
        )
        self.stdout.write(
            f"\n{options['readings']:,} readings; {trials} latency trials "
            f"(mean answer {statistics.mean(answered) * 1000:.0f} ms), database: {connection.vendor}."
        )

    def _table(self, rows: list[tuple[str, str, str]]) -> None:
        widths = [max(len(row[i]) for row in rows) for i in range(3)]
        for index, row in enumerate(rows):
            self.stdout.write(" | ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)))
            if index == 0:
                self.stdout.write("-+-".join("-" * width for width in widths))
