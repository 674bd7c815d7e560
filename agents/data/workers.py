"""Generation in parallel processes: one shard of the conversation list per process.

Each worker is ``manage.py generate_agent_data --shard I/N`` on its own SQLite
file (the generated world lives in a rolled-back transaction that holds the
database's write lock), so workers never wait on each other. The parent shows
one progress bar over all shards and merges their files in shard order.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from django.conf import settings

FILES = ("trajectories", "planner_train", "caller_train", "test", "scenarios_test")
PROGRESS_FILE = "progress"


def write_progress(directory: Path, done: int) -> None:
    (directory / PROGRESS_FILE).write_text(str(done))


def run_shards(out: Path, options: list[str], workers: int, total: int, progress) -> dict:
    """Run ``workers`` shard processes; merge their files into ``out``; return the merged report."""
    shards = [out / "shards" / str(index) for index in range(workers)]
    processes = []
    for index, directory in enumerate(shards):
        directory.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "DATABASE_URL": f"sqlite:///{directory / 'world.sqlite3'}", "REDIS_URL": ""}
        command = [sys.executable, str(Path(settings.BASE_DIR) / "manage.py"), "generate_agent_data"]
        command += [*options, "--out", str(directory), "--shard", f"{index}/{workers}"]
        log = (directory / "worker.log").open("w")
        processes.append((subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT), log))
    try:
        while any(process.poll() is None for process, _ in processes):
            time.sleep(2)
            progress.n = sum(_read_progress(directory) for directory in shards)
            progress.refresh()
    finally:
        for process, log in processes:
            if process.poll() is None:
                process.terminate()
            log.close()
    failed = [str(shards[i] / "worker.log") for i, (process, _) in enumerate(processes) if process.returncode != 0]
    if failed:
        raise RuntimeError(f"generation worker(s) failed; see {', '.join(failed)}")
    progress.n = total
    progress.refresh()
    return _merge(out, shards)


def _read_progress(directory: Path) -> int:
    try:
        return int((directory / PROGRESS_FILE).read_text() or 0)
    except (FileNotFoundError, ValueError):
        return 0


def _merge(out: Path, shards: list[Path]) -> dict:
    counts: Counter = Counter()
    report: dict = {"generated": Counter(), "dropped": Counter(), "drop_reasons": Counter(), "max_rss_mb": 0.0}
    for name in FILES:
        with (out / f"{name}.jsonl").open("wb") as target:
            for directory in shards:
                with (directory / f"{name}.jsonl").open("rb") as source:
                    shutil.copyfileobj(source, target)
    for directory in shards:
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
