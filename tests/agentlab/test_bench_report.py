"""The report benchmark times what it says: a day of readings of its own, and the real build."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from agentlab.management.commands.bench_report import measure
from health.models import DailyReport, VitalReading


def test_it_builds_the_report_of_its_own_readings(db):
    rows, timings = measure(600, 2)

    assert rows == 600 and len(timings) == 2 and all(seconds > 0 for seconds in timings)
    report = DailyReport.objects.get(user__username__startswith="bench-report-")
    assert report.metrics["heart_rate"]["readings"] == 600
    assert report.metrics["blood_pressure"]["readings"] == 1  # one every 15 minutes, from midnight
    assert report.metrics["sleep_minutes"] == 10  # ten minutes of the night at one reading a second


@pytest.mark.django_db(transaction=True)
def test_the_command_prints_its_table_from_a_throwaway_database():
    out = io.StringIO()

    call_command("bench_report", seconds=300, runs=2, stdout=out)

    table = out.getvalue()
    for row in ("readings in the day (1 Hz)", "first build (creates the report)", "median of 2 builds", "< 1 s"):
        assert row in table
    assert "300 readings; 2 builds" in table
    assert not VitalReading.objects.exists() and not DailyReport.objects.exists()
