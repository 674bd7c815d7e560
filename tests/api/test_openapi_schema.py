"""The OpenAPI schema is generated, valid, and free of generator warnings."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from django.conf import settings


def test_the_schema_validates_with_no_warnings(tmp_path):
    """GIVEN the whole URL configuration (every app's API routes)
    WHEN drf-spectacular writes the schema with --validate --fail-on-warn
    THEN it succeeds and the file describes the API's routes."""
    schema = tmp_path / "schema.yml"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings"}
    # A fresh process: the generator's warning counter is global to a process.
    finished = subprocess.run(
        [sys.executable, "manage.py", "spectacular", "--validate", "--fail-on-warn", "--file", str(schema)],
        cwd=Path(settings.BASE_DIR),
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert finished.returncode == 0, finished.stderr
    text = schema.read_text()
    for path in ("/api/profile/", "/api/vitals/", "/api/appointments/{id}/confirm/", "/api/dose-events/{id}/snooze/"):
        assert f"{path}:" in text


def test_the_schema_and_docs_are_served(api, db):
    schema = api.get("/api/schema/")
    docs = api.get("/api/docs/")

    assert schema.status_code == 200
    assert b"/api/vitals/" in schema.content
    assert docs.status_code == 200
    assert b"swagger" in docs.content.lower()
