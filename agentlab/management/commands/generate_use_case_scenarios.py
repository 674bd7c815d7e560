"""``manage.py generate_use_case_scenarios``: end-to-end cases per use case, for ``agent_scenarios``.

    python manage.py generate_use_case_scenarios --split dev --per-case 10 --out var/eval/uc_dev.jsonl
    python manage.py generate_use_case_scenarios --split test --per-case 10 --desks-only --out /tmp/uc.jsonl
    python manage.py agent_scenarios --file /tmp/uc.jsonl --json var/eval/uc_test.json

Writes one case a line (the agent_scenarios format: message, setup, expect, category = the use case,
unseen = test split) from the first step's generated requests (agentlab.data.use_case_scenarios).
Prints how many cases each use case got, never a request's text.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from agentlab.data import use_case_scenarios as generated
from agentlab.evaluation.offline import table


class Command(BaseCommand):
    help = "Write generated end-to-end scenario cases per use case (setup and expectations) as JSONL."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--per-case", type=int, default=10, help="Cases a use case (default 10).")
        parser.add_argument("--split", choices=generated.SPLITS, default="dev", help="Which template families.")
        parser.add_argument("--seed", type=int, default=generated.SEED, help="Seed of the generated requests.")
        parser.add_argument("--out", required=True, help="Where to write the cases (JSONL).")
        parser.add_argument(
            "--use-case",
            dest="use_cases",
            action="append",
            choices=generated.USE_CASES,
            help="Only this use case (repeat for more; default all).",
        )
        parser.add_argument(
            "--desks-only",
            action="store_true",
            help="Only the use cases a guard or a desk answers before the model (no model needed to pass).",
        )

    def handle(self, *args, per_case: int, split: str, seed: int, out: str, use_cases, desks_only: bool, **options):
        if per_case < 1:
            raise CommandError("--per-case must be 1 or more.")
        if use_cases and desks_only:
            raise CommandError("--use-case and --desks-only do not go together.")
        chosen = generated.DESK_USE_CASES if desks_only else tuple(use_cases or generated.USE_CASES)
        cases = generated.generate(per_case, split, seed, chosen)
        path = Path(out)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(case, ensure_ascii=False) + "\n" for case in cases), encoding="utf-8")
        counts = Counter(case["category"] for case in cases)
        rows = [["use case", "cases", "checks"]]
        for use_case in chosen:
            keys = sorted({key for case in cases if case["category"] == use_case for key in case["expect"]})
            rows.append([use_case, str(counts[use_case]), ", ".join(keys)])
        self.stdout.write(table(rows))
        self.stdout.write(f"Wrote {len(cases)} {split} cases (seed {seed}) to {path}.")
