"""Geometry for the small line charts of the Reports pages, drawn as inline SVG by
``frontend/_line_chart.html``.

Hand-written rather than a chart library: the app is offline and takes nothing from a CDN, the
pages have no build step, and a server-drawn SVG shows with JavaScript off and prints as it looks.
A chart here is a few polylines over a value axis; a missing value breaks the line (a gap, never a
drop to 0), and a lone point between gaps is drawn as a dot.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

WIDTH, HEIGHT = 640, 200
LEFT, RIGHT, TOP, BOTTOM = 58, 24, 14, 26


@dataclass
class Series:
    """One line: its values (None where nothing was measured), a CSS class and an optional band
    (low, high) per value, drawn shaded behind the line."""

    values: Sequence[float | None]
    css: str
    band: Sequence[tuple[float, float] | None] | None = None


@dataclass
class Chart:
    width: int
    height: int
    lines: list[dict] = field(default_factory=list)
    y_ticks: list[dict] = field(default_factory=list)
    x_ticks: list[dict] = field(default_factory=list)
    guides: list[dict] = field(default_factory=list)
    plot: dict = field(default_factory=dict)
    empty: bool = True


def _nice_step(span: float) -> float:
    raw = span / 4 or 1
    magnitude = 10 ** math.floor(math.log10(raw))
    return next(step * magnitude for step in (1, 2, 2.5, 5, 10) if step * magnitude >= raw)


def _label(value: float) -> str:
    return f"{value:,.0f}" if value == int(value) else f"{value:g}"


def line_chart(
    xs: Sequence[float],
    series: Sequence[Series],
    *,
    x_range: tuple[float, float],
    x_labels: Sequence[tuple[float, str]],
    y_floor: float | None = None,
    y_range: tuple[float, float] | None = None,
    y_ceiling: float | None = None,
    min_span: float = 0,
    guides: Sequence[tuple[float, str]] = (),
    size: tuple[int, int] = (WIDTH, HEIGHT),
) -> Chart:
    """Pixel geometry for ``series`` over the shared ``xs`` (their positions on ``x_range``).

    The value axis fits the data, widened to at least ``min_span`` around it (a resting heart rate
    that moves by 1 bpm must not look like a zigzag), starting at ``y_floor`` when given (steps from
    0), never above ``y_ceiling``; ``y_range`` fixes it (a percentage from 0 to 100)."""
    width, height = size
    chart = Chart(width, height)
    values = [v for s in series for v in s.values if v is not None]
    values += [bound for s in series for pair in (s.band or []) if pair for bound in pair]
    if not values:
        return chart
    chart.empty = False
    low, high = min(values), max(values)
    if guides:
        low, high = min(low, *(g for g, _ in guides)), max(high, *(g for g, _ in guides))
    if high - low < min_span:
        middle = (high + low) / 2
        low, high = middle - min_span / 2, middle + min_span / 2
    if y_floor is not None:
        low, high = y_floor, max(high, y_floor + min_span)
    if y_ceiling is not None and high > y_ceiling:
        low, high = min(low, y_ceiling - min_span), y_ceiling
    if y_range is not None:
        low, high = y_range
    step = _nice_step(high - low)
    low = math.floor(low / step) * step
    high = math.ceil(high / step) * step if high > low else low + step
    x0, x1 = x_range
    plot_w, plot_h = width - LEFT - RIGHT, height - TOP - BOTTOM
    chart.plot = {"left": LEFT, "right": width - RIGHT, "bottom": height - 8}

    def px(x: float) -> float:
        return round(LEFT + (x - x0) / ((x1 - x0) or 1) * plot_w, 1)

    def py(y: float) -> float:
        return round(TOP + (1 - (y - low) / ((high - low) or 1)) * plot_h, 1)

    tick = low
    while tick <= high + step / 1000:
        chart.y_ticks.append({"y": py(tick), "label": _label(tick)})
        tick += step
    chart.x_ticks = [{"x": px(x), "label": label} for x, label in x_labels]
    chart.guides = [{"y": py(value), "label": label} for value, label in guides]
    for line in series:
        segments: list[list[tuple[float, float]]] = [[]]
        band_segments: list[list[tuple[float, float, float]]] = [[]]
        for index, (x, value) in enumerate(zip(xs, line.values, strict=True)):
            if value is None:
                segments.append([])
                band_segments.append([])
                continue
            segments[-1].append((px(x), py(value)))
            pair = line.band[index] if line.band else None
            if pair:
                band_segments[-1].append((px(x), py(pair[0]), py(pair[1])))
        chart.lines.append(
            {
                "css": line.css,
                "paths": [" ".join(f"{x},{y}" for x, y in seg) for seg in segments if len(seg) > 1],
                "dots": [{"x": seg[0][0], "y": seg[0][1]} for seg in segments if len(seg) == 1],
                "bands": [
                    " ".join([f"{x},{hi}" for x, _, hi in seg] + [f"{x},{lo}" for x, lo, _ in reversed(seg)])
                    for seg in band_segments
                    if len(seg) > 1
                ],
            }
        )
    return chart


def with_gaps(
    minutes: Sequence[int], values: Sequence[float], bands: Sequence[tuple[float, float]], bucket: int
) -> tuple[list[int], list[float | None], list[tuple[float, float] | None]]:
    """Day-series points (``minutes`` after midnight, one per ``bucket`` minutes at most) with a gap
    inserted where buckets are missing, so the line breaks where the watch was off."""
    xs: list[int] = []
    ys: list[float | None] = []
    band: list[tuple[float, float] | None] = []
    for index, minute in enumerate(minutes):
        if index and minute - minutes[index - 1] > bucket:
            xs.append(minute - bucket)
            ys.append(None)
            band.append(None)
        xs.append(minute)
        ys.append(values[index])
        band.append(bands[index])
    return xs, ys, band
