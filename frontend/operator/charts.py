"""Small bar charts drawn as inline SVG on the server: no JavaScript, no CDN,
and a text alternative (aria-label plus a data table in the template)."""

from __future__ import annotations

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from frontend.operator.overview import Series

WIDTH = 560
HEIGHT = 120
GAP = 2


def bar_chart(title: str, series: list[Series]) -> SafeString:
    """One group per day, one bar per series within it; heights scale to the largest value."""
    days = len(series[0].bars)
    peak = max((bar.value for s in series for bar in s.bars), default=0) or 1
    group = WIDTH / days
    width = max((group - GAP * 2) / len(series), 1)
    summary = "; ".join(f"{s.label}: {sum(bar.value for bar in s.bars)}" for s in series)
    rects = []
    for day_index in range(days):
        for series_index, s in enumerate(series):
            bar = s.bars[day_index]
            height = round(bar.value / peak * (HEIGHT - 4), 1)
            rects.append(
                (
                    s.css_class,
                    round(day_index * group + GAP + series_index * width, 1),
                    round(HEIGHT - height, 1),
                    round(width, 1),
                    height,
                    f"{bar.day:%Y-%m-%d} {s.label}: {bar.value}",
                )
            )
    body = format_html_join(
        "",
        '<rect class="bar {}" x="{}" y="{}" width="{}" height="{}"><title>{}</title></rect>',
        rects,
    )
    return format_html(
        '<svg class="overview-chart" role="img" aria-label="{}" viewBox="0 0 {} {}" '
        'width="100%" preserveAspectRatio="none">{}</svg>',
        f"{title}, last {days} days ({summary})",
        WIDTH,
        HEIGHT,
        body,
    )
