"""A prescription photo to a reminder that goes off, in a real browser: upload -> EasyOCR reads it ->
the patient checks and confirms the medicines -> when the (test) clock reaches a dose's time the
reminder appears live, and the patient records it taken."""

from __future__ import annotations

import datetime as dt
import threading

from django.utils import timezone
from PIL import Image, ImageDraw, ImageFont
from playwright.sync_api import expect

from health.models import DoseEvent, Medication, Prescription
from health.models.appointments import patient_zone
from health.scheduler.dispatch import dispatch_due_doses
from tests.browser.conftest import screenshot, sign_in
from tests.clock import settle_clear_of_midnight

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
LINES = [
    "Dr. A. Rao, MBBS MD",
    "Rx",
    "Tab. Metformin 500 mg 1-0-1 after food x 30 days",
    "Tab. Amlodipine 5 mg OD x 30 days",
]
READING_TIMEOUT_MS = 90_000  # the first reading builds EasyOCR's reader in this process


def prescription_photo(path) -> str:
    font = ImageFont.truetype(FONT, 26)
    image = Image.new("RGB", (900, 60 + 50 * len(LINES)), "white")
    draw = ImageDraw.Draw(image)
    for index, line in enumerate(LINES):
        draw.text((40, 30 + 50 * index), line, fill="black", font=font)
    image.save(path, format="JPEG", quality=90)
    return str(path)


def test_upload_review_confirm_and_the_reminder_goes_off(page, alice, tmp_path):
    settle_clear_of_midnight(alice)  # the dose set "a few minutes from now" is today's, as the page lists
    sign_in(page, "alice")
    page.get_by_role("link", name="Medications").click()
    expect(page.get_by_role("heading", name="Your medicines")).to_be_visible()
    page.get_by_label("Photo or PDF").set_input_files(prescription_photo(tmp_path / "rx.jpg"))
    # Without a worker the reading runs in the upload's request: the next page waits for it.
    page.get_by_role("button", name="Upload and read").click(timeout=READING_TIMEOUT_MS)

    # Read on this device; the review page lists what was found beside the photo and the text.
    expect(page.get_by_role("button", name="Confirm and schedule reminders")).to_be_visible(timeout=READING_TIMEOUT_MS)
    expect(page.locator(".ocr-text")).to_contain_text("Metformin")
    names = page.locator("input[name$='-name']")
    expect(names).to_have_count(2)
    expect(names.nth(0)).to_have_value("metformin")
    expect(page.locator("input[name='form-0-strength']")).to_have_value("500 mg")
    expect(page.locator("input[name='form-0-times']")).to_have_value("08:00, 20:00")
    expect(page.locator("input[name='form-1-name']")).to_have_value("amlodipine")
    assert not Medication.objects.exists()  # nothing is scheduled before the patient confirms
    screenshot(page, "prescription-review")

    # The patient moves metformin's morning dose to a few minutes from now, and confirms.
    zone = patient_zone(alice)
    soon = (timezone.now().astimezone(zone) + dt.timedelta(minutes=3)).replace(second=0, microsecond=0)
    page.locator("input[name='form-0-times']").fill(f"{soon:%H:%M}")
    page.get_by_role("button", name="Confirm and schedule reminders").click()
    expect(page.locator(".msg-success")).to_contain_text("Scheduled: metformin 500 mg, amlodipine 5 mg")
    assert Prescription.objects.get().parse_status == "confirmed"
    expect(page.locator("#times-" + str(Medication.objects.get(name="metformin").pk))).to_have_value(f"{soon:%H:%M}")
    expect(page.locator("body")).to_have_attribute("data-live-events", "on")

    # The test clock reaches the dose's time: beat's tick fires it, and the open page hears of it.
    # (In a thread of its own, as in a worker: this thread runs Playwright's event loop.)
    tick = threading.Thread(
        target=dispatch_due_doses, kwargs={"now": soon.astimezone(dt.UTC) + dt.timedelta(seconds=30)}
    )
    tick.start()
    tick.join(30)
    dose = DoseEvent.objects.get(reminder__medication__name="metformin")
    assert dose.state == "sent"
    expect(page.locator("#bell-count")).to_have_text("1")
    row = page.locator(f"[data-dose='{dose.pk}']")
    expect(row).to_contain_text("Reminder sent")
    screenshot(page, "medications-reminder-due")

    row.get_by_role("button", name="Taken").click()
    expect(page.locator(".msg-success")).to_contain_text("Recorded: metformin 500 mg taken.")
    dose.refresh_from_db()
    assert dose.state == "taken"
    expect(page.locator(f"[data-dose='{dose.pk}']")).to_contain_text("Taken")
    screenshot(page, "medications-taken")
