"""Which daily reports the evening tick writes now.

For each active patient (an active user with a profile), in the patient's own time zone:

- **today's** report is due once the local clock has passed the patient's ``report_time``
  (default 20:00) and there is no report for today yet, or only one written before that time
  (asked for in the chat in the afternoon: it is rewritten in the evening, with the whole day);
- **yesterday's** is due when the evening passed without one, or with only an earlier one (the
  app was not running at report time): it is written once, covering the whole day, after which it
  is no longer due. Older evenings are not caught up, and neither is an evening before the
  patient's account existed.

A day's report time is resolved with ``zoneinfo`` like a dose's (a time the clocks skip falls the
gap's length later).
"""

from __future__ import annotations

import datetime as dt
import zoneinfo

from django.contrib.auth import get_user_model
from django.utils import timezone

from health.models import DailyReport, PatientProfile


def report_instant(day: dt.date, report_time: dt.time, zone: zoneinfo.ZoneInfo) -> dt.datetime:
    return dt.datetime.combine(day, report_time, tzinfo=zone).astimezone(dt.UTC)


def _zone(profile: PatientProfile) -> zoneinfo.ZoneInfo:
    try:
        return zoneinfo.ZoneInfo(profile.timezone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


def due_reports(now: dt.datetime | None = None) -> list[tuple[int, dt.date]]:
    """(user id, local date) of every report to write now, yesterday's before today's."""
    now = now or timezone.now()
    profiles = PatientProfile.objects.filter(user__is_active=True).select_related("user")
    users = get_user_model().objects.filter(is_active=True, profile__isnull=False)
    written = {
        (user_id, day): covers_until
        for user_id, day, covers_until in DailyReport.objects.filter(
            user__in=users, date__gte=(now - dt.timedelta(days=3)).date()
        ).values_list("user_id", "date", "covers_until")
    }
    due: list[tuple[int, dt.date]] = []
    for profile in profiles:
        zone = _zone(profile)
        today = now.astimezone(zone).date()
        for day in (today - dt.timedelta(days=1), today):
            evening = report_instant(day, profile.report_time, zone)
            if evening > now or evening < profile.user.date_joined:
                continue
            covers_until = written.get((profile.user_id, day), dt.datetime.min.replace(tzinfo=dt.UTC))
            if covers_until is None or covers_until < evening:
                due.append((profile.user_id, day))
    return due
