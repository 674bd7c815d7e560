"""Daily reports: listed newest first, read-only."""

from __future__ import annotations

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
