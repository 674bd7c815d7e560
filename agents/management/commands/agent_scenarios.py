"""``manage.py agent_scenarios``: whole conversations through the live runtime, checked in the database.

    python manage.py agent_scenarios --file cases.jsonl --json var/eval/scenarios.json
    python manage.py agent_scenarios --symptom2disease --per-disease 5 --json var/eval/s2d.json

A case file has one JSON object a line: {"id", "message", "answers": [...],
"accept_appointment": bool, "expect": {"specializations": [...], "booked": bool}}.
Nothing persists: every case runs in a rolled-back transaction (see
agents.evaluation.scenarios).
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from agents.evaluation import scenarios
from agents.evaluation.offline import write_json
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
        parser.add_argument(
            "--s2d-dir",
            default=str(Path(settings.BASE_DIR).parent / "shared" / "eval"),
            help="Folder with symptom2disease.csv and its _specialists.json (default <repo>/../shared/eval).",
        )
        parser.add_argument("--limit", type=int, default=None, help="Run at most N cases.")
        parser.add_argument("--per-disease", type=int, default=None, help="Symptom2Disease: at most N cases per label.")
        parser.add_argument("--json", dest="json_out", default=None, help="Where to write the full report.")
        parser.add_argument("--no-progress", action="store_true", help="No progress bar on stderr.")

    def handle(self, *args, **options) -> None:
        for name in ("limit", "per_disease"):
            if options.get(name) is not None and options[name] < 1:
                raise CommandError(f"--{name.replace('_', '-')} must be at least 1.")
        try:
            if options.get("symptom2disease"):
                cases = scenarios.symptom2disease_cases(
                    options["s2d_dir"], limit=options.get("limit"), per_disease=options.get("per_disease")
                )
            else:
                cases = scenarios.load_cases(options["file"], limit=options.get("limit"))
        except scenarios.CaseError as exc:
            raise CommandError(f"{options.get('file') or options['s2d_dir']}: {exc}") from exc
        if not cases:
            raise CommandError("No cases to run.")
        backend = options.get("backend") or load_backend()
        if backend is None:
            raise CommandError("No model backend is available (see AGENT_BACKEND and the log).")
        data = scenarios.run_cases(cases, backend, progress=not options.get("no_progress"))
        self.stdout.write(scenarios.render_report(data))
        if options.get("json_out"):
            write_json(options["json_out"], data)
            self.stdout.write(f"\nWrote {len(data['cases'])} case results to {options['json_out']}.")
