"""The socket guard itself (tests/network_guard.py): loopback passes, anything else is refused in
the test session and written down in the processes of the on-device test."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.network_guard import NetworkLeak, leak

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "event, args",
    [
        ("socket.connect", (None, ("127.0.0.1", 6379))),
        ("socket.connect", (None, ("::1", 5432, 0, 0))),
        ("socket.connect", (None, ("localhost", 8000))),
        ("socket.connect", (None, "/run/postgresql/.s.PGSQL.5432")),
        ("socket.getaddrinfo", ("localhost", 80, 0, 0, 0)),
        ("socket.getaddrinfo", (None, 80, 0, 0, 0)),
        ("socket.sendto", (None, ("127.0.0.53", 53))),
    ],
)
def test_loopback_and_local_sockets_pass(event, args):
    assert leak(event, args) is None


@pytest.mark.parametrize(
    "event, args, said",
    [
        ("socket.connect", (None, ("192.0.2.10", 443)), "socket.connect to 192.0.2.10:443"),
        ("socket.connect", (None, ("api.twilio.com", 443)), "socket.connect to api.twilio.com:443"),
        ("socket.getaddrinfo", ("huggingface.co", 443, 0, 0, 0), "socket.getaddrinfo of 'huggingface.co'"),
        ("socket.sendto", (None, ("8.8.8.8", 53)), "socket.sendto to 8.8.8.8:53"),
    ],
)
def test_anything_past_loopback_is_a_leak(event, args, said):
    assert leak(event, args) == said


def test_the_test_session_refuses_a_connection_past_loopback():
    with socket.socket() as sock, pytest.raises(NetworkLeak, match=r"192\.0\.2\.10:80"):
        sock.connect(("192.0.2.10", 80))
    with pytest.raises(NetworkLeak, match=r"example\.org"):
        socket.getaddrinfo("example.org", 443)


def test_a_guarded_process_writes_down_an_attempt_even_when_it_swallows_the_error(tmp_path):
    log = tmp_path / "network.log"
    code = (
        "import urllib.request\n"
        "try:\n    urllib.request.urlopen('http://192.0.2.10/', timeout=1)\n"
        "except Exception:\n    pass\n"  # the app swallowed it; the guard's log did not
    )
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "tests" / "netguard_site"), str(ROOT)]),
        "NETWORK_GUARD_LOG": str(log),
    }
    subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, check=True, timeout=60)
    assert "192.0.2.10" in log.read_text()
