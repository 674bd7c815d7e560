"""Running ``manage.py`` in a fresh process under a given environment, the way a deployment does."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# What docs/configuration.md tells a deployment behind an HTTPS reverse proxy to set.
PRODUCTION_ENV = {
    "DEBUG": "false",
    "ALLOWED_HOSTS": "health.example.org",
    "CSRF_TRUSTED_ORIGINS": "https://health.example.org",
    "TRUST_X_FORWARDED_PROTO": "true",
    "SECURE_SSL_REDIRECT": "true",
    "SECURE_HSTS_SECONDS": "31536000",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS": "true",
    "SECURE_HSTS_PRELOAD": "true",
    "SESSION_COOKIE_SECURE": "true",
    "CSRF_COOKIE_SECURE": "true",
}


def manage(*args: str, data_dir: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``manage.py args`` with the real settings (not the tests'), a fresh DATA_DIR and ``env``."""
    environ = {
        key: value
        for key, value in os.environ.items()
        if key in ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "VIRTUAL_ENV")
    }
    environ.update({"DATA_DIR": str(data_dir), "SECRET_KEY": secrets.token_urlsafe(50), "LOG_LEVEL": "WARNING"})
    environ.update(env or {})
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
    )
