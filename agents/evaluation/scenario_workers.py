"""Scenario cases in parallel processes: every N-th case in each of N processes.

Each worker is ``manage.py agent_scenarios --worker-input FILE`` on a SQLite
file of its own (freshly migrated; the cases run in a rolled-back transaction
that holds the database's write lock, so workers on one database would wait
on each other), with one model of its own (``AGENT_TORCH_THREADS`` threads).
The parent shows one progress bar and merges the results back into case order.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from django.conf import settings

from agents.evaluation.scenarios import Case, CaseResult, report

PROGRESS_FILE = "progress"
RESULTS_FILE = "results.json"


def write_cases(path: Path, cases: Sequence[Case]) -> None:
    path.write_text(json.dumps([asdict(case) for case in cases]), encoding="utf-8")


def read_cases(path: str | Path) -> list[Case]:
    rows = json.loads(Path(path).read_text(encoding="utf-8"))
    return [
        Case(**{**row, "answers": tuple(row["answers"]), "specializations": tuple(row["specializations"])})
        for row in rows
    ]


def run_sharded(cases: Sequence[Case], workers: int, progress: Any = None) -> dict[str, Any]:
    """Run ``cases`` in ``workers`` processes; the report of all of them, in case order."""
    with tempfile.TemporaryDirectory(prefix="agent-scenarios-") as tmp:
        shards = [Path(tmp) / str(index) for index in range(workers)]
        processes = []
        for index, directory in enumerate(shards):
            directory.mkdir()
            write_cases(directory / "cases.json", cases[index::workers])
            env = {**os.environ, "DATABASE_URL": f"sqlite:///{directory / 'db.sqlite3'}", "REDIS_URL": ""}
            command = [sys.executable, str(Path(settings.BASE_DIR) / "manage.py"), "agent_scenarios"]
            command += ["--worker-input", str(directory / "cases.json"), "--no-progress"]
            log = (directory / "worker.log").open("w")
            processes.append((subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT), log))
        try:
            while any(process.poll() is None for process, _ in processes):
                time.sleep(2)
                if progress is not None:
                    progress.n = sum(_done(directory) for directory in shards)
                    progress.refresh()
        finally:
            for process, log in processes:
                if process.poll() is None:
                    process.terminate()
                log.close()
        failed = [i for i, (process, _) in enumerate(processes) if process.returncode != 0]
        if failed:
            tails = [(shards[i] / "worker.log").read_text(errors="replace")[-800:] for i in failed]
            raise RuntimeError("scenario worker(s) failed:\n" + "\n---\n".join(tails))
        per_shard = [json.loads((directory / RESULTS_FILE).read_text()) for directory in shards]
    results: list[CaseResult] = []
    for position in range(len(cases)):  # case i ran in shard i % workers, as its (i // workers)-th
        results.append(CaseResult(**per_shard[position % workers][position // workers]))
    return report(results)


def run_worker(path: str | Path, backend: Any) -> None:
    """The worker's side: migrate its own database, run its cases, write results and progress beside them."""
    from django.core.management import call_command

    from agents.evaluation.scenarios import run_cases

    directory = Path(path).parent
    call_command("migrate", verbosity=0, interactive=False)
    done = 0

    def counted(_result: CaseResult) -> None:
        nonlocal done
        done += 1
        (directory / PROGRESS_FILE).write_text(str(done))

    data = run_cases(read_cases(path), backend, on_result=counted)
    (directory / RESULTS_FILE).write_text(json.dumps(data["cases"]), encoding="utf-8")


def _done(directory: Path) -> int:
    try:
        return int((directory / PROGRESS_FILE).read_text() or 0)
    except (FileNotFoundError, ValueError):
        return 0
