"""Test settings: the real settings with fast hashing and isolated files."""

from __future__ import annotations

import os
import tempfile

os.environ.setdefault("SECRET_KEY", "tests-only-not-secret")
os.environ.setdefault("DATA_DIR", tempfile.mkdtemp(prefix="agentlite-test-"))

from backend.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Tasks run inline unless a test starts a real worker against REDIS_URL.
CELERY_TASK_ALWAYS_EAGER = True

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    # A file, not shared-cache memory: concurrency tests can hold two writers
    # that wait for each other as they do in production (WAL + IMMEDIATE).
    DATABASES["default"]["TEST"] = {"NAME": os.path.join(os.environ["DATA_DIR"], "test.sqlite3")}  # noqa: F405
