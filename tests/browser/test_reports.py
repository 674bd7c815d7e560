"""The Reports pages in a real browser: the history with its trends, one day's report with its
charts, the PDF for a doctor, and today's report written on demand."""

from __future__ import annotations

import datetime as dt
import math
import random

import pypdfium2
from django.utils import timezone
from playwright.sync_api import expect

from health.models import Alert, DoseEvent, VitalReading
from health.models.appointments import patient_zone
from health.reports.generate import build
from tests.browser.conftest import SCREENSHOTS, screenshot, sign_in
from tests.factories import DeviceFactory, DoseEventFactory, MedicationFactory, ReminderFactory

DAYS = 9


def a_week_and_more_of_readings(alice) -> dt.date:
    """Readings every 5 minutes for the DAYS days before today (the watch was off on one of them),
    a soft SOS and three doses on the last; return that last day."""
    zone = patient_zone(alice)
    today = timezone.now().astimezone(zone).date()
    watch = DeviceFactory(user=alice)
    rng = random.Random(3)
    rows = []
    for back in range(DAYS, 0, -1):
        day = today - dt.timedelta(days=back)
        if back == 4:
            continue  # no readings at all that day: its report says so
        midnight = dt.datetime.combine(day, dt.time(), tzinfo=zone)
        for n in range(288):
            hour = n / 12
            asleep = hour < 7
            walking = 8 <= hour < 9 or 18 <= hour < 19
            rows.append(
                VitalReading(
                    user=alice,
                    device=watch,
                    measured_at=midnight + dt.timedelta(minutes=5 * n),
                    heart_rate=round((54 if asleep else 102 if walking else 70 + 6 * math.sin(hour)) + rng.gauss(0, 3)),
                    spo2=round((89.5 if back == 1 and 3 <= hour < 3.2 else 97) + rng.gauss(0, 0.5), 1),
                    steps=rng.randint(400, 600) if walking else 0,
                    systolic_bp=118 + rng.randint(-6, 10) if n % 36 == 0 else None,
                    diastolic_bp=76 + rng.randint(-5, 6) if n % 36 == 0 else None,
                    sleep_stage=("light", "deep", "rem")[n % 3] if asleep else "",
                    sleep_minutes=5 if asleep else None,
                )
            )
    VitalReading.objects.bulk_create(rows)
    last = today - dt.timedelta(days=1)
    with_time = dt.datetime.combine(last, dt.time(3, 5), tzinfo=zone)
    alert = Alert.objects.create(user=alice, kind=Alert.Kind.SOFT, condition="hypoxia")
    Alert.objects.filter(pk=alert.pk).update(created_at=with_time)
    alert.acknowledge()
    metformin = MedicationFactory(user=alice, name="Metformin", strength="500 mg", start_date=last)
    for hour, state in ((8, DoseEvent.State.TAKEN), (14, DoseEvent.State.TAKEN), (20, DoseEvent.State.MISSED)):
        DoseEventFactory(
            reminder=ReminderFactory(medication=metformin, time_of_day=dt.time(hour)),
            due_at=dt.datetime.combine(last, dt.time(hour), tzinfo=zone),
            due_on=last,
            state=state,
        )
    for back in range(DAYS, 0, -1):
        build(alice, today - dt.timedelta(days=back))
    return last


def test_the_history_a_days_report_its_pdf_and_todays_report(page, alice):
    alice.first_name, alice.last_name = "Alice", "Weber"
    alice.date_joined = timezone.now() - dt.timedelta(days=30)
    alice.save()
    last = a_week_and_more_of_readings(alice)

    sign_in(page, "alice")
    page.get_by_role("link", name="Reports").click()
    expect(page.get_by_role("heading", name="Your daily reports")).to_be_visible()
    rows = page.locator(".report-table tbody tr")
    expect(rows).to_have_count(DAYS)
    # The day the watch was off says so, with no invented zeros.
    off_day = rows.nth(3)
    expect(off_day.locator("td").nth(0)).to_have_text("no readings")
    expect(off_day.locator("td").nth(2)).to_have_text("no readings")
    expect(page.locator(".trend-grid svg.line-chart").first).to_be_visible()
    screenshot(page, "reports-list")

    page.get_by_role("link", name=f"{last:%a} {last.day} {last:%b %Y}").click()
    expect(page.get_by_role("heading", name=f"{last:%A} {last.day} {last:%B %Y}")).to_be_visible()
    expect(page.locator(".vitals-list")).to_contain_text("min below 92 %")
    expect(page.locator("#alerts-h + ul")).to_contain_text("Soft SOS: hypoxia — Acknowledged")
    expect(page.locator("#doses-h + p")).to_have_text("2 of 3 doses taken (67 %), 1 missed.")
    expect(page.locator("svg[aria-labelledby='day-heart-title'] polyline").first).to_be_visible()
    screenshot(page, "report-day")

    pdf_link = page.get_by_role("link", name="PDF for your doctor")
    response = page.request.get(pdf_link.get_attribute("href"))
    assert response.headers["content-type"] == "application/pdf"
    document = pypdfium2.PdfDocument(response.body())
    text = " ".join(document[0].get_textpage().get_text_range().split())
    assert "Daily health report" in text and "Alice Weber" in text and "Metformin 500 mg" in text
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    document[0].render(scale=1.4).to_pil().save(SCREENSHOTS / "report-pdf.png")

    page.get_by_role("link", name="All reports").click()
    page.get_by_role("button", name="Write today's report so far").click()
    today = last + dt.timedelta(days=1)
    expect(page.get_by_role("heading", name=f"{today:%A} {today.day} {today:%B %Y}")).to_be_visible()
    expect(page.get_by_text("No vitals were recorded on this day.")).to_be_visible()
    expect(page.get_by_text("Covers the day until")).to_be_visible()
