"""The socket guard: health data stays on the device, so nothing here may reach past loopback.

Built on Python's audit hooks (PEP 578), not on patching ``socket``: every connect, sendto and name
lookup of every library (requests, redis, psycopg's Python side, Celery's kombu, twilio's client)
raises its audit event before it touches the network, and a hook that raises stops the call. A
patched ``socket.socket.connect`` would miss C-level callers and objects made before the patch.

Two uses: the test session installs it raising (``tests/conftest.py``: any non-loopback connect in a
test fails it), and the processes of ``make run`` under test install it recording
(``tests/netguard_site/sitecustomize.py``), so an attempt the app swallowed still shows.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import sys
import traceback

# Names that resolve on the machine itself, never through a DNS server.
LOCAL_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback", "", None, socket.gethostname()}


class NetworkLeak(RuntimeError):
    """A connection or lookup that would leave the device."""


def _local_host(host) -> bool:
    if isinstance(host, bytes):
        host = host.decode(errors="replace")
    if host in LOCAL_NAMES:
        return True
    try:
        address = ipaddress.ip_address(str(host).split("%")[0])
    except ValueError:
        return False  # a name that a DNS server would have to answer
    return address.is_loopback or address.is_unspecified


def leak(event: str, args: tuple) -> str | None:
    """What the event would send off the device, or None when it stays on it."""
    if event in ("socket.connect", "socket.sendto", "socket.sendmsg"):
        address = args[1] if len(args) > 1 else None
        if not isinstance(address, tuple):  # a Unix socket's path, or no address (connected socket)
            return None
        return None if _local_host(address[0]) else f"{event} to {address[0]}:{address[1]}"
    if event in ("socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyname_ex"):
        return None if _local_host(args[0]) else f"{event} of {args[0]!r}"
    return None


def install(*, record_to: str | None = None, refuse: bool = True) -> None:
    """Watch every socket event of this process from now on: write each leak to ``record_to``
    (one line each, with the process and where it came from) and, when ``refuse``, stop it."""

    def hook(event: str, args: tuple) -> None:
        if not event.startswith("socket."):
            return
        found = leak(event, args)
        if found is None:
            return
        if record_to:
            caller = "".join(traceback.format_stack(limit=6)[:-1]).replace("\n", " | ")
            with open(record_to, "a", encoding="utf-8") as log:
                log.write(f"pid {os.getpid()} {' '.join(sys.argv[:3])}: {found} <- {caller}\n")
        if refuse:
            raise NetworkLeak(f"{found}: nothing may leave the device (tests/network_guard.py)")

    sys.addaudithook(hook)
