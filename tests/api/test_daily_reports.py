"""Daily reports: listed newest first, read-only."""

from __future__ import annotations

from django.utils import timezone

from health.models.appointments import patient_zone
from health.reports.generate import build
from tests.factories import DailyReportFactory


def test_reports_are_listed_newest_first(alice, alice_api):
    older = DailyReportFactory(user=alice, date="2026-01-01", narrative="Quiet day.")
    newer = DailyReportFactory(user=alice, date="2026-01-02", anomalies=[{"metric": "spo2", "value": 88}])

    rows = alice_api.get("/api/daily-reports/").json()["results"]

    assert [row["id"] for row in rows] == [newer.pk, older.pk]
    assert rows[0]["anomalies"] == [{"metric": "spo2", "value": 88}]


def test_reports_are_read_only(alice, alice_api):
    report = DailyReportFactory(user=alice)

    assert alice_api.post("/api/daily-reports/", {"date": "2026-01-03"}, format="json").status_code == 405
    assert alice_api.patch(f"/api/daily-reports/{report.pk}/", {"narrative": "x"}, format="json").status_code == 405
    assert alice_api.delete(f"/api/daily-reports/{report.pk}/").status_code == 405


def test_a_built_report_says_what_it_covers_and_who_wrote_its_summary(alice, alice_api):
    report = build(alice, timezone.now().astimezone(patient_zone(alice)).date())

    row = alice_api.get(f"/api/daily-reports/{report.pk}/").json()

    assert row["time_zone"] == "Europe/Berlin" and row["narrative_source"] == "template"
    assert row["covers_until"] is not None
    assert row["metrics"]["heart_rate"] == {"min": None, "mean": None, "max": None, "resting": None, "readings": 0}
