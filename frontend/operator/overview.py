"""The numbers behind the operator's overview page.

Every figure is one bounded query (aggregated with Count/Sum, related rows
joined with select_related), so the page costs the same number of queries
however many alerts, messages or agent runs there are.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.db.models import Count, F, Q, QuerySet, Sum
from django.db.models.functions import TruncDate
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

from agents.llm import model_store, resolved_choice
from agents.llm.base import ROLES
from agents.models import Conversation
from health.messaging.transports import configured_kind
from health.models import Alert, Appointment, DoseEvent, OutboundMessage

CHART_DAYS = 14
LIST_LIMIT = 10
NO_ADAPTER = "none: base model with few-shot prompt"
NO_EVALUATION = "no evaluation recorded yet"


def start_of_utc_day(moment: dt.datetime) -> dt.datetime:
    # Days are UTC days, like the admin's own "today" filters (health.admin.base.WhenFilter).
    return moment.astimezone(dt.UTC).replace(hour=0, minute=0, second=0, microsecond=0)


def chart_days(today: dt.date, days: int = CHART_DAYS) -> list[dt.date]:
    """The last ``days`` UTC dates, oldest first, ending with ``today``."""
    return [today - dt.timedelta(days=offset) for offset in range(days - 1, -1, -1)]


def open_alerts() -> QuerySet[Alert]:
    return Alert.objects.filter(state__in=Alert.ACTIVE_STATES).select_related("user").order_by("-created_at")


def todays_appointments(now: dt.datetime) -> QuerySet[Appointment]:
    start = start_of_utc_day(now)
    return (
        Appointment.objects.filter(slot__starts_at__gte=start, slot__starts_at__lt=start + dt.timedelta(days=1))
        .exclude(state=Appointment.State.CANCELLED)
        .select_related("user__profile", "slot", "specialist__specialization")
        .order_by("slot__starts_at")
    )


def upcoming_appointments(now: dt.datetime) -> QuerySet[Appointment]:
    # "Upcoming" starts after today, so no appointment is listed twice.
    tomorrow = start_of_utc_day(now) + dt.timedelta(days=1)
    return (
        Appointment.objects.filter(slot__starts_at__gte=tomorrow, state__in=[*Appointment.ACTIVE_STATES])
        .select_related("user__profile", "slot", "specialist__specialization")
        .order_by("slot__starts_at")
    )


def recent_runs() -> QuerySet[Conversation]:
    """Agent runs, newest first, with their step count, model latency and tokens summed in SQL."""
    return (
        Conversation.objects.select_related("user")
        .annotate(
            step_total=Count("steps"),
            latency_total=Sum("steps__latency_ms"),
            prompt_total=Sum("steps__prompt_tokens"),
            completion_total=Sum("steps__completion_tokens"),
        )
        .order_by("-updated_at")
    )


@dataclass(frozen=True)
class Bar:
    day: dt.date
    value: int


@dataclass(frozen=True)
class Series:
    label: str
    css_class: str
    bars: list[Bar]


def alerts_per_day(days: list[dt.date]) -> list[Series]:
    since = dt.datetime.combine(days[0], dt.time.min, tzinfo=dt.UTC)
    counts = dict(
        Alert.objects.filter(created_at__gte=since)
        .annotate(day=TruncDate("created_at", tzinfo=dt.UTC))
        .values("day")
        .annotate(n=Count("id"))
        .values_list("day", "n")
    )
    return [Series("alerts", "alerts", [Bar(day, counts.get(day, 0)) for day in days])]


def outbox_per_day(days: list[dt.date]) -> list[Series]:
    since = dt.datetime.combine(days[0], dt.time.min, tzinfo=dt.UTC)
    rows = (
        OutboundMessage.objects.filter(created_at__gte=since)
        .annotate(day=TruncDate("created_at", tzinfo=dt.UTC))
        .values("day")
        .annotate(
            sent=Count("id", filter=Q(status=OutboundMessage.Status.SENT)),
            failed=Count("id", filter=Q(status__in=OutboundMessage.UNDELIVERED_STATUSES)),
        )
    )
    by_day = {row["day"]: row for row in rows}
    return [
        Series(status, status, [Bar(day, by_day.get(day, {}).get(status, 0)) for day in days])
        for status in ("sent", "failed")
    ]


# Model cards are markdown; raw HTML in a card is escaped, never passed through.
_MARKDOWN = MarkdownIt("commonmark", {"html": False}).enable("table")
_FENCE = re.compile(r"^```[\w-]*[ \t]*\n?", re.MULTILINE)


def card_html(markdown: str) -> SafeString:
    """A model card section as HTML: paragraphs, code and its tables as tables. The evaluation
    reports are fenced so they read as tables in a terminal; the fences go, so they render here."""
    return mark_safe(_MARKDOWN.render(_FENCE.sub("", markdown)))  # markdown-it escapes: html is off


@dataclass(frozen=True)
class AdapterInfo:
    role: str
    path: str
    evaluation: str

    @property
    def evaluation_html(self) -> SafeString:
        return card_html(self.evaluation)


@dataclass(frozen=True)
class ModelInfo:
    backend: str
    base_model: str
    base_prepared: bool
    base_note: str
    adapters: list[AdapterInfo] = field(default_factory=list)


EVALUATION_HEADING = re.compile(r"^#{1,6}\s*.*evaluation.*$", re.IGNORECASE | re.MULTILINE)


def card_evaluation(adapter: Path) -> str:
    """The "Evaluation" section of an adapter's model card (README.md), or
    NO_EVALUATION when there is no card or no such section."""
    try:
        card = (adapter / "README.md").read_text(encoding="utf-8")
    except OSError:
        return NO_EVALUATION
    heading = EVALUATION_HEADING.search(card)
    if heading is None:
        return NO_EVALUATION
    rest = card[heading.end() :]
    following = re.search(r"^#{1,6}\s", rest, re.MULTILINE)
    section = (rest[: following.start()] if following else rest).strip()
    return section or NO_EVALUATION


def deployed_model() -> ModelInfo:
    """What the agent runs on, read from settings and the disk; nothing is loaded."""
    configured = settings.AGENT_BASE_MODEL.strip()
    try:
        base = model_store.base_model_dir()
        base_path, prepared, note = str(base), True, "prepared"
    except model_store.ModelNotAvailable as problem:
        base_path = configured or str(model_store.default_model_dir())
        prepared, note = False, str(problem)
    adapters = []
    for role in ROLES:
        try:
            adapter = model_store.adapter_dir(role)
        except model_store.ModelNotAvailable as problem:
            # A misconfigured adapter is worth showing to the operator, not a server error.
            adapters.append(AdapterInfo(role, f"misconfigured: {problem}", NO_EVALUATION))
            continue
        if adapter is None:
            adapters.append(AdapterInfo(role, NO_ADAPTER, NO_EVALUATION))
        else:
            adapters.append(AdapterInfo(role, str(adapter), card_evaluation(adapter)))
    return ModelInfo(resolved_choice(), base_path, prepared, note, adapters)


def overview(now: dt.datetime | None = None) -> dict:
    """Everything the overview template shows, as lists (evaluated here, so the
    query count is fixed before rendering starts)."""
    now = now or timezone.now()
    days = chart_days(start_of_utc_day(now).date())
    alerts = open_alerts()
    # "Not sent" (no SMS provider) is as much a problem as "failed": nobody got the text.
    failed = OutboundMessage.objects.filter(status__in=OutboundMessage.UNDELIVERED_STATUSES)
    retried = OutboundMessage.objects.filter(attempts__gt=1)
    missed = DoseEvent.objects.filter(state=DoseEvent.State.MISSED)
    counts = {
        "alerts": alerts.count(),
        "failed": failed.count(),
        "failed_emergency": failed.filter(alert__isnull=False).count(),
        "retried": retried.count(),
        "missed": missed.count(),
    }
    return {
        "now": now,
        "counts": counts,
        "open_alerts": list(alerts[:LIST_LIMIT]),
        "todays_appointments": list(todays_appointments(now)[:LIST_LIMIT]),
        "upcoming_appointments": list(upcoming_appointments(now)[:LIST_LIMIT]),
        "failed_messages": list(
            failed.select_related("user").order_by(F("alert").desc(nulls_last=True), "-created_at")[:LIST_LIMIT]
        ),
        "sms_configured": configured_kind() != "outbox_only",
        "retried_messages": list(retried.select_related("user").order_by("-created_at")[:LIST_LIMIT]),
        "missed_doses": list(missed.select_related("user", "reminder__medication").order_by("-due_at")[:LIST_LIMIT]),
        "recent_runs": list(recent_runs()[:LIST_LIMIT]),
        "alerts_chart": alerts_per_day(days),
        "outbox_chart": outbox_per_day(days),
        "model": deployed_model(),
    }
