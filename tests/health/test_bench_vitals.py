"""The benchmark measures what it says: the same rows through both paths, and
a notification for every latency trial."""

from __future__ import annotations

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
