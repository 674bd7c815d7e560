"""Loaded by every Python process of ``make run`` under the on-device test (PYTHONPATH points here):
each records any attempt to reach past loopback in NETWORK_GUARD_LOG and is refused it."""

import os

if os.environ.get("NETWORK_GUARD_LOG"):
    from tests.network_guard import install

    install(record_to=os.environ["NETWORK_GUARD_LOG"])
