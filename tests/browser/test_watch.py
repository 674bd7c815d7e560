"""The Watch page in a real browser: start the simulated watch, see the live
numbers and charts move, switch to hypoxia and see the soft SOS banner, stop.

The feed runs as in production, driven by the served app's event loop; only
``WATCH_SIMULATOR_SPEED`` makes its two minutes of falling SpO2 pass in seconds."""

from __future__ import annotations

import re
import time

from playwright.sync_api import expect

from health.models import Alert, VitalReading, WatchFeed
from tests.browser.conftest import screenshot, sign_in, wait_until


def readings_shown(page) -> int:
    return int(page.evaluate("Number(document.body.dataset.watchReadings || 0)"))


def test_the_watch_panel_shows_live_vitals_and_a_hypoxia_feed_raises_the_soft_sos_banner(
    page, alice, scripted_model, settings
):
    scripted_model()  # no model outputs: the soft SOS flow's guard completes it
    settings.WATCH_SIMULATOR_SPEED = 20
    sign_in(page, "alice")
    page.get_by_role("link", name="Watch").click()

    expect(page.get_by_role("heading", level=1)).to_have_text("Your watch")
    state = page.locator("#watch-state")
    expect(state).to_contain_text("Stopped.")
    expect(page.get_by_role("button", name="Normal day")).to_have_attribute("aria-pressed", "true")
    expect(page.get_by_role("button", name="Stop")).to_be_disabled()
    wait_until(page, "document.body.dataset.liveEvents === 'on'")

    page.get_by_role("button", name="Start").click()

    expect(state).to_contain_text("Running: Normal day.")
    expect(page.get_by_role("button", name="Stop")).to_be_focused()
    heart = page.locator("#v-heart")
    expect(heart).to_have_text(re.compile(r"^\d+$"))
    wait_until(page, "Number(document.body.dataset.watchReadings || 0) >= 3")
    expect(page.locator("#v-spo2")).to_have_text(re.compile(r"^\d+$"))
    expect(page.locator("#v-bp")).to_have_text(re.compile(r"^\d+/\d+$"))
    expect(page.locator("[data-metric=heart_rate] polyline")).to_have_count(1)
    shown = readings_shown(page)
    wait_until(page, f"Number(document.body.dataset.watchReadings || 0) > {shown}")
    expect(state).to_contain_text(re.compile(r"[1-9]\d* readings sent"))
    feed = WatchFeed.objects.get(user=alice)
    assert feed.device.name == "Simulated watch"
    assert VitalReading.objects.filter(device=feed.device).exists()
    screenshot(page, "watch-running")

    page.get_by_role("button", name="Hypoxia").click()

    expect(page.get_by_role("button", name="Hypoxia")).to_have_attribute("aria-pressed", "true")
    expect(page.get_by_role("button", name="Normal day")).to_have_attribute("aria-pressed", "false")
    expect(state).to_contain_text("Running: Hypoxia.")
    banner = page.get_by_role("region", name="Health alert")
    expect(banner).to_be_visible(timeout=30_000)
    expect(banner.get_by_role("heading")).to_have_text("Alert: low blood oxygen")
    alert = Alert.objects.get(user=alice, kind=Alert.Kind.SOFT)
    assert alert.condition == "hypoxia"
    assert float(page.locator("#v-spo2").inner_text()) < 92
    screenshot(page, "watch-hypoxia-soft-sos")

    page.get_by_role("button", name="Stop").click()

    expect(state).to_contain_text("Stopped.")
    expect(page.get_by_role("button", name="Start")).to_be_focused()
    count = VitalReading.objects.filter(device=feed.device).count()
    time.sleep(1.5)
    assert VitalReading.objects.filter(device=feed.device).count() == count
    assert WatchFeed.objects.get(user=alice).running is False


def test_the_watch_panel_fits_a_phone(page, alice, settings):
    settings.WATCH_SIMULATOR_SPEED = 20
    page.set_viewport_size({"width": 380, "height": 800})
    sign_in(page, "alice")
    page.goto("/watch/")
    wait_until(page, "document.body.dataset.liveEvents === 'on'")
    page.get_by_role("button", name="Exercise").click()
    page.get_by_role("button", name="Start").click()
    wait_until(page, "Number(document.body.dataset.watchReadings || 0) >= 5")

    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow == 0, f"the watch page scrolls sideways by {overflow} px on a phone"
    expect(page.locator("#v-steps")).to_have_text(re.compile(r"^\d+$"))
    screenshot(page, "phone-watch")
    page.get_by_role("button", name="Stop").click()
    expect(page.locator("#watch-state")).to_contain_text("Stopped.")
