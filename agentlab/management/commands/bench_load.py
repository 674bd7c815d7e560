"""``python manage.py bench_load``: simulated watches and chat sessions against `make run`'s stack.

Starts scripts/run_local.py on a throwaway database (SQLite in a temporary folder; with
``--postgres URL`` a fresh PostgreSQL database made on that server and dropped afterwards) and,
with ``--redis URL``, that Redis instead of a local one; then drives it from outside for ``--seconds``
and prints the table of agentlab/load.py. The app's own database is never touched.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from contextlib import contextmanager, nullcontext
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from django.core.management.base import BaseCommand, CommandError, CommandParser

from agentlab import load


@contextmanager
def throwaway_postgres(server_url: str):
    """A new database on the server of ``server_url``, dropped on the way out."""
    import psycopg

    name = f"agentlite_load_{os.getpid()}"
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield urlunsplit(urlsplit(server_url)._replace(path=f"/{name}"))
    finally:
        with psycopg.connect(server_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class Command(BaseCommand):
    help = "Drive make run's server with simulated watches and chat sessions; print latency, errors, CPU and RAM."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--watches", type=int, default=100, help="Simulated watches, one reading a second each.")
        parser.add_argument("--chats", type=int, default=20, help="Concurrent chat sessions (signed-in patients).")
        parser.add_argument("--seconds", type=float, default=180.0, help="How long the load runs.")
        parser.add_argument("--postgres", default="", help="A PostgreSQL server URL: a throwaway database on it.")
        parser.add_argument("--redis", default="", help="A Redis URL instead of a local redis-server.")
        parser.add_argument("--log", default="", help="Write the stack's output (web, workers, beat) to this file.")
        parser.add_argument(
            "--saturate",
            type=int,
            default=0,
            metavar="READINGS",
            help="Instead of the timed load: post this many readings as fast as 16 clients can, three times, "
            "and print the web process's readings per second.",
        )

    def handle(self, *args, watches: int, chats: int, seconds: float, postgres: str, redis: str, log: str, **options):
        if watches < 1 or chats < 0 or chats > watches or seconds <= 0:
            raise CommandError("Need at least one watch, 0 <= chats <= watches, and seconds > 0.")
        if options["saturate"] < 0:
            raise CommandError("--saturate needs a number of readings.")
        with tempfile.TemporaryDirectory(prefix="bench-load-") as folder:
            with throwaway_postgres(postgres) if postgres else nullcontext() as database_url:
                with load.stack(Path(folder), database_url, redis or None) as stack:
                    patients = load.make_patients(stack.env, watches)
                    if options["saturate"]:
                        self._saturate(stack, patients, options["saturate"], postgres)
                        return
                    results = asyncio.run(
                        load.drive(stack.base, patients, chats=chats, seconds=seconds, pid=stack.process.pid)
                    )
                    stored = load.stored_readings(stack.env)
                    if log:
                        Path(log).write_text("".join(stack.output))
                database = "PostgreSQL" if postgres else "SQLite"
                database += " + Redis" if redis else " + local Redis"
                self.stdout.write(load.table(results, stored=stored, watches=watches, chats=chats, database=database))

    def _saturate(self, stack, patients: list[dict], readings: int, postgres: str) -> None:
        asyncio.run(load.saturate(stack.base, patients, min(readings, 300)))  # a first, unmeasured round
        time.sleep(20)  # the workers' start-up loading settles
        lanes = stack.env.get("WEB_MAX_CONCURRENT_REQUESTS", "the default")
        self.stdout.write(
            f"saturated: {readings} readings, one per POST, 16 clients; {'PostgreSQL' if postgres else 'SQLite'}; "
            f"WEB_MAX_CONCURRENT_REQUESTS={lanes}"
        )
        for round_ in range(1, 4):
            stored, refused, took = asyncio.run(load.saturate(stack.base, patients, readings))
            self.stdout.write(f"round {round_}: {stored} stored, {refused} refused, {stored / took:.0f} readings/s")
