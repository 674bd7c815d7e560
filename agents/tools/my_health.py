"""The patient's own health numbers: "how was my day?", "how did I sleep?", "my heart rate this week".

Every number is computed from the recorded readings by the daily report's own aggregation
(``health.reports.facts.vitals``, ``compute``) and put into words by templates
(agents/templates/agents/health/); no model writes a number here. A measure without readings is
said to have none, never 0.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.template.loader import render_to_string

from agents.errors import InvalidArguments
from agents.tools.context import ToolContext
from agents.tools.registry import tool
from health.models import VitalReading
from health.reports.facts import alerts, day_bounds, doses, vitals
from health.reports.narrative import hours_and_minutes

TOPICS = (
    "day",
    "sleep",
    "heart_rate",
    "blood_pressure",
    "spo2",
    "steps",
    "vitals",
    "temperature",
    "weight",
    "blood_sugar",
)
# What patients ask about that the watch does not measure: said so, then what it did record.
NOT_RECORDED = {"temperature": "temperature", "weight": "weight", "blood_sugar": "blood sugar"}
PERIODS = ("today", "yesterday", "last_night", "week")
# A night's sleep: from this hour of the evening before to this hour of the morning (local time).
NIGHT_FROM, NIGHT_TO = dt.time(18), dt.time(12)
WEEK_DAYS = 7


def window(period: str, now: dt.datetime, zone) -> tuple[dt.datetime, dt.datetime, str]:
    """(start, end, words) of ``period`` in the patient's zone, never past ``now``."""
    today = now.astimezone(zone).date()
    if period == "today":
        start, _end = day_bounds(today, zone)
        return start, now, f"today (until {now.astimezone(zone):%H:%M})"
    if period == "yesterday":
        start, end = day_bounds(today - dt.timedelta(days=1), zone)
        return start, end, f"yesterday ({today - dt.timedelta(days=1):%a %d %b})"
    if period == "last_night":
        start = dt.datetime.combine(today - dt.timedelta(days=1), NIGHT_FROM, tzinfo=zone)
        end = min(now, dt.datetime.combine(today, NIGHT_TO, tzinfo=zone))
        return start, end, "last night"
    if period == "week":
        start, _end = day_bounds(today - dt.timedelta(days=WEEK_DAYS - 1), zone)
        return start, now, f"in the last {WEEK_DAYS} days"
    raise InvalidArguments(f"period must be one of {', '.join(PERIODS)}.")


def _render(name: str, context: dict[str, Any]) -> str:
    return " ".join(render_to_string(f"agents/health/{name}.txt", context).split())


@tool(offered=False)
def get_health_summary(ctx: ToolContext, user_id: str, topic: str = "day", period: str = "today") -> dict:
    """Summarises the user's recorded vitals, sleep, steps, alerts and doses for a period, from the readings.

    Args:
        user_id: Unique identifier for the user.
        topic: What the user asks about: day, sleep, heart_rate, blood_pressure, spo2, steps, vitals,
            temperature, weight or blood_sugar.
        period: today, yesterday, last_night or week.
    """
    ctx.check_user(user_id)
    if topic not in TOPICS:
        raise InvalidArguments(f"topic must be one of {', '.join(TOPICS)}.")
    if topic == "sleep" and period == "today":
        period = "last_night"  # "how did I sleep?" in the day means the night before
    zone = ctx.tz
    start, end, words = window(period, ctx.now(), zone)
    facts = vitals(VitalReading.objects.filter(user=ctx.user, measured_at__gte=start, measured_at__lt=end))
    shown = {
        "day": ("heart_rate", "spo2", "blood_pressure", "steps", "sleep"),
        "vitals": ("heart_rate", "spo2", "blood_pressure"),
        **{name: ("heart_rate", "spo2", "blood_pressure") for name in NOT_RECORDED},
    }.get(topic, (topic,))
    context: dict[str, Any] = {"facts": facts, "period": words}
    if facts.get("steps") is not None:
        context["steps_text"] = f"{facts['steps']:,}"
    if facts.get("sleep_minutes") is not None:
        context["asleep"] = hours_and_minutes(facts["sleep_minutes"])
        context["stages"] = [
            {"stage": stage.replace("_", " "), "time": hours_and_minutes(minutes)}
            for stage, minutes in (facts.get("sleep_stages") or {}).items()
            if minutes and stage != VitalReading.SleepStage.AWAKE
        ]
    present = {
        "heart_rate": facts["heart_rate"]["readings"],
        "spo2": facts["spo2"]["readings"],
        "blood_pressure": facts["blood_pressure"]["readings"],
        "steps": facts["steps"] is not None,
        "sleep": facts["sleep_minutes"] is not None,
    }
    if any(present[name] for name in shown):
        parts = [_render("lead", context), *(_render(name, context) for name in shown)]
    else:
        parts = [_render("none", context)]  # one sentence, not a "No …" for every measure
    if topic in NOT_RECORDED:
        parts.insert(0, _render("not_recorded", {"measure": NOT_RECORDED[topic]}))
    if topic == "day":
        found = alerts(ctx.user, start, end, zone)
        context["alerts"] = found
        parts.append(_render("alerts", context))
        if period in ("today", "yesterday"):
            context["doses"] = doses(ctx.user, start.astimezone(zone).date())
            parts.append(_render("doses", context))
    message = " ".join(part for part in parts if part)
    return {"topic": topic, "period": period, "facts": facts, "message": " ".join(message.split())}
