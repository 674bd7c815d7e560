"""``manage.py agent_eval``: score the planner and caller models on an SFT test split.

    python manage.py agent_eval --data var/data/test.jsonl --json var/eval/offline.json
    python manage.py agent_eval --data var/data/test.jsonl --categories general counter --limit 200 --json out.json

Prints the seed paper's Tables 2 and 3 (per category, the appointment average,
seen/unseen, all) and CAMPHOR's Tool F1 / Plan F1; the JSON file holds the
same plus every sample's prediction and scores. See agentlab.evaluation.
"""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from agentlab.evaluation import offline
from agents.services import load_backend


class Command(BaseCommand):
    help = "Evaluate the planner/caller model on a JSONL test split (BLEU, ROUGE, tool/parameter accuracy, F1)."
    # Tests (and scripts) may pass a ready backend: call_command(..., backend=...).
    stealth_options = ("backend",)

    def add_arguments(self, parser) -> None:
        parser.add_argument("--data", required=True, help="The JSONL test split (one SFT sample per line).")
        parser.add_argument("--json", required=True, dest="json_out", help="Where to write the full report.")
        parser.add_argument("--limit", type=int, default=None, help="Evaluate only the first N samples.")
        parser.add_argument("--categories", nargs="+", default=None, help="Only these categories.")
        parser.add_argument(
            "--per-category", type=int, default=None, help="Only the first N conversations of each category."
        )
        parser.add_argument("--no-progress", action="store_true", help="No progress bar on stderr.")

    def handle(self, *args, data: str, json_out: str, limit=None, categories=None, **options) -> None:
        per_category = options.get("per_category")
        if (limit is not None and limit < 1) or (per_category is not None and per_category < 1):
            raise CommandError("--limit and --per-category must be at least 1.")
        try:
            # Read and check the whole file before loading a model.
            samples = offline.load_samples(data, categories=categories, limit=limit, per_category=per_category)
        except offline.DatasetError as exc:
            raise CommandError(f"{data}: {exc}") from exc
        if not samples:
            raise CommandError(f"{data}: no samples to evaluate (check --categories).")
        backend = options.get("backend") or load_backend()
        if backend is None:
            raise CommandError("No model backend is available (see AGENT_BACKEND and the log).")
        report = offline.run(
            samples,
            backend,
            data=data,
            categories=categories,
            limit=limit,
            timeout=settings.AGENT_CALL_TIMEOUT_SECONDS,
            progress=not options.get("no_progress"),
        )
        if getattr(backend, "few_shot", False):
            self.stdout.write(
                "Note: this backend has no trained adapters (few-shot prompts in the app); it is scored on the "
                "dataset's adapter prompts as they are: a baseline."
            )
        self.stdout.write(offline.render_report(report))
        failed = [sample for sample in report["samples"] if sample["error"]]
        if failed:
            self.stderr.write(
                self.style.WARNING(
                    f"{len(failed)} of {len(report['samples'])} model calls failed and count as wrong "
                    f"(first: {failed[0]['id']}: {failed[0]['error']})."
                )
            )
        offline.write_json(json_out, report)
        self.stdout.write(f"\nWrote {len(report['samples'])} scored samples to {json_out}.")
