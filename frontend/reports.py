"""The Reports pages: the history of evening reports with 7- and 30-day trends, one report with
charts of the day's vitals, and the report as a PDF for a doctor.

Views authorise and render; the figures are the stored reports' facts (``health.reports``) and the
charts' series are read from the records (``health.reports.series``).
"""

from __future__ import annotations

import datetime as dt

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from frontend.charts import Chart, Series, line_chart, with_gaps
from health.models import DailyReport
from health.models.appointments import patient_zone
from health.reports.facts import SPO2_LOW
from health.reports.generate import build
from health.reports.pdf import report_pdf
from health.reports.series import BUCKET_MINUTES, Point, day_series, trends

REPORTS_PER_PAGE = 30
# Trend charts sit two or three to a row: a smaller drawing keeps their text readable.
TREND_SIZE = (400, 200)
# A day's chart spans the page: a wider drawing keeps its text the size of the page's.
DAY_SIZE = (960, 240)
DAY_LABELS = [(hour * 60, f"{hour:02d}:00") for hour in range(0, 25, 3)]


def _today(request: HttpRequest) -> dt.date:
    return timezone.now().astimezone(patient_zone(request.user)).date()


def _day_chart(
    points: list[Point], css: str, *, guides=(), min_span: float = 0, y_ceiling: float | None = None
) -> Chart:
    xs, means, bands = with_gaps(
        [p.minute for p in points], [p.mean for p in points], [(p.low, p.high) for p in points], BUCKET_MINUTES
    )
    # Each point is drawn at the middle of its quarter of an hour.
    xs = [x + BUCKET_MINUTES / 2 for x in xs]
    return line_chart(
        xs,
        [Series(means, css, bands)],
        x_range=(0, 24 * 60),
        x_labels=DAY_LABELS,
        guides=guides,
        y_ceiling=y_ceiling,
        min_span=min_span,
        size=DAY_SIZE,
    )


def _blood_pressure_chart(systolic: list[Point], diastolic: list[Point]) -> Chart:
    minutes = sorted({p.minute for p in systolic} | {p.minute for p in diastolic})
    by_minute = [{p.minute: p.mean for p in points} for points in (systolic, diastolic)]
    xs = [m + BUCKET_MINUTES / 2 for m in minutes]
    lines = [
        Series([values.get(m) for m in minutes], css)
        for values, css in zip(by_minute, ("line-sys", "line-dia"), strict=True)
    ]
    return line_chart(xs, lines, x_range=(0, 24 * 60), x_labels=DAY_LABELS, min_span=60, size=DAY_SIZE)


def _trend_charts(user, today: dt.date, days: int) -> dict[str, Chart]:
    data = trends(user, today, days)
    dates = data["dates"]
    every = 1 if days <= 7 else 7
    # Every day of a week is named; in a month every seventh day, counted back from today.
    labels = [
        (index, f"{day:%a}" if days <= 7 else f"{day.day} {day:%b}")
        for index, day in enumerate(dates)
        if (len(dates) - 1 - index) % every == 0
    ]
    xs = list(range(len(dates)))
    span = (-0.5, len(dates) - 0.5)

    def chart(name: str, css: str, scale: float = 1, **axis) -> Chart:
        values = [None if v is None else v * scale for v in data[name]]
        return line_chart(xs, [Series(values, css)], x_range=span, x_labels=labels, size=TREND_SIZE, **axis)

    return {
        "resting": chart("resting_heart_rate", "line-heart", min_span=20),
        "spo2": chart("spo2_mean", "line-oxygen", min_span=8, y_ceiling=100),
        "steps": chart("steps", "line-steps", y_floor=0, min_span=1000),
        "sleep": chart("sleep_minutes", "line-sleep", scale=1 / 60, y_floor=0, min_span=8),
        "adherence": chart("adherence", "line-doses", y_range=(0, 100)),
    }


@login_required
def reports(request: HttpRequest) -> HttpResponse:
    today = _today(request)
    mine = DailyReport.objects.filter(user=request.user).order_by("-date")
    page = Paginator(mine, REPORTS_PER_PAGE).get_page(request.GET.get("page"))
    context = {
        "page": page,
        "today": today,
        "has_today": mine.filter(date=today).exists(),
        "week": _trend_charts(request.user, today, 7),
        "month": _trend_charts(request.user, today, 30),
        "time_zone": patient_zone(request.user),
    }
    return render(request, "frontend/reports.html", context)


@login_required
@require_POST
def report_today(request: HttpRequest) -> HttpResponse:
    """Write (or bring up to date) today's report from what is recorded so far."""
    today = _today(request)
    build(request.user, today)
    return redirect("report-page", day=today.isoformat())


def _own_report(request: HttpRequest, day: str) -> DailyReport:
    try:
        date = dt.date.fromisoformat(day)
    except ValueError:
        raise Http404("Not a date") from None
    return get_object_or_404(DailyReport.objects.select_related("user"), user=request.user, date=date)


@login_required
def report(request: HttpRequest, day: str) -> HttpResponse:
    report = _own_report(request, day)
    series = day_series(report)
    mine = DailyReport.objects.filter(user=request.user)
    context = {
        "report": report,
        "facts": report.metrics,
        "day": report.date,
        "heart_chart": _day_chart(series["heart_rate"], "line-heart", min_span=40),
        "spo2_chart": _day_chart(
            series["spo2"], "line-oxygen", guides=[(SPO2_LOW, f"{SPO2_LOW} %")], min_span=10, y_ceiling=100
        ),
        "bp_chart": _blood_pressure_chart(series["systolic_bp"], series["diastolic_bp"]),
        "previous": mine.filter(date__lt=report.date).order_by("-date").values_list("date", flat=True).first(),
        "next": mine.filter(date__gt=report.date).order_by("date").values_list("date", flat=True).first(),
    }
    return render(request, "frontend/report.html", context)


@login_required
def report_download(request: HttpRequest, day: str) -> HttpResponse:
    report = _own_report(request, day)
    response = HttpResponse(report_pdf(report), content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="daily-report-{report.date.isoformat()}.pdf"'
    response["Cache-Control"] = "private, no-store"
    return response
