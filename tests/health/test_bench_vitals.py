"""The benchmark measures what it says: the same rows through both paths, and
a notification for every latency trial."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from health.management.commands.bench_vitals import measure_latency, measure_throughput
from health.models import Notification, VitalReading


def test_both_throughput_paths_store_the_same_readings(db):
    api_rate, bulk_rate = measure_throughput(300, 100)

    assert api_rate > 0 and bulk_rate > 0
    # Plus the warm-up: five readings through the API, one through bulk_create.
    assert VitalReading.objects.filter(user__username="bench-api").count() == 305
    assert VitalReading.objects.filter(user__username="bench-bulk").count() == 301


def test_every_latency_trial_ends_with_the_user_notified(db):
    written, answered = measure_latency(3)

    assert len(written) == len(answered) == 3
    assert all(0 <= seconds <= answer + 1 for seconds, answer in zip(written, answered, strict=True))
    assert Notification.objects.filter(kind="alert", user__username__startswith="bench-latency-").count() >= 3


@pytest.mark.django_db(transaction=True)
def test_the_command_prints_its_table_from_a_throwaway_database():
    out = io.StringIO()

    call_command("bench_vitals", readings=200, batch=100, trials=2, stdout=out)

    table = out.getvalue()
    for row in ("batch API (100/POST, APIClient)", "plain bulk_create (same rows)", "batch API / bulk_create",
                "soft SOS: notification written p50/p95", "soft SOS: POST answered p50/p95"):  # fmt: skip
        assert row in table
    assert "200 readings; 2 latency trials" in table
    # Its database was thrown away: nothing of the bench is in the tests' one.
    assert not VitalReading.objects.exists()
    assert not Notification.objects.exists()
