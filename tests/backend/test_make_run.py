"""`make run` (scripts/run_local.py) brings up web, worker, the OCR worker, beat and Redis, serves a
chat, a prescription reading and a report, and Ctrl-C stops all of them: on loopback alone.

The scenario (tests/backend/make_run_scenario.py) runs in a network namespace of its own, made here
with ``unshare --net``: its only interface is loopback, so the app has no network beyond the device
and must still work. Every Python process in it also loads the socket guard (tests/network_guard.py
through tests/netguard_site): an attempt to reach past loopback that the app swallowed is still
written down, and this test fails on it. Where the kernel refuses a namespace, it runs with the
guard alone, and says so.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.summary import summarise

ROOT = Path(__file__).resolve().parents[2]


def network_namespace() -> list[str]:
    """The command prefix that puts a process in a fresh namespace with only loopback, or []: as root,
    ``unshare --net``; otherwise inside a user namespace of its own (``--map-root-user``), where the
    kernel allows unprivileged ones."""
    for prefix in (["unshare", "--net"], ["unshare", "--user", "--map-root-user", "--net"]):
        try:
            made = subprocess.run([*prefix, "true"], capture_output=True, timeout=10).returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            return []
        if made:
            return [*prefix, "--"]
    return []


@pytest.mark.slow
def test_make_run_works_on_loopback_alone_and_stops_on_ctrl_c(tmp_path):
    namespace = network_namespace()
    leaks = tmp_path / "network.log"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "tests" / "netguard_site"), str(ROOT)]),
        "NETWORK_GUARD_LOG": str(leaks),
    }
    command = [*namespace, sys.executable, "-m", "tests.backend.make_run_scenario", str(tmp_path)]
    if namespace:
        command.append("--netns")
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)

    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]
    assert not leaks.exists(), f"reached past loopback:\n{leaks.read_text()[-4000:]}"
    checked = json.loads((tmp_path / "checked.json").read_text())
    assert len(checked) == 13, checked
    where = "in a network namespace with only loopback" if namespace else "with the socket guard (no namespace here)"
    summarise(f"make run {where}: {len(checked)} checks, 0 connections past loopback: " + "; ".join(checked))
