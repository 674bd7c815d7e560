"""The Reports pages: the history with trends, one report with its charts, the PDF, writing today's
report on demand, and the report time on the profile; each patient sees only their own reports."""

from __future__ import annotations

import datetime as dt
from unittest import mock
from zoneinfo import ZoneInfo

import pytest
from django.test import Client

from health.models import DailyReport, VitalReading
from health.reports.generate import build
from tests.factories import DeviceFactory

BERLIN = ZoneInfo("Europe/Berlin")
DAY = dt.date(2026, 3, 2)
NEXT_MORNING = dt.datetime(2026, 3, 3, 8, tzinfo=BERLIN)


def at(hour: int, minute: int = 0, day: dt.date = DAY) -> dt.datetime:
    return dt.datetime(day.year, day.month, day.day, hour, minute, tzinfo=BERLIN)


@pytest.fixture
def alices_day(alice) -> DailyReport:
    """Heart rate and SpO2 every 10 minutes from 08:00 to 12:00, a dip to 90 % at 10:00; no blood
    pressure, no sleep."""
    watch = DeviceFactory(user=alice)
    VitalReading.objects.bulk_create(
        VitalReading(
            user=alice,
            device=watch,
            measured_at=at(8) + dt.timedelta(minutes=10 * n),
            heart_rate=60 + n,
            spo2=90 if n == 12 else 97,
            steps=10,
        )
        for n in range(25)
    )
    return build(alice, DAY, now=NEXT_MORNING)


def now(when: dt.datetime):
    return mock.patch("django.utils.timezone.now", return_value=when)


@pytest.mark.parametrize("path", ["/reports/", "/reports/2026-03-02/", "/reports/2026-03-02/pdf/"])
def test_an_anonymous_visitor_is_sent_to_sign_in(client: Client, db, path):
    response = client.get(path)

    assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_the_history_lists_each_report_with_what_was_not_measured_said(client: Client, alice, alices_day):
    client.force_login(alice)

    with now(NEXT_MORNING):
        html = client.get("/reports/").content.decode()

    assert 'href="/reports/" aria-current="page">Reports</a>' in html
    assert 'href="/reports/2026-03-02/">Mon 2 Mar 2026</a>' in html
    assert ">96.7 %<" in html and ">250<" in html  # SpO2 mean and steps
    assert "no readings" in html  # sleep: never 0
    assert html.count('class="line-chart"') >= 4  # the trends of the week and the month


def test_a_report_shows_its_figures_and_the_days_charts(client: Client, alice, alices_day):
    client.force_login(alice)

    html = client.get("/reports/2026-03-02/").content.decode()

    assert "Monday 2 March 2026" in html
    assert "60\u201384 bpm, mean 72" in html
    assert "<strong>1 min below 92 %</strong>" in html
    assert alices_day.narrative in html
    assert '<polyline class="chart-line line-heart"' in html
    assert 'class="chart-guide"' in html  # the 92 % line on the SpO2 chart
    assert "No readings." in html  # the blood-pressure chart
    assert 'href="/reports/2026-03-02/pdf/"' in html


def test_the_pdf_is_the_reports_own(client: Client, alice, alices_day):
    client.force_login(alice)

    response = client.get("/reports/2026-03-02/pdf/")

    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    assert response["Content-Disposition"] == 'inline; filename="daily-report-2026-03-02.pdf"'
    assert response.content.startswith(b"%PDF-")


@pytest.mark.parametrize("path", ["/reports/2026-03-02/", "/reports/2026-03-02/pdf/", "/reports/2026-13-40/"])
def test_another_patients_report_or_a_bad_date_is_not_found(client: Client, bob, alices_day, path):
    client.force_login(bob)

    assert client.get(path).status_code == 404


def test_todays_report_is_written_on_demand(client: Client, alice):
    client.force_login(alice)

    with now(at(15)):
        response = client.post("/reports/today/")

    assert response.status_code == 302 and response["Location"] == "/reports/2026-03-02/"
    report = DailyReport.objects.get(user=alice)
    assert report.date == DAY and report.covers_until == at(15)
    with now(at(15, 5)):
        html = client.get("/reports/2026-03-02/").content.decode()
    assert "Covers the day until 15:00." in html and "No vitals were recorded on this day." in html


def test_the_report_time_is_set_on_the_profile(alice_api, alice):
    assert alice_api.get("/api/profile/").data["report_time"] == "20:00:00"

    assert alice_api.patch("/api/profile/", {"report_time": "21:30"}, format="json").status_code == 200
    alice.profile.refresh_from_db()
    assert alice.profile.report_time == dt.time(21, 30)

    refused = alice_api.patch("/api/profile/", {"report_time": "25:00"}, format="json")
    assert refused.status_code == 400 and "report_time" in refused.data
    alice.profile.refresh_from_db()
    assert alice.profile.report_time == dt.time(21, 30)


def test_the_profile_page_has_the_report_time_field(client: Client, alice):
    client.force_login(alice)

    html = client.get("/profile/").content.decode()

    assert 'id="p-report-time" name="report_time" type="time"' in html
