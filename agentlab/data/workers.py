"""Generation in parallel processes: one shard of the conversation list per process.

Each worker is ``manage.py generate_agent_data --shard I/N`` on its own SQLite
file (the generated world lives in a rolled-back transaction that holds the
database's write lock), so workers never wait on each other. The parent shows
one progress bar over all shards and merges their files in shard order.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

from agentlab import shards

FILES = ("trajectories", "planner_train", "caller_train", "test", "scenarios_test")


def run_shards(out: Path, options: list[str], workers: int, total: int, progress) -> dict:
    """Run ``workers`` shard processes; merge their files into ``out``; return the merged report."""
    folders = [out / "shards" / str(index) for index in range(workers)]

    def arguments(index: int, folder: Path) -> list[str]:
        return ["generate_agent_data", *options, "--out", str(folder), "--shard", f"{index}/{workers}"]

    failed = shards.run(folders, arguments, progress)
    if failed:
        logs = ", ".join(str(folders[i] / shards.LOG_FILE) for i in failed)
        raise RuntimeError(f"generation worker(s) failed; see {logs}")
    progress.n = total
    progress.refresh()
    return _merge(out, folders)


def _merge(out: Path, folders: list[Path]) -> dict:
    counts: Counter = Counter()
    report: dict = {"generated": Counter(), "dropped": Counter(), "drop_reasons": Counter(), "max_rss_mb": 0.0}
    for name in FILES:
        with (out / f"{name}.jsonl").open("wb") as target:
            for directory in folders:
                with (directory / f"{name}.jsonl").open("rb") as source:
                    shutil.copyfileobj(source, target)
    for directory in folders:
        shard = json.loads((directory / "report.json").read_text())
        counts.update(shard["files"])
        for key in ("generated", "dropped", "drop_reasons"):
            report[key].update(shard[key])
        report["max_rss_mb"] = max(report["max_rss_mb"], shard["max_rss_mb"])
    shutil.rmtree(out / "shards")
    return {
        "generated": dict(report["generated"]),
        "dropped": dict(report["dropped"]),
        "drop_reasons": dict(report["drop_reasons"]),
        "kept": sum(report["generated"].values()),
        "dropped_total": sum(report["dropped"].values()),
        "files": dict(counts),
        "max_rss_mb_per_worker": report["max_rss_mb"],
    }
