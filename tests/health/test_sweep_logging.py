"""The SOS countdown sweep runs every 5 s: an idle run writes nothing to the log
(it used to write three INFO lines: beat sent it, the worker received it, it succeeded)."""

from __future__ import annotations

import logging

import pytest
from celery.beat import ScheduleEntry, Scheduler

from backend.celery import app, ping
from health.tasks import sweep_sos_countdowns

pytestmark = pytest.mark.django_db(transaction=True)


class InlineScheduler(Scheduler):
    """Beat's scheduler, running what it sends inline as a worker would (no broker here)."""

    def apply_async(self, entry, producer=None, advance=True, **kwargs):
        assert entry.task == sweep_sos_countdowns.name
        return sweep_sos_countdowns.apply()


def test_an_idle_sos_sweep_sent_by_beat_writes_no_info_lines(caplog):
    config = app.conf.beat_schedule["sweep-sos-countdowns"]
    entry = ScheduleEntry(name="sweep-sos-countdowns", app=app, **config)
    scheduler = InlineScheduler(app, lazy=True)

    with caplog.at_level(logging.INFO):
        scheduler.apply_entry(entry)  # beat's own call: logs "Sending due task", then runs it
        ping.apply()

    lines = [r.getMessage() for r in caplog.records if r.name.startswith("celery")]
    assert not [line for line in lines if "sweep" in line], lines
    # Other tasks are logged as before.
    assert any("backend.ping" in line and "succeeded" in line for line in lines), lines
