"""``manage.py train_first_step``: train the first step's learned second opinion (agents/first_step.py).

    python manage.py train_first_step                      # -> agents/knowledge/first_step.npz (+ .json card)
    python manage.py train_first_step --per-case 400 --out /tmp/first_step.npz

Generated requests of the dev template families only; the threshold comes from cross-validation by
family on them (agentlab/training/first_step.py). Score it with ``eval_first_step`` (test families).
"""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from agentlab.evaluation.offline import table
from agentlab.training import first_step
from agents.first_step import MODEL_PATH


class Command(BaseCommand):
    help = "Train the first step's classifier (routes to a desk what no rule read) on generated dev requests."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--per-case", type=int, default=first_step.PER_CASE, help="Requests per use case.")
        parser.add_argument("--seed", type=int, default=first_step.SEED, help="Generation seed.")
        parser.add_argument(
            "--per-disease", type=int, default=4, help="Generated complaints per disease no scope answer may refuse."
        )
        parser.add_argument("--out", default=str(MODEL_PATH), help="Where to write the .npz (the card beside it).")

    def handle(self, *args, per_case: int, seed: int, per_disease: int, out: str, **options) -> None:
        if per_case < 5:
            raise CommandError("--per-case must be at least 5 (the cross-validation holds out whole families).")
        trained = first_step.train(per_case, seed, per_disease)
        first_step.save(trained, Path(out))
        rows = [
            [
                f"{t:.2f}",
                f"{r['desk_right']}/{r['desk_requests']}",
                str(r["wrong_desk"]),
                str(r["model_taken"]),
                f"{r['scope_refused']}/{r['scope_requests_left']}",
                str(r["care_refused"]),
                str(r["complaints_refused"]),
            ]
            for t, r in ((float(k), v) for k, v in trained.card["cross_validation"].items())
        ]
        self.stdout.write(trained.card["data"])
        header = [
            "threshold",
            "desk requests routed right",
            "wrong desk",
            "model requests taken",
            "out of scope answered (left by the rules)",
            "other requests refused",
            "complaints refused",
        ]
        self.stdout.write(table([header, *rows]))
        scope = "never (no safe threshold)" if trained.scope_threshold is None else f"{trained.scope_threshold:.2f}"
        self.stdout.write(
            f"Threshold {trained.threshold:.2f}; out of scope answered from {scope}; wrote {out} and its card."
        )
