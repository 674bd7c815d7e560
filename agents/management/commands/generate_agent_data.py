"""`manage.py generate_agent_data`: synthetic trajectories -> planner/caller SFT datasets."""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from agents.data.generator import Holdout, Report, generate, plan_specs
from agents.data.sft import Writer


class Command(BaseCommand):
    help = (
        "Generate verified synthetic trajectories for every use case (seed paper Table 1) in a rolled-back "
        "generated world, and write planner/caller SFT datasets (JSONL) with a train/test split."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--out", default=str(Path(settings.DATA_DIR) / "agent_data"), help="Output folder.")
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument("--train", type=int, default=2000, help="Training conversations.")
        parser.add_argument("--test-per-category", type=int, default=30, help="Test conversations per category.")
        parser.add_argument(
            "--unseen-share",
            type=float,
            default=0.5,
            help="Share of appointment test conversations with diseases and phrasings held out of training.",
        )

    def handle(self, *args, out: str, seed: int, train: int, test_per_category: int, unseen_share: float, **options):
        if train < 0 or test_per_category < 0 or not 0 <= unseen_share <= 1:
            raise CommandError("--train and --test-per-category must be >= 0 and --unseen-share within 0..1.")
        directory = Path(out)
        holdout = Holdout.choose(seed)
        specs = list(
            plan_specs(
                seed, train=train, test_per_category=test_per_category, unseen_share=unseen_share, holdout=holdout
            )
        )
        report = Report()
        writer = Writer(directory, seed=seed)
        started = time.perf_counter()
        progress = tqdm(total=len(specs), desc="conversations", unit="conv", file=sys.stderr, mininterval=2)
        try:
            for sample in generate(specs, seed=seed, holdout=holdout, report=report, on_progress=progress.update):
                writer.add(sample)
        finally:
            progress.close()
        seconds = time.perf_counter() - started
        summary = {
            **report.as_dict(),
            "holdout": {"diseases": sorted(holdout.diseases), "templates": sorted(holdout.templates)},
            "seconds": round(seconds, 1),
            "conversations_per_second": round(len(specs) / seconds, 2) if seconds else None,
            "max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        }
        writer.close(summary)
        counts = writer.counts
        self.stdout.write(f"Wrote {directory}:")
        for name in ("planner_train", "caller_train", "test_planner", "test_caller", "trajectories"):
            self.stdout.write(f"  {name:<14} {counts.get(name, 0):>9,}")
        self.stdout.write(
            f"  kept {summary['kept']:,} conversations, dropped {summary['dropped_total']:,} "
            f"({json.dumps(summary['drop_reasons'])}); {seconds:.0f} s, max RSS {summary['max_rss_mb']} MB"
        )
