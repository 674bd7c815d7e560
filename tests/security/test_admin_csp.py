"""django-celery-beat's periodic-task form works under the Content-Security-Policy: its one inline
script (the crontab in words) is allowed by its hash on those admin pages only, as a browser would
decide it, without a browser: every inline script of the page must match a 'sha256-...' source of
the header's script-src (there is no 'unsafe-inline' to fall back on)."""

from __future__ import annotations

import base64
import hashlib
import re

import pytest
from django_celery_beat.models import CrontabSchedule, PeriodicTask

from core.http_security import CONTENT_SECURITY_POLICY

# Inline scripts the browser would run: no src, and not a JSON data block (json_script), which never runs.
INLINE_SCRIPT = re.compile(
    r"<script(?![^>]*\bsrc=)(?![^>]*type=\"application/json\")(?P<attrs>[^>]*)>(?P<body>.*?)</script>", re.S | re.I
)


def script_sources(response) -> list[str]:
    header = response.headers["Content-Security-Policy"]
    directives = dict(part.strip().split(" ", 1) for part in header.split(";"))
    return directives["script-src"].split()


def allowed(body: str, sources: list[str]) -> bool:
    """CSP level 2/3 for an inline script: 'unsafe-inline' or a matching hash (no nonces are used)."""
    digest = base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode()
    return "'unsafe-inline'" in sources or f"'sha256-{digest}'" in sources


@pytest.fixture
def operator(client, carol):
    client.force_login(carol)
    return client


@pytest.fixture
def task(db):
    crontab = CrontabSchedule.objects.create(minute="0", hour="20")
    return PeriodicTask.objects.create(name="evening reports", task="health.tasks.write_daily_reports", crontab=crontab)


@pytest.mark.parametrize("page", ["add", "change"])
def test_the_periodic_task_forms_script_is_allowed_by_the_header(operator, task, page):
    url = "/admin/django_celery_beat/periodictask/" + ("add/" if page == "add" else f"{task.pk}/change/")

    response = operator.get(url)

    assert response.status_code == 200
    scripts = list(INLINE_SCRIPT.finditer(response.content.decode()))
    assert [s["attrs"].strip() for s in scripts] == ['id="periodic-task-overrides"'], (
        "django-celery-beat's form changed its inline scripts"
    )
    sources = script_sources(response)
    assert "'unsafe-inline'" not in sources and "'self'" in sources
    body = scripts[0]["body"]
    assert allowed(body, sources), (
        "the periodic-task script is blocked: set PERIODIC_TASK_SCRIPT_SHA256 in core/http_security.py to "
        + base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
    )
    # Only that script: the same script changed by one character would be refused.
    assert not allowed(body.replace("Translation", "Translatio"), sources)


@pytest.mark.parametrize(
    "url",
    [
        "/admin/",
        "/admin/django_celery_beat/periodictask/",
        "/admin/django_celery_beat/crontabschedule/add/",
        "/admin/health/vitalreading/",
        "/admin/django_celery_beat/periodictask/add/../../../health/vitalreading/",
    ],
)
def test_every_other_page_keeps_the_strict_policy(operator, url):
    response = operator.get(url)

    assert response.headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
    assert script_sources(response) == ["'self'"]


def test_a_patients_page_keeps_the_strict_policy(alice, client):
    client.force_login(alice)

    assert script_sources(client.get("/profile/")) == ["'self'"]
