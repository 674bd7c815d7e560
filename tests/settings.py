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
