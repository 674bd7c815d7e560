"""Typed environment helpers that fail loudly on bad values.

Every setting that a deployment may change is read through one of these, so a
typo in ``DEBUG=flase`` stops the process at start instead of silently running
with a surprising default.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (true/false/1/0), got {raw!r}")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} must be an integer, got {raw!r}") from exc
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name} must be >= {minimum}, got {value}")
    return value


def env_float(name: str, default: float, *, minimum: float | None = None) -> float:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} must be a number, got {raw!r}") from exc
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name} must be >= {minimum}, got {value}")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return list(default)
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    value = os.environ.get(name, default).strip().lower()
    if value not in choices:
        raise ImproperlyConfigured(f"{name} must be one of {', '.join(choices)}, got {value!r}")
    return value


def persisted_secret_key(path: Path) -> str:
    """Return the secret key stored at ``path``, creating it on first use.

    The local run needs a stable key (sessions survive a restart) that is never
    committed; production sets ``SECRET_KEY`` instead.
    """
    if path.exists():
        key = path.read_text().strip()
        if key:
            return key
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(50)
    path.write_text(key)
    path.chmod(0o600)
    return key


def private_dir(path: Path) -> Path:
    """Create ``path`` if missing and make it 0700 when this account owns it.

    DATA_DIR holds the database, uploaded prescriptions and the secret key: other accounts on the
    machine must not even list it. A directory another account owns (a mounted volume) is left as
    it is, because only its owner may change its mode.
    """
    path.mkdir(parents=True, exist_ok=True)
    if path.stat().st_uid == os.getuid():
        path.chmod(0o700)
    return path


def private_file(path: Path) -> Path:
    """Create ``path`` empty if missing and make it 0600 when this account owns it.

    For the SQLite database: SQLite gives its -wal and -shm files the mode of the database file,
    so creating it owner-only before the first connection keeps all three private.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o600)
    os.close(fd)
    if path.stat().st_uid == os.getuid():
        path.chmod(0o600)
    return path
