"""DATA_DIR (0700) and the SQLite database with its WAL files (0600) are the running account's only."""

from __future__ import annotations

import stat
from pathlib import Path

from django.conf import settings

from backend.env import private_dir, private_file
from tests.security.production import manage


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_fresh_data_dir_and_database_are_owner_only(tmp_path):
    data_dir = tmp_path / "var"
    write = "from django.db import connection; connection.cursor().execute('CREATE TABLE t (x int)')"

    finished = manage("shell", "--no-imports", "-c", write, data_dir=data_dir)

    assert finished.returncode == 0, finished.stderr
    assert _mode(data_dir) == 0o700
    database = data_dir / "db.sqlite3"
    assert _mode(database) == 0o600
    # WAL mode: SQLite gives its side files the database file's mode.
    for side in ("db.sqlite3-wal", "db.sqlite3-shm"):
        if (data_dir / side).exists():
            assert _mode(data_dir / side) == 0o600, side


def test_an_existing_open_data_dir_and_database_are_closed(tmp_path):
    data_dir = tmp_path / "var"
    data_dir.mkdir(mode=0o755)
    (data_dir / "db.sqlite3").touch(mode=0o644)
    data_dir.chmod(0o755)
    (data_dir / "db.sqlite3").chmod(0o644)

    assert manage("check", data_dir=data_dir).returncode == 0

    assert _mode(data_dir) == 0o700
    assert _mode(data_dir / "db.sqlite3") == 0o600


def test_the_helpers_create_what_is_missing(tmp_path):
    assert _mode(private_dir(tmp_path / "a" / "b")) == 0o700
    assert _mode(private_file(tmp_path / "c" / "db.sqlite3")) == 0o600


def test_uploads_are_owner_only():
    assert settings.FILE_UPLOAD_PERMISSIONS == 0o600
    assert settings.FILE_UPLOAD_DIRECTORY_PERMISSIONS == 0o700
