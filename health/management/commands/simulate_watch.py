"""``python manage.py simulate_watch --user alice --scenario hypoxia``: a smartwatch
streaming vitals to the public API with its device token.

Readings come from ``health.simulator`` and go out in batches (one POST per
``--batch-seconds`` of readings). A failed POST (network error, 5xx, 429) is
sent again, unchanged, with backoff: the server counts a resent reading as a
duplicate (same device and measured_at), so a retry never stores anything
twice. Without ``--token-file`` a new simulator device is paired to the user
and its token written to ``$DATA_DIR/simulator-<user>.token`` for later runs.
"""

from __future__ import annotations

import datetime as dt
import time
from pathlib import Path

import requests
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from health.models import Device
from health.simulator import SCENARIOS, batches, readings

RETRY_STATUSES = {429, 500, 502, 503, 504}


def parse_rate(text: str) -> float:
    """Readings per second from ``"1/s"``, ``"30/min"`` or a plain number."""
    number, _, unit = text.partition("/")
    try:
        value = float(number)
    except ValueError as exc:
        raise CommandError(f"--rate {text!r}: expected e.g. 1/s, 30/min or 2") from exc
    per = {"": 1.0, "s": 1.0, "min": 60.0, "h": 3600.0}.get(unit)
    if per is None or value <= 0:
        raise CommandError(f"--rate {text!r}: expected e.g. 1/s, 30/min or 2")
    return value / per


class Command(BaseCommand):
    help = "Stream simulated smartwatch vitals for a user over the public API (device token)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--user", required=True, help="Username (or id) of the patient wearing the watch.")
        parser.add_argument("--rate", default="1/s", help="Readings per second: 1/s (default), 30/min, ...")
        parser.add_argument("--scenario", default="normal", choices=SCENARIOS)
        parser.add_argument("--duration", type=float, default=600.0, help="Seconds of readings (default 600).")
        parser.add_argument("--base-url", default="http://127.0.0.1:8000", help="Where the app serves /api/.")
        parser.add_argument("--token-file", type=Path, help="File holding the watch's device token.")
        parser.add_argument("--batch-seconds", type=float, default=5.0, help="Seconds of readings per POST.")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument(
            "--no-wait",
            action="store_true",
            help="Send as fast as the server takes it; the readings then end now instead of starting now.",
        )
        parser.add_argument("--max-retries", type=int, default=8)

    def handle(self, *args, **options) -> None:
        rate = parse_rate(options["rate"])
        interval = 1.0 / rate
        token = self._token(options["user"], options["token_file"])
        session = requests.Session()
        session.headers["Authorization"] = f"Device {token}"
        url = options["base_url"].rstrip("/") + "/api/vitals/"
        duration = options["duration"]
        now = timezone.now()
        start = now - dt.timedelta(seconds=duration) if options["no_wait"] else now
        per_batch = max(1, min(1000, round(options["batch_seconds"] * rate)))
        stream = readings(options["scenario"], start=start, seconds=duration, interval=interval, seed=options["seed"])
        sent = created = duplicates = 0
        began = time.monotonic()
        for batch in batches(stream, per_batch):
            if not options["no_wait"]:
                # A watch sends what it has measured: wait until the batch's last reading is in the past.
                due = began + (len(batch) + sent) * interval
                time.sleep(max(0.0, due - time.monotonic()))
            answer = self._post(session, url, batch, options["max_retries"])
            sent += len(batch)
            created += answer.get("created", 0)
            duplicates += answer.get("duplicates", 0)
            self.stdout.write(f"{sent} readings sent ({created} stored, {duplicates} duplicates)")
        self.stdout.write(self.style.SUCCESS(f"done: {options['scenario']}, {sent} readings, {created} stored"))

    def _token(self, user_ref: str, token_file: Path | None) -> str:
        if token_file is not None:
            try:
                return token_file.read_text().strip()
            except OSError as exc:
                raise CommandError(f"cannot read the token file {token_file}: {exc}") from exc
        users = get_user_model().objects
        lookup = {"pk": int(user_ref)} if user_ref.isdigit() else {"username": user_ref}
        user = users.filter(**lookup).first()
        if user is None:
            raise CommandError(f"no user {user_ref!r}")
        device = Device(user=user, name="Simulated watch", kind=Device.Kind.SIMULATOR)
        token = device.issue_token()
        device.save()
        path = Path(settings.DATA_DIR) / f"simulator-{user.get_username()}.token"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(token + "\n")
        path.chmod(0o600)
        self.stdout.write(f"paired a new simulated watch for {user.get_username()}; token in {path}")
        return token

    def _post(self, session: requests.Session, url: str, batch: list[dict], max_retries: int) -> dict:
        delay = 0.5
        for attempt in range(max_retries + 1):
            try:
                response = session.post(url, json=batch, timeout=10)
            except requests.RequestException as exc:
                problem = f"network error: {type(exc).__name__}"
            else:
                if response.status_code not in RETRY_STATUSES:
                    if response.status_code >= 400:
                        raise CommandError(
                            f"the server refused a batch ({response.status_code}): {response.text[:500]}"
                        )
                    return response.json()
                problem = f"HTTP {response.status_code}"
            if attempt == max_retries:
                raise CommandError(f"giving up after {max_retries + 1} attempts ({problem})")
            self.stderr.write(f"{problem}; sending the same batch again in {delay:.1f} s")
            time.sleep(delay)
            delay = min(delay * 2, 10.0)
        raise AssertionError("unreachable")
