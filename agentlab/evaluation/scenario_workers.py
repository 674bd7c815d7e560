"""Scenario cases in parallel processes: every N-th case in each of N processes.

Each worker is ``manage.py agent_scenarios --worker-input FILE`` on a SQLite
file of its own (freshly migrated; the cases run in a rolled-back transaction
that holds the database's write lock, so workers on one database would wait
on each other), with one model of its own (``AGENT_TORCH_THREADS`` threads).
The parent shows one progress bar and merges the results back into case order.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from agentlab import shards
from agentlab.evaluation.scenarios import Case, CaseResult, report, run_cases

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
        folders = [Path(tmp) / str(index) for index in range(workers)]
        for index, folder in enumerate(folders):
            folder.mkdir()
            write_cases(folder / "cases.json", cases[index::workers])

        def arguments(index: int, folder: Path) -> list[str]:
            return ["agent_scenarios", "--worker-input", str(folder / "cases.json"), "--no-progress"]

        failed = shards.run(folders, arguments, progress)
        if failed:
            tails = [(folders[i] / shards.LOG_FILE).read_text(errors="replace")[-800:] for i in failed]
            raise RuntimeError("scenario worker(s) failed:\n" + "\n---\n".join(tails))
        per_shard = [json.loads((folder / RESULTS_FILE).read_text()) for folder in folders]
    results: list[CaseResult] = []
    for position in range(len(cases)):  # case i ran in shard i % workers, as its (i // workers)-th
        results.append(CaseResult(**per_shard[position % workers][position // workers]))
    return report(results)


def run_worker(path: str | Path, backend: Any) -> None:
    """The worker's side: migrate its own database, run its cases, write results and progress beside them."""
    directory = Path(path).parent
    shards.prepare_worker_database()
    done = 0

    def counted(_result: CaseResult) -> None:
        nonlocal done
        done += 1
        shards.write_progress(directory, done)

    data = run_cases(read_cases(path), backend, on_result=counted)
    (directory / RESULTS_FILE).write_text(json.dumps(data["cases"]), encoding="utf-8")
