"""`manage.py generate_agent_data`: synthetic trajectories -> planner/caller SFT datasets."""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from agentlab import shards
from agentlab.data import workers as parallel
from agentlab.data.generator import Holdout, Report, generate, parse_mix, plan_specs
from agentlab.data.sft import Writer


def _shard(value: str) -> tuple[int, int]:
    index, _, count = value.partition("/")
    try:
        index, count = int(index), int(count)
    except ValueError:
        raise CommandError(f"--shard {value!r} must look like I/N.") from None
    if not 0 <= index < count:
        raise CommandError(f"--shard {value!r}: I must be within 0..N-1.")
    return index, count


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
        parser.add_argument(
            "--holdout-seed",
            type=int,
            default=None,
            help="Choose the held-out diseases and phrasings with this seed (default --seed): more training "
            "conversations from a new --seed that keep another seed's unseen test conversations unseen.",
        )
        parser.add_argument(
            "--mix",
            default="",
            help="Training mixture overrides, relative weights: e.g. counter=0.3 (other categories keep their "
            "defaults). Test conversations stay --test-per-category of each.",
        )
        parser.add_argument("--workers", type=int, default=1, help="Parallel processes (each on its own SQLite).")
        parser.add_argument("--shard", help=argparse.SUPPRESS)  # set by --workers for its processes

    def handle(self, *args, out: str, seed: int, train: int, test_per_category: int, unseen_share: float, **options):
        if train < 0 or test_per_category < 0 or not 0 <= unseen_share <= 1 or options["workers"] < 1:
            raise CommandError(
                "--train and --test-per-category must be >= 0, --unseen-share within 0..1, --workers >= 1."
            )
        directory = Path(out)
        holdout_seed = seed if options.get("holdout_seed") is None else options["holdout_seed"]
        holdout = Holdout.choose(holdout_seed)
        try:
            mix = parse_mix(options.get("mix") or "")
        except ValueError as exc:
            raise CommandError(f"--mix: {exc}") from exc
        specs = list(
            plan_specs(
                seed,
                train=train,
                test_per_category=test_per_category,
                unseen_share=unseen_share,
                holdout=holdout,
                mix=mix,
            )
        )
        started = time.perf_counter()
        shard = _shard(options["shard"]) if options.get("shard") else None
        workers = options["workers"]
        progress = tqdm(total=len(specs), desc="conversations", unit="conv", file=sys.stderr, mininterval=2)
        try:
            if shard is None and workers > 1:
                forwarded = ["--seed", str(seed), "--train", str(train)]
                forwarded += ["--test-per-category", str(test_per_category), "--unseen-share", str(unseen_share)]
                forwarded += ["--holdout-seed", str(holdout_seed), "--mix", options.get("mix") or ""]
                summary = parallel.run_shards(directory, forwarded, workers, len(specs), progress)
                counts = summary["files"]
            else:
                summary, counts = self._generate(directory, specs, seed, holdout, shard, progress)
        except RuntimeError as exc:
            raise CommandError(str(exc)) from exc
        finally:
            progress.close()
        seconds = time.perf_counter() - started
        summary.update(
            {
                "holdout": {"diseases": sorted(holdout.diseases), "templates": sorted(holdout.templates)},
                "seconds": round(seconds, 1),
                "conversations_per_second": round(len(specs) / seconds, 2) if seconds else None,
                "max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
                "workers": workers if shard is None else 1,
                "seed": seed,
                "holdout_seed": holdout_seed,
                "mix": mix,
            }
        )
        (directory / "report.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
        self.stdout.write(f"Wrote {directory}:")
        for name in ("planner_train", "caller_train", "test_planner", "test_caller", "trajectories"):
            self.stdout.write(f"  {name:<14} {counts.get(name, 0):>9,}")
        self.stdout.write(
            f"  kept {summary['kept']:,} conversations, dropped {summary['dropped_total']:,} "
            f"({json.dumps(summary['drop_reasons'])}); {seconds:.0f} s, max RSS {summary['max_rss_mb']} MB"
        )

    def _generate(self, directory, specs, seed, holdout, shard, progress):
        if shard is not None:
            index, count = shard
            specs = specs[index::count]
            directory.mkdir(parents=True, exist_ok=True)
            shards.prepare_worker_database()
        report = Report()
        writer = Writer(directory, seed=seed)
        done = 0

        def advance(n: int) -> None:
            nonlocal done
            done += n
            progress.update(n)
            if shard is not None and done % 10 == 0:
                shards.write_progress(directory, done)

        for sample in generate(specs, seed=seed, holdout=holdout, report=report, on_progress=advance):
            writer.add(sample)
        writer.close()
        return {**report.as_dict(), "files": dict(writer.counts)}, writer.counts
