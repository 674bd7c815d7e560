"""The notification centre in a real browser: the bell's unread count follows
new notifications live (over the websocket) and mark-read / mark-all-read."""

from __future__ import annotations

from playwright.sync_api import expect

from health.models import Notification
from tests.agents.helpers import call, end, plan
from tests.browser.conftest import screenshot, sign_in
from tests.factories import NotificationFactory


def test_the_unread_count_updates_live_and_falls_as_notifications_are_read(page, alice, scripted_model):
    NotificationFactory(user=alice, title="Your daily report is ready", level="info")
    NotificationFactory(user=alice, title="Heart rate was high this morning", level="warning")
    sign_in(page, "alice")
    page.get_by_role("link", name="Notifications").click()
    bell = page.locator("#bell-count")
    expect(bell).to_have_text("2")
    expect(page.locator(".notification.unread")).to_have_count(2)

    # A second tab runs the assistant, which notifies the patient: the first
    # tab hears of it over its websocket, without a reload.
    scripted_model(
        planner=[plan("Say hello.", "Notify the user."), end()],
        caller=[call("notify_user", user_id=str(alice.pk), message="Remember to drink a glass of water.")],
    )
    expect(page.locator("body")).to_have_attribute("data-live-events", "on")
    other_tab = page.context.new_page()
    other_tab.goto("/chat/")
    other_tab.get_by_label("Your message").fill("Say hello.")
    other_tab.get_by_role("button", name="Send").click()
    expect(other_tab.locator(".kind-notice")).to_have_text("Assistant: Remember to drink a glass of water.")
    other_tab.close()

    expect(bell).to_have_text("3")
    expect(page.locator("#bell")).to_have_attribute("aria-label", "Notifications, 3 unread")
    expect(page.locator(".notification").first).to_contain_text("Remember to drink a glass of water.")
    screenshot(page, "notifications-live")

    page.get_by_role("button", name="Mark “Heart rate was high this morning” as read").click()
    expect(bell).to_have_text("2")
    assert Notification.objects.get(title="Heart rate was high this morning").read_at is not None

    page.get_by_role("button", name="Mark all as read").click()
    expect(bell).to_be_hidden()
    expect(page.locator(".notification.unread")).to_have_count(0)
    assert not Notification.objects.filter(user=alice, read_at__isnull=True).exists()
    screenshot(page, "notifications-read")
