"""Fixtures of the chaos tests: a Redis of the test's own to kill, the SOS tests' patient contacts and
ambulances (tests/health), and the stand-in SMS provider and the worker's environment of the SOS
worker-kill test (test_sos_worker_killed.py), which the Redis-restart tests share."""

import pytest

from tests.chaos.test_sos_worker_killed import app_env, provider  # noqa: F401  (fixtures)
from tests.health.conftest import alice_contacts, ambulances  # noqa: F401  (fixtures)
from tests.local_redis import LocalRedis


@pytest.fixture
def broker(tmp_path):
    """Always a server of the test's own, whatever REDIS_URL says: the test kills it."""
    server = LocalRedis(tmp_path)
    yield server
    server.kill()
