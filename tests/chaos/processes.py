"""What the chaos tests need to run the app's processes for real: the database URL a subprocess
reaches the test's database by, a Celery worker (with beat when asked), and the kill."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from django.db import connection

ROOT = Path(__file__).resolve().parents[2]


def database_url() -> str:
    """The test database, as a subprocess's DATABASE_URL."""
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    user = db.get("USER") or "postgres"
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{user}{password}@{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}/{db['NAME']}"


def app_environment(tmp_path: Path, redis_url: str, **overrides: str) -> dict[str, str]:
    """The environment of an app process on the test's database and broker (never eager)."""
    env = {k: v for k, v in os.environ.items() if k not in {"DJANGO_SETTINGS_MODULE", "CELERY_TASK_ALWAYS_EAGER"}}
    env.update(
        DJANGO_SETTINGS_MODULE="backend.settings",
        SECRET_KEY="tests-only-not-secret",
        DATA_DIR=str(tmp_path),
        DATABASE_URL=database_url(),
        REDIS_URL=redis_url,
        PYTHONUNBUFFERED="1",
    )
    env.update(overrides)
    return env


def venv_command(name: str) -> str:
    """A console script of the venv the tests run in (``celery``, ``daphne``), else the one on PATH."""
    return shutil.which(name, path=str(Path(sys.executable).parent)) or name


def start_celery_worker(
    env: dict[str, str], log: Path, *, queues: Sequence[str] = ("celery",), beat: bool = True
) -> subprocess.Popen:
    """``celery worker`` of the venv, in a process group of its own (killed whole by ``kill_group``)."""
    command = [venv_command("celery"), "-A", "backend", "worker", "-l", "info", "--concurrency", "2"]
    command += ["-Q", ",".join(queues)]
    command += ["-B"] if beat else []
    with log.open("ab") as out:
        return subprocess.Popen(
            [*command, "-n", f"chaos-{log.stem}@%h"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def kill_group(process: subprocess.Popen) -> None:
    """SIGKILL the process and every child of it (a worker's pool, its beat)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait(10)


def wait_for(condition: Callable[[], object], seconds: float, what: str, log: Path) -> None:
    """Poll ``condition`` until it holds; fail with the worker log's tail after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} within {seconds:.0f} s; worker log:\n{log.read_text()[-3000:]}")
        time.sleep(0.3)
