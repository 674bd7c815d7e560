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
        parser.add_argument("--out", default=str(MODEL_PATH), help="Where to write the .npz (the card beside it).")

    def handle(self, *args, per_case: int, seed: int, out: str, **options) -> None:
        if per_case < 5:
            raise CommandError("--per-case must be at least 5 (the cross-validation holds out whole families).")
        trained = first_step.train(per_case, seed)
        first_step.save(trained, Path(out))
        rows = [
            [f"{t:.2f}", f"{r['desk_right']}/{r['desk_requests']}", str(r["wrong_desk"]), str(r["model_taken"])]
            for t, r in ((float(k), v) for k, v in trained.card["cross_validation"].items())
        ]
        self.stdout.write(trained.card["data"])
        header = ["threshold", "desk requests routed right", "wrong desk", "model requests taken"]
        self.stdout.write(table([header, *rows]))
        self.stdout.write(f"Threshold {trained.threshold:.2f}; wrote {out} and its card.")
