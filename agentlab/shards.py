"""Work split over processes: one ``manage.py`` command per shard folder, each on a SQLite file of
its own (both users, data generation and scenario evaluation, hold one long rolled-back transaction,
which on a shared SQLite file would make the processes wait on each other).

Each worker writes how many items it has done to ``<folder>/progress``; the parent adds those up
into one progress bar, and stops every worker if it is interrupted.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import call_command

PROGRESS_FILE = "progress"
LOG_FILE = "worker.log"


def prepare_worker_database() -> None:
    """The worker's side: create the schema in its own, fresh SQLite file (``run`` points it there)."""
    call_command("migrate", verbosity=0, interactive=False)


def write_progress(folder: Path, done: int) -> None:
    (folder / PROGRESS_FILE).write_text(str(done))


def read_progress(folder: Path) -> int:
    try:
        return int((folder / PROGRESS_FILE).read_text() or 0)
    except (FileNotFoundError, ValueError):
        return 0


def worker_environment(workers: int) -> dict[str, str]:
    """This process's environment, with the CPU shared out: each of ``workers`` processes gets
    cores/workers threads for torch's kernels (the triage encoder) and none for the tokenizers'
    pool. Left alone, every process starts a thread per core, and on a small machine the workers
    spend half their time waiting on each other (generation ran at half speed on 2 cores)."""
    threads = str(max(1, (os.cpu_count() or 1) // max(1, workers)))
    env = dict(os.environ)
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(name, threads)
    env.setdefault("TOKENIZERS_PARALLELISM", "false")
    return env


def run(folders: Sequence[Path], arguments: Callable[[int, Path], list[str]], progress: Any = None) -> list[int]:
    """Run ``manage.py <arguments(i, folder)>`` for every shard folder at once, each with
    ``DATABASE_URL`` on ``<folder>/db.sqlite3``; the indexes of the shards that failed (their
    output is in ``<folder>/worker.log``)."""
    processes = []
    for index, folder in enumerate(folders):
        folder.mkdir(parents=True, exist_ok=True)
        env = {
            **worker_environment(len(folders)),
            "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
            "REDIS_URL": "",
        }
        command = [sys.executable, str(Path(settings.BASE_DIR) / "manage.py"), *arguments(index, folder)]
        log = (folder / LOG_FILE).open("w")
        processes.append((subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT), log))
    try:
        while any(process.poll() is None for process, _ in processes):
            time.sleep(2)
            if progress is not None:
                progress.n = sum(read_progress(folder) for folder in folders)
                progress.refresh()
    finally:
        for process, log in processes:
            if process.poll() is None:
                process.terminate()
                process.wait()
            log.close()
    return [index for index, (process, _) in enumerate(processes) if process.returncode != 0]
