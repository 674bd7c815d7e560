"""Fixtures of the chaos tests: a Redis of the test's own to kill, and what they share with the SOS
tests of tests/health (the patient's emergency contacts and the ambulances, the stand-in SMS
provider, and the worker's environment)."""

import pytest

from tests.health.conftest import alice_contacts, ambulances  # noqa: F401  (fixtures)
from tests.health.test_sos_worker_death import app_env, provider  # noqa: F401  (fixtures)
from tests.local_redis import LocalRedis


@pytest.fixture
def broker(tmp_path):
    """Always a server of the test's own, whatever REDIS_URL says: the test kills it."""
    server = LocalRedis(tmp_path)
    yield server
    server.kill()
