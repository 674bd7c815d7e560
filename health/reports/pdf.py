"""A daily report as a PDF a patient can hand to their doctor (ReportLab, nothing from the network).

One A4 page (two for a busy day): who and which day, the summary, the vitals table, a heart-rate
and SpO2 chart of the day, then alerts, medicines, appointments, symptoms and what was discussed
with the assistant. Every figure is the stored report's facts; a measure without readings says
"No readings". The standard PDF fonts are used so the file renders anywhere; they have no
subscript two, so "SpO₂" is drawn with ReportLab's <sub> markup.
"""

from __future__ import annotations

import datetime as dt
import io
from typing import Any
from xml.sax.saxutils import escape

from reportlab.graphics.charts.lineplots import LinePlot
from reportlab.graphics.shapes import Drawing, String
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from health.models import DailyReport
from health.reports.facts import SPO2_LOW
from health.reports.narrative import hours_and_minutes
from health.reports.series import day_series

NO_READINGS = "No readings"
INK = colors.HexColor("#1f2933")
MUTED = colors.HexColor("#52606d")
RULE = colors.HexColor("#cbd2d9")
HEART = colors.HexColor("#c0392b")
OXYGEN = colors.HexColor("#1f6fb2")


def _styles() -> dict[str, ParagraphStyle]:
    base = getSampleStyleSheet()
    return {
        "title": ParagraphStyle("title", parent=base["Title"], fontSize=18, alignment=0, spaceAfter=2 * mm),
        "meta": ParagraphStyle("meta", parent=base["Normal"], textColor=MUTED, fontSize=9.5, leading=13),
        "h2": ParagraphStyle("h2", parent=base["Heading2"], fontSize=12.5, spaceBefore=4 * mm, spaceAfter=1.5 * mm),
        "body": ParagraphStyle("body", parent=base["Normal"], fontSize=10, leading=14),
        "cell": ParagraphStyle("cell", parent=base["Normal"], fontSize=9.5, leading=12),
        "note": ParagraphStyle("note", parent=base["Normal"], textColor=MUTED, fontSize=8.5, leading=11),
    }


def _markup(text: str) -> str:
    return escape(str(text)).replace("₂", "<sub>2</sub>")


def _num(value: Any, unit: str = "") -> str:
    if value is None:
        return NO_READINGS
    text = f"{value:,}" if isinstance(value, int) else f"{value:g}"
    return f"{text} {unit}".strip()


def vitals_rows(facts: dict[str, Any]) -> list[tuple[str, str]]:
    """(measure, value) lines of the vitals table, also used by the web page."""
    hr, spo2, bp = facts["heart_rate"], facts["spo2"], facts["blood_pressure"]
    stages = facts.get("sleep_stages") or {}
    hr_text = f"{hr['min']}\u2013{hr['max']} bpm, mean {_num(hr['mean'])}" if hr["readings"] else NO_READINGS
    spo2_text = (
        f"mean {_num(spo2['mean'], '%')}, lowest {_num(spo2['min'], '%')}; {spo2['minutes_below_92']} min below 92 %"
        if spo2["readings"]
        else NO_READINGS
    )
    bp_text = (
        f"mean {_num(bp['systolic_mean'])}/{_num(bp['diastolic_mean'])} mmHg, "
        f"highest {bp['highest']['systolic']}/{bp['highest']['diastolic']}"
        if bp["readings"]
        else NO_READINGS
    )
    if facts["sleep_minutes"] is None:
        sleep_text = NO_READINGS
    else:
        parts = [
            f"{name} {hours_and_minutes(stages[key])}" for key, name in SLEEP_STAGES if stages.get(key) is not None
        ]
        sleep_text = f"{hours_and_minutes(facts['sleep_minutes'])} asleep ({', '.join(parts)})"
    return [
        ("Heart rate", hr_text),
        ("Resting heart rate", _num(hr["resting"], "bpm")),
        ("SpO₂ (blood oxygen)", spo2_text),
        ("Blood pressure", bp_text),
        ("Steps", _num(facts["steps"])),
        ("Sleep", sleep_text),
    ]


SLEEP_STAGES = (("deep", "deep"), ("light", "light"), ("rem", "REM"), ("awake", "awake"))


def _table(rows: list[list[str]], widths: list[float], styles: dict[str, ParagraphStyle], header: bool = True) -> Table:
    cells = [[Paragraph(_markup(cell), styles["cell"]) for cell in row] for row in rows]
    table = Table(cells, colWidths=widths, hAlign="LEFT")
    commands = [
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("LINEBELOW", (0, 0), (-1, -1), 0.4, RULE),
        ("TOPPADDING", (0, 0), (-1, -1), 3),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 3),
    ]
    if header:
        commands += [("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#eef2f6"))]
    table.setStyle(TableStyle(commands))
    return table


def _chart(points, color, title: str, *, guide: float | None = None, ceiling: float | None = None) -> Drawing:
    """One measure through the day (15-minute means) on a 0-24 h axis, with an optional dashed guide line."""
    drawing = Drawing(170 * mm, 42 * mm)
    plot = LinePlot()
    plot.x, plot.y, plot.width, plot.height = 12 * mm, 7 * mm, 152 * mm, 29 * mm
    data = [[(p.minute / 60 + 0.125, p.mean) for p in points]]
    values = [p.mean for p in points] + ([guide] if guide is not None else [])
    low, high = (min(values) // 10) * 10 - 5, (max(values) // 10) * 10 + 10
    if ceiling is not None:
        high = min(high, ceiling)
    if guide is not None:
        data.append([(0, guide), (24, guide)])
        plot.lines[1].strokeColor = colors.HexColor("#b3261e")
        plot.lines[1].strokeDashArray = (3, 3)
        plot.lines[1].strokeWidth = 0.6
    plot.data = data
    plot.lines[0].strokeColor = color
    plot.lines[0].strokeWidth = 1.2
    plot.xValueAxis.valueMin, plot.xValueAxis.valueMax, plot.xValueAxis.valueStep = 0, 24, 3
    plot.xValueAxis.labelTextFormat = "%d:00"
    plot.yValueAxis.valueMin, plot.yValueAxis.valueMax = low, high
    plot.yValueAxis.visibleGrid = True
    plot.yValueAxis.gridStrokeColor = RULE
    plot.yValueAxis.gridStrokeWidth = 0.4
    for axis in (plot.xValueAxis, plot.yValueAxis):
        axis.labels.fontSize = 7.5
        axis.labels.fillColor = MUTED
    drawing.add(plot)
    drawing.add(String(12 * mm, 38.5 * mm, title, fontSize=8.5, fillColor=color))
    return drawing


def _charts(report: DailyReport) -> list[Drawing]:
    series = day_series(report)
    charts = []
    if series["heart_rate"]:
        charts.append(_chart(series["heart_rate"], HEART, "Heart rate through the day (bpm, 15-minute means)"))
    if series["spo2"]:
        charts.append(
            _chart(
                series["spo2"],
                OXYGEN,
                "SpO2 through the day (%, 15-minute means; dashed: 92 %)",
                guide=SPO2_LOW,
                ceiling=100,
            )
        )
    return charts


def report_pdf(report: DailyReport) -> bytes:
    """The report as PDF bytes."""
    facts = report.metrics
    styles = _styles()
    day = dt.date.fromisoformat(facts["date"])
    name = report.user.get_full_name() or report.user.get_username()
    covered = "the whole day" if facts["complete"] else f"00:00 to {facts['covers_until'][11:16]}"
    story: list[Any] = [
        Paragraph("Daily health report", styles["title"]),
        Paragraph(
            _markup(f"{name} · {day:%A} {day.day} {day:%B %Y} ({facts['time_zone']}) · covers {covered}"),
            styles["meta"],
        ),
        Spacer(1, 3 * mm),
        Paragraph(_markup(report.narrative), styles["body"]),
    ]
    if report.narrative_source == DailyReport.NarrativeSource.MODEL:
        story.append(
            Paragraph("Summary written by the on-device model and checked against the figures.", styles["note"])
        )
    story += [
        Paragraph("Vitals", styles["h2"]),
        _table([list(r) for r in vitals_rows(facts)], [45 * mm, 125 * mm], styles, header=False),
    ]
    for chart in _charts(report):
        story += [Spacer(1, 2 * mm), chart]
    story.append(Paragraph("Alerts", styles["h2"]))
    if facts["alerts"]:
        rows = [["Time", "Alert", "Outcome"]] + [
            [a["time"], f"{a['kind_label']}{': ' + a['condition'] if a['condition'] else ''}", a["outcome"]]
            for a in facts["alerts"]
        ]
        story.append(_table(rows, [20 * mm, 70 * mm, 80 * mm], styles))
    else:
        story.append(Paragraph("No alerts on this day.", styles["body"]))
    doses = facts["doses"]
    story.append(Paragraph("Medicines", styles["h2"]))
    if doses["by_medication"]:
        rows = [["Medicine", "Taken", "Missed", "Skipped", "Open", "Adherence"]] + [
            [
                f"{m['name']} {m['strength']}".strip(),
                str(m["taken"]),
                str(m["missed"]),
                str(m["skipped"]),
                str(m["pending"]),
                f"{m['percent']} %" if m["percent"] is not None else "nothing settled",
            ]
            for m in doses["by_medication"]
        ]
        story.append(_table(rows, [60 * mm, 20 * mm, 20 * mm, 20 * mm, 20 * mm, 30 * mm], styles))
    else:
        story.append(Paragraph("No doses were due on this day.", styles["body"]))
    if facts["appointments"]:
        story.append(Paragraph("Appointments", styles["h2"]))
        rows = [["When", "With", "State"]] + [
            [a["when"], f"{a['specialist']} ({a['specialization']}), {a['hospital']}", a["state_label"]]
            for a in facts["appointments"]
        ]
        story.append(_table(rows, [70 * mm, 70 * mm, 30 * mm], styles))
    if facts["symptoms"]:
        story.append(Paragraph("Symptoms the patient reported", styles["h2"]))
        rows = [["Time", "In their words"]] + [[s["time"], s["text"]] for s in facts["symptoms"]]
        story.append(_table(rows, [20 * mm, 150 * mm], styles))
    if facts.get("conversations"):
        story.append(Paragraph("Conversations with the assistant", styles["h2"]))
        story += [Paragraph(_markup(f"• {point}"), styles["body"]) for point in facts["conversations"]]
    story += [
        Spacer(1, 5 * mm),
        Paragraph(
            _markup(
                "Figures computed on the patient's own device from the recorded watch readings, doses and "
                "alerts; a measure without readings is marked as such. This report is not a diagnosis."
            ),
            styles["note"],
        ),
    ]
    buffer = io.BytesIO()
    document = SimpleDocTemplate(
        buffer,
        pagesize=A4,
        leftMargin=20 * mm,
        rightMargin=20 * mm,
        topMargin=18 * mm,
        bottomMargin=18 * mm,
        title=f"Daily health report {facts['date']}",
        author="Agent Lite",
    )
    document.build(story)
    return buffer.getvalue()
