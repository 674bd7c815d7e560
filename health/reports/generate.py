"""Build (or rebuild) a patient's daily report: one row per patient and local day.

Building twice gives one report, the second replacing the first's figures with the current ones:
the facts are recomputed from the records, so a rebuild is how a report made before the evening,
or before late readings arrived, catches up. The facts and the narrative are prepared first (a
model narrative can take seconds) and written in one short transaction.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import transaction
from django.template.loader import render_to_string
from django.utils import timezone

from core.events import Event
from core.realtime import push_to_user
from health.models import DailyReport, Notification
from health.models.appointments import patient_zone
from health.reports import facts as day_facts
from health.reports import narrative


def build(user, day: dt.date, *, now: dt.datetime | None = None, announce: bool = False) -> DailyReport:
    """The report of ``user``'s local ``day``, built from the records as of ``now``; idempotent.

    ``announce`` (the evening tick): also tell the patient, once per day's report, with an in-app
    notification pushed to their open pages after commit. Raises
    ``health.reports.facts.ReportError`` for a day not yet started (nothing is written)."""
    now = now or timezone.now()
    computed = day_facts.compute(user, day, now=now)
    text, source = narrative.write(computed)
    with transaction.atomic():
        report, _ = DailyReport.objects.update_or_create(
            user=user,
            date=day,
            defaults={
                "metrics": computed,
                "anomalies": computed["alerts"],
                "narrative": text,
                "narrative_source": source,
                "time_zone": computed["time_zone"],
                "covers_until": min(now, day_facts.day_bounds(day, patient_zone(user))[1]),
            },
        )
        if announce:
            _announce(report, catch_up=computed["complete"])
    return report


def _announce(report: DailyReport, *, catch_up: bool) -> None:
    """One notification per report day (a rebuilt report is not announced twice)."""
    day = report.date.isoformat()
    if Notification.objects.filter(user=report.user, kind="report", data__date=day).exists():
        return
    context = {"report": report, "day": report.date, "catch_up": catch_up}
    notification = Notification.objects.create(
        user=report.user,
        kind="report",
        title=render_to_string("health/reports/notification_title.txt", context).strip()[:160],
        body=" ".join(render_to_string("health/reports/notification_body.txt", context).split()),
        data={"report": report.pk, "date": day},
    )
    payload = {
        "id": notification.pk,
        "kind": notification.kind,
        "level": notification.level,
        "title": notification.title,
        "body": notification.body,
    }
    transaction.on_commit(lambda: push_to_user(report.user_id, Event.NOTIFICATION, payload), robust=True)


def as_facts(report: DailyReport) -> dict[str, Any]:
    """A stored report as its computed facts, with its narrative (what the command writes, the
    chat's ``get_daily_report`` answers and the pages show)."""
    return {**report.metrics, "narrative": report.narrative, "narrative_source": report.narrative_source}
