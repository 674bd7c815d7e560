"""A failure on the server, or a request refused before any view, answers JSON under /api/ (a watch
or script reads it) and the usual page elsewhere."""

from __future__ import annotations

from django.db import OperationalError
from django.test import Client

from health.models import VitalReading


def test_a_database_locked_past_its_timeout_answers_json_and_stores_nothing(alice_device, monkeypatch):
    _device, token = alice_device

    def locked(**kwargs):
        raise OperationalError("database is locked")

    monkeypatch.setattr("health.api.vitals.record_readings", locked)
    watch = Client(raise_request_exception=False, HTTP_AUTHORIZATION=f"Device {token}")
    answer = watch.post(
        "/api/vitals/", {"measured_at": "2026-11-20T08:00:00Z", "heart_rate": 70}, content_type="application/json"
    )

    assert answer.status_code == 500 and answer["Content-Type"] == "application/json"
    assert "nothing was stored" in answer.json()["detail"]
    assert not VitalReading.objects.exists()


def test_a_page_failure_is_still_a_page(alice, monkeypatch):
    browser = Client(raise_request_exception=False)
    browser.force_login(alice)
    monkeypatch.setattr("frontend.reports.build", lambda *a: (_ for _ in ()).throw(OperationalError("locked")))
    answer = browser.post("/reports/today/")
    assert answer.status_code == 500 and answer["Content-Type"].startswith("text/html")


def test_an_unknown_host_on_the_api_answers_json(db):
    answer = Client(HTTP_HOST="evil.example").get("/api/specialists/")
    assert answer.status_code == 400 and answer.json() == {"detail": "Bad request."}
