"""A free TCP port on the loopback address, for the processes the benchmarks and tests start
(a web server, a Redis of their own)."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on now, as the OS picks one. Another process could
    take it before the caller binds it; for a server started at once on this machine that race is
    rare enough, and the caller's start fails loudly if it happens."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
