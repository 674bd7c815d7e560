"""A soft SOS as the patient meets it in a real browser: the watch's readings raise it, one
banner in the notification's own words closes on Acknowledge and stays closed, one that is
resolved disappears by itself, and Chat shows the alert's conversation as the system's, not
as something the patient said."""

from __future__ import annotations

import asyncio
import datetime as dt
import threading
from pathlib import Path

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from agents.models import Conversation
from agents.services import run_conversation
from health.models import Alert, Notification
from tests.agents.helpers import call, plan
from tests.browser.conftest import screenshot, sign_in, wait_until
from tests.factories import AgentStepFactory, ConversationFactory

SHOTS = Path("/tmp/shots")
START = timezone.now().replace(microsecond=0) - dt.timedelta(minutes=30)


@pytest.fixture
def watch(browser, live_url, alice_device):
    """Alice's watch: posts readings to the served app with its device token (no session)."""
    context = browser.new_context(base_url=live_url)
    yield {"request": context.request, "token": alice_device[1]}
    context.close()


def send_readings(watch, metric: str, values: list[float], *, start: int, every: int = 10) -> None:
    items = [
        {"measured_at": (START + dt.timedelta(seconds=start + i * every)).isoformat(), metric: value}
        for i, value in enumerate(values)
    ]
    response = watch["request"].post("/api/vitals/", data=items, headers={"Authorization": f"Device {watch['token']}"})
    assert response.status in (200, 201), response.text()


def on_server(function, *args, **kwargs):
    """Call ``function`` as the app's own workers would: in a worker thread of the served app's
    event loop, so what it pushes reaches the open pages (the test's thread runs Playwright's loop)."""
    from asgiref.sync import sync_to_async
    from twisted.internet import reactor

    done = threading.Event()
    outcome = {}

    def finished(future):
        outcome["future"] = future
        done.set()

    def start():
        asyncio.ensure_future(sync_to_async(function, thread_sensitive=False)(*args, **kwargs)).add_done_callback(
            finished
        )

    reactor.callFromThread(start)
    assert done.wait(30), f"{function.__name__} did not finish"
    return outcome["future"].result()


def low_oxygen(watch) -> None:
    send_readings(watch, "heart_rate", [72] * 3, start=0, every=1)
    send_readings(watch, "spo2", [86] * 8, start=5)


def test_the_banner_closes_on_acknowledge_and_stays_closed(page, alice, watch, scripted_model):
    scripted_model()  # no model outputs: the soft SOS flow's guard completes it
    sign_in(page, "alice")
    wait_until(page, "document.body.dataset.liveEvents === 'on'")

    low_oxygen(watch)

    banner = page.get_by_role("region", name="Health alert")
    expect(banner).to_be_visible()
    expect(banner.get_by_role("heading")).to_have_text("Alert: low blood oxygen")
    expect(banner).to_contain_text("SpO₂: 86 % · Heart rate: 72 bpm")
    expect(banner).not_to_contain_text("mmHg")
    # Home's cards, rendered before the alert, are read again: never "No open alerts" beside a live one.
    cards = page.locator("#home-cards")
    expect(cards).not_to_contain_text("No open alerts.")
    expect(cards).to_contain_text("Alert: low blood oxygen")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "soft_sos_before.png"))
    screenshot(page, "soft-sos-before-acknowledge")
    # One notification for the event, in the banner's words.
    [notification] = Notification.objects.filter(user=alice)
    assert notification.title == "Alert: low blood oxygen"

    banner.get_by_role("button", name="Acknowledge").click()

    expect(banner).to_have_count(0)
    expect(page.get_by_role("status").filter(has_text="Acknowledged: low blood oxygen.")).to_be_visible()
    page.screenshot(path=str(SHOTS / "soft_sos_after.png"))
    screenshot(page, "soft-sos-after-acknowledge")
    alert = Alert.objects.get(user=alice, kind=Alert.Kind.SOFT)
    assert alert.state == Alert.State.ACKNOWLEDGED
    # Not on the next page either, nor after a reload; Home still lists it while it lasts.
    page.get_by_role("link", name="Chat").click()
    wait_until(page, "document.body.dataset.liveEvents === 'on'")
    expect(banner).to_have_count(0)
    page.get_by_role("link", name="Home").click()
    expect(page.locator(".alert-line")).to_contain_text("Acknowledged")
    page.reload()
    expect(page.locator(".alert-line")).to_be_visible()
    expect(banner).to_have_count(0)
    screenshot(page, "soft-sos-acknowledged-home")


def test_a_banner_disappears_when_the_vitals_recover(page, alice, watch, scripted_model):
    scripted_model()
    sign_in(page, "alice")
    wait_until(page, "document.body.dataset.liveEvents === 'on'")
    low_oxygen(watch)
    banner = page.get_by_role("region", name="Health alert")
    expect(banner).to_be_visible()

    send_readings(watch, "spo2", [97] * 3, start=200)

    expect(banner).to_have_count(0)
    assert Alert.objects.get(user=alice, kind=Alert.Kind.SOFT).state == Alert.State.RESOLVED


def test_chat_shows_an_alerts_conversation_as_the_systems_not_the_patients(page, alice, watch, scripted_model):
    scripted_model()
    low_oxygen(watch)
    sign_in(page, "alice")
    page.get_by_role("link", name="Chat").click()

    item = page.locator(".conversation-item")
    expect(item).to_have_count(1)
    expect(item.locator(".conversation-title")).to_have_text("Alert: low blood oxygen")
    expect(item.locator(".conversation-meta")).to_contain_text("Vitals alert · Done")
    item.click()

    messages = page.get_by_role("log", name="Messages")
    expect(messages.locator(".bubble-system")).to_have_text("Started by the system: Alert: low blood oxygen")
    expect(messages.locator(".bubble-user")).to_have_count(0)
    expect(messages).not_to_contain_text("Abnormal Vitals: {")
    expect(messages.locator(".kind-notice")).to_contain_text("SpO₂: 86 %")
    screenshot(page, "chat-soft-sos-conversation")


def test_a_conversation_waiting_for_the_patients_answer_is_listed_as_such(page, alice, scripted_model):
    # A chat the worker has picked up: its request recorded, the run under way.
    conversation = ConversationFactory(user=alice, title="Book me a doctor", status=Conversation.Status.RUNNING)
    AgentStepFactory(
        conversation=conversation, index=0, role="system", payload={"user_details": {"user_id": str(alice.pk)}}
    )
    AgentStepFactory(conversation=conversation, index=1, role="user", payload="Book me a doctor")
    sign_in(page, "alice")
    page.goto(f"/chat/?c={conversation.pk}")
    wait_until(page, "document.body.dataset.liveEvents === 'on'")
    meta = page.locator(".conversation-meta")
    expect(meta).to_contain_text("Working…")

    # The worker's run asks the patient a question and waits.
    backend = scripted_model(
        planner=[plan("Which doctor?", "Ask the user.")],
        caller=[call("get_input_from_user", user_id=str(alice.pk), questions="Which kind of doctor?")],
    )
    assert on_server(run_conversation, conversation.pk, backend=backend) == Conversation.Status.WAITING_INPUT

    expect(meta).to_contain_text("Waiting for your answer")
    expect(page.get_by_role("log", name="Messages")).to_contain_text("Which kind of doctor?")
