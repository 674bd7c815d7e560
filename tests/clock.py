"""Tests that run on the real clock and read "today" in the patient's zone."""

from __future__ import annotations

import datetime as dt
import zoneinfo

# Zones about eight hours apart: at any moment at least one is far from its local midnight.
ZONES = ("Europe/Berlin", "America/Los_Angeles", "Asia/Tokyo")


def settle_clear_of_midnight(user, minutes: int = 20) -> zoneinfo.ZoneInfo:
    """Give ``user`` a time zone whose local date stays the same from ``minutes`` ago to ``minutes``
    from now, and return it. A test on the real clock that schedules a dose "soon" or marks one
    "just sent" would otherwise straddle the patient's midnight on a run at the wrong hour."""
    now = dt.datetime.now(dt.UTC)
    margin = dt.timedelta(minutes=minutes)
    for key in ZONES:
        zone = zoneinfo.ZoneInfo(key)
        if (now - margin).astimezone(zone).date() == (now + margin).astimezone(zone).date():
            user.profile.timezone = key
            user.profile.save(update_fields=["timezone"])
            return zone
    raise AssertionError("no zone is clear of midnight")  # cannot happen with zones 8 h apart
