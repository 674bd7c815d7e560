"""``manage.py agent_scenarios``: whole conversations through the live runtime, checked in the database.

    python manage.py agent_scenarios --file cases.jsonl --json var/eval/scenarios.json
    python manage.py agent_scenarios --symptom2disease --per-disease 5 --json var/eval/s2d.json
    python manage.py agent_scenarios --file var/agent_data/scenarios_test.jsonl --unseen 6 --seen 4 --workers 2

A case file has one JSON object a line: {"id", "message", "answers": [...],
"accept_appointment": bool, "category", "setup": {"appointments", "medications",
"vitals_days"}, "expect": {"specializations", "booked", "cancelled", "rescheduled",
"reminder", "sos", "stored_symptoms", "reply_mentions", "refused"}} (every key but
"message" optional; docs/evaluation.md, "Scenario format"). The report has a
table per case (with the expect keys that failed) and, when cases carry a
category, one per use case. Nothing persists: every case runs in a rolled-back
transaction (see agentlab.evaluation.scenarios).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from agentlab.evaluation import scenario_workers, scenarios
from agentlab.evaluation.offline import write_json
from agents.services import load_backend


class Command(BaseCommand):
    help = "Run end-to-end appointment scenarios with a simulated user and score the outcomes."
    stealth_options = ("backend",)

    def add_arguments(self, parser) -> None:
        source = parser.add_mutually_exclusive_group(required=True)
        source.add_argument("--file", help="A JSONL file of cases.")
        source.add_argument(
            "--symptom2disease", action="store_true", help="Cases from the Symptom2Disease evaluation set."
        )
        source.add_argument("--worker-input", help=argparse.SUPPRESS)  # one shard of --workers
        parser.add_argument(
            "--s2d-dir",
            default=str(Path(settings.BASE_DIR).parent / "shared" / "eval"),
            help="Folder with symptom2disease.csv and its _specialists.json (default <repo>/../shared/eval).",
        )
        parser.add_argument("--limit", type=int, default=None, help="Run at most N cases.")
        parser.add_argument("--per-disease", type=int, default=None, help="Symptom2Disease: at most N cases per label.")
        parser.add_argument(
            "--unseen", type=int, default=None, help="With --seen: the first N unseen cases of each category."
        )
        parser.add_argument(
            "--seen", type=int, default=None, help="With --unseen: the first N seen cases of each category."
        )
        parser.add_argument(
            "--workers",
            type=int,
            default=1,
            help="Parallel processes, each with its own model and a fresh SQLite database (default 1).",
        )
        parser.add_argument("--json", dest="json_out", default=None, help="Where to write the full report.")
        parser.add_argument("--no-progress", action="store_true", help="No progress bar on stderr.")

    def handle(self, *args, **options) -> None:
        if options.get("worker_input"):
            return self._work(options)
        for name in ("limit", "per_disease", "workers"):
            if options.get(name) is not None and options[name] < 1:
                raise CommandError(f"--{name.replace('_', '-')} must be at least 1.")
        for name in ("unseen", "seen"):
            if options.get(name) is not None and options[name] < 0:
                raise CommandError(f"--{name} must not be negative.")
        if (options.get("unseen") is None) != (options.get("seen") is None):
            raise CommandError("--unseen and --seen go together.")
        try:
            if options.get("symptom2disease"):
                cases = scenarios.symptom2disease_cases(
                    options["s2d_dir"], limit=options.get("limit"), per_disease=options.get("per_disease")
                )
            else:
                cases = scenarios.load_cases(options["file"], limit=options.get("limit"))
        except scenarios.CaseError as exc:
            raise CommandError(f"{options.get('file') or options['s2d_dir']}: {exc}") from exc
        if options.get("unseen") is not None:
            cases = scenarios.per_category(cases, unseen=options["unseen"], seen=options["seen"])
        if not cases:
            raise CommandError("No cases to run.")
        _require_migrated()
        workers = min(options["workers"], len(cases))
        if workers > 1:
            data = self._sharded(cases, workers, progress=not options.get("no_progress"))
        else:
            data = scenarios.run_cases(cases, self._backend(options), progress=not options.get("no_progress"))
        self.stdout.write(scenarios.render_report(data))
        if options.get("json_out"):
            write_json(options["json_out"], data)
            self.stdout.write(f"\nWrote {len(data['cases'])} case results to {options['json_out']}.")

    def _backend(self, options):
        backend = options.get("backend") or load_backend()
        if backend is None:
            raise CommandError("No model backend is available (see AGENT_BACKEND and the log).")
        return backend

    def _sharded(self, cases, workers: int, *, progress: bool):
        bar = None
        if progress:
            from tqdm import tqdm  # heavy, optional: loaded only when used

            bar = tqdm(total=len(cases), desc="agent_scenarios", unit="case", file=sys.stderr)
        try:
            return scenario_workers.run_sharded(cases, workers, bar)
        except RuntimeError as exc:
            raise CommandError(str(exc)) from exc
        finally:
            if bar is not None:
                bar.close()

    def _work(self, options) -> None:
        scenario_workers.run_worker(options["worker_input"], self._backend(options))


def _require_migrated() -> None:
    """The cases book real slots in the configured database: an unmigrated one would fail each
    case with "no such table" deep in a tool, so say it once, before any case runs."""
    from django.db import DEFAULT_DB_ALIAS, connections
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connections[DEFAULT_DB_ALIAS])
    if executor.migration_plan(executor.loader.graph.leaf_nodes()):
        raise CommandError("The database is not migrated: run `python manage.py migrate` first.")
