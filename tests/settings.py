"""Test settings: the real settings with fast hashing and isolated files."""

from __future__ import annotations

import os
import tempfile

os.environ.setdefault("SECRET_KEY", "tests-only-not-secret")
os.environ.setdefault("DATA_DIR", tempfile.mkdtemp(prefix="agentlite-test-"))

# The triage index depends only on the symptom bank (its file name is the bank's digest): build
# it once per checkout, not once per test session.
os.environ.setdefault(
    "TRIAGE_INDEX_DIR", os.path.join(os.path.dirname(os.path.dirname(__file__)), ".pytest_cache", "triage")
)

from backend.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Tasks run inline unless a test starts a real worker against REDIS_URL.
CELERY_TASK_ALWAYS_EAGER = True

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    # A file, not shared-cache memory: concurrency tests can hold two writers
    # that wait for each other as they do in production (WAL + IMMEDIATE).
    DATABASES["default"]["TEST"] = {"NAME": os.path.join(os.environ["DATA_DIR"], "test.sqlite3")}  # noqa: F405

# The in-process servers of the browser tests serve requests on long-lived threads
# (core/admission.py): a connection they kept would still be open on the test database when the
# suite drops it at the end (PostgreSQL refuses to drop a database in use). Each request closes its own.
DATABASES["default"]["CONN_MAX_AGE"] = 0  # noqa: F405
