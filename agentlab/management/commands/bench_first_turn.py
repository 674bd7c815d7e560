"""``python manage.py bench_first_turn``: how long the first patients wait after `make run` starts.

Starts scripts/run_local.py on a throwaway SQLite database, waits ``--after`` seconds once it says
ready, then asks a complaint (the planner model's) and a records question (a desk's) at once, each
as its own signed-in patient, and the same again; prints each answer's time. A worker process
loads the chat models as it starts (agents/warm.py): run it with ``AGENT_WARM_UP=0`` in the
environment to see the cold first turns it saves.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from agentlab import load

QUESTIONS = (load.CHAT_TURNS[3], load.CHAT_TURNS[0])  # the complaint, "what's my next appointment?"


class Command(BaseCommand):
    help = "Time the first chat answers after make run's stack says ready (a complaint and a records question)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--after", type=float, default=30.0, help="Seconds between ready and the first questions.")

    def handle(self, *args, after: float, **options):
        if after < 0:
            raise CommandError("--after must be 0 or more seconds.")
        with tempfile.TemporaryDirectory(prefix="bench-first-turn-") as folder:
            with load.stack(Path(folder), None, None) as stack:
                ready = time.monotonic()
                patients = load.make_patients(stack.env, len(QUESTIONS))
                time.sleep(max(0.0, after - (time.monotonic() - ready)))
                per_question = asyncio.run(load.first_turns(stack.base, patients, QUESTIONS))
        self.stdout.write(load.first_turns_table(QUESTIONS, per_question, after=after))
