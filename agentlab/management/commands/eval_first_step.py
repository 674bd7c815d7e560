"""``manage.py eval_first_step``: what the guards decide before the model runs, per use case.

    python manage.py eval_first_step                          # 40 a use case, dev and test
    python manage.py eval_first_step --split dev --show-misreads
    python manage.py eval_first_step --per-case 200 --seed 7 --json var/eval/first_step.json

Prints, per split, the confusion matrix of generated patient requests (rows: use case, columns:
the deterministic layer's decision: help now, English-only reply, scope refusal, the appointments
desk, the health desk, the medicines desk, or the model) with each use case's share decided as
expected. ``--show-misreads`` lists the
dev split's misread requests; the test split's texts are never printed. See
agentlab.evaluation.first_step and agentlab.data.requests.
"""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError

from agentlab.data import requests as generated
from agentlab.evaluation import first_step as evaluate
from agentlab.evaluation.offline import table

HEADERS = {
    "help_now": "help now",
    "other_language": "other lang.",
    "out_of_scope": "out of scope",
    "courtesy": "courtesy",
    "appointments_list": "desk: list",
    "appointments_cancel": "desk: cancel",
    "appointments_reschedule": "desk: reschedule",
    "my_health": "desk: my health",
    "medicines_today": "desk: doses today",
    "medicines_taken": "desk: dose taken",
    "medicines_photo": "desk: photo",
    "medicines_reminder": "desk: reminder",
    "booking": "desk: booking",
    "model": "model",
}
DESKS = (
    ("appointments", "Appointments desk", "agents.appointment_desk"),
    ("health", "Health desk", "agents.health_desk"),
    ("medicines", "Medicines desk", "agents.medicine_desk"),
    ("booking", "Booking desk", "agents.booking_desk"),
)


class Command(BaseCommand):
    help = "Score the first-step decision (help now, language, scope, the desks, model) per use case."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--per-case", type=int, default=40, help="Requests a use case in each split (default 40).")
        parser.add_argument("--seed", type=int, default=generated.SEED, help="Seed of the generated requests.")
        parser.add_argument("--split", choices=("dev", "test", "both"), default="both", help="Which split to score.")
        parser.add_argument(
            "--show-misreads", action="store_true", help="List the dev split's misread requests (never the test's)."
        )
        parser.add_argument("--json", dest="json_out", default=None, help="Write the scores here (no texts).")

    def handle(self, *args, per_case: int, seed: int, split: str, show_misreads: bool, json_out, **options):
        if per_case < 1:
            raise CommandError("--per-case must be 1 or more.")
        splits = generated.SPLITS if split == "both" else (split,)
        desks = evaluate.readers()
        for key, title, module in DESKS:
            self.stdout.write(
                f"{title}: {module}.read" if desks[key] else f"{title}: none ({module} is missing: it never intercepts)"
            )
        requests = generated.generate(per_case, seed, splits)
        try:
            with evaluate.directory():
                scores = evaluate.evaluate(requests)
        except DatabaseError as exc:
            raise CommandError(
                f"The database cannot be read ({type(exc).__name__}): run `manage.py migrate`, or point "
                "DATABASE_URL at a migrated copy."
            ) from exc
        for score in scores.values():
            self._split(score, per_case, seed)
        if show_misreads:
            if "dev" in scores:
                self._misreads(scores["dev"])
            else:
                self.stdout.write("\nMisreads are listed for the dev split only.")
        if json_out:
            path = Path(json_out)
            path.parent.mkdir(parents=True, exist_ok=True)
            report = {"per_case": per_case, "seed": seed, "desk": desks["appointments"], "desks": desks}
            report.update({name: score.as_dict() for name, score in scores.items()})
            path.write_text(json.dumps(report, indent=2) + "\n")
            self.stdout.write(f"Wrote {path}")

    def _split(self, score: evaluate.SplitScore, per_case: int, seed: int) -> None:
        self.stdout.write(
            f"\nFirst step, {score.split} split: {score.right()} of {score.cases()} "
            f"({100 * score.accuracy():.1f} %) decided as expected in {score.seconds:.1f} s "
            f"({per_case} a use case, seed {seed})"
        )
        columns = score.columns()
        rows = [["use case", "expected", "n", "accuracy", *(HEADERS.get(name, name) for name in columns)]]
        for name in generated.USE_CASES:
            if name not in score.matrix:
                continue
            row = score.matrix[name]
            rows.append(
                [
                    name,
                    HEADERS[evaluate.EXPECTED[name]],
                    str(score.cases(name)),
                    f"{100 * score.accuracy(name):.1f} %",
                    *(str(row.get(decision, 0)) for decision in columns),
                ]
            )
        self.stdout.write(table(rows))
        caught = score.matrix.get("help_now", {}).get(evaluate.HELP_NOW, 0)
        self.stdout.write(
            f"Help now caught: {caught} of {score.cases('help_now')}; SOS started for another use case: "
            f"{score.false_sos}; care requests refused (scope, language or courtesy): {score.refused_care}."
        )

    def _misreads(self, score: evaluate.SplitScore) -> None:
        self.stdout.write(f"\nMisreads on the dev split ({len(score.misreads)}):")
        if not score.misreads:
            return
        order = {name: i for i, name in enumerate(generated.USE_CASES)}
        misreads = sorted(score.misreads, key=lambda m: (order[m.use_case], m.decision, m.family, m.text))
        rows = [["use case", "decided", "family", "request"]]
        rows += [
            [m.use_case, HEADERS.get(m.decision, m.decision), m.family, m.text.replace("|", "/")] for m in misreads
        ]
        self.stdout.write(table(rows))
