"""The web process SIGKILLed in the middle of a conversation and started again: the conversation
resumes where it was.

Real processes: the web server (daphne, as ``make run`` starts it), a Celery worker and Redis, and
the patient in Chromium. The patient says they took a dose; the assistant asks to confirm. The web
process is killed while the question waits, and a new one starts on the same port (as ``make
run``'s supervisor does). The open page says it lost the live feed, finds the new process by
itself, and the patient's "yes", typed in the same page, is recorded: the dose is taken, once.
"""

from __future__ import annotations

import datetime as dt
import subprocess
import time

import pytest
import requests
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.utils import timezone

from core.ports import free_port
from health.models import DoseEvent
from tests.browser.conftest import BROWSER_TIMEOUT_MS, CHROMIUM, screenshot
from tests.chaos.processes import ROOT, app_environment, kill_group, start_celery_worker, venv_command
from tests.clock import settle_clear_of_midnight
from tests.factories import DoseEventFactory, MedicationFactory, ReminderFactory
from tests.local_redis import redis_database
from tests.summary import summarise

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

PASSWORD = "correct horse battery"


@pytest.fixture
def redis_url(tmp_path):
    with redis_database(tmp_path, 12) as url:
        yield url


@pytest.fixture
def sent_dose(alice):
    # The web process hashes with the production hashers, not the tests' fast one.
    hasher = PBKDF2PasswordHasher()
    alice.password = hasher.encode(PASSWORD, hasher.salt())
    alice.save(update_fields=["password"])
    # A dose sent a moment ago is today's in the patient's zone only when today lasts the test's length.
    zone = settle_clear_of_midnight(alice)
    due = timezone.now() - dt.timedelta(seconds=5)
    reminder = ReminderFactory(medication=MedicationFactory(user=alice, name="Metformin"))
    return DoseEventFactory(
        reminder=reminder, due_at=due, due_on=due.astimezone(zone).date(), state="sent", sent_at=due
    )


def start_web(env: dict[str, str], port: int, log) -> subprocess.Popen:
    with log.open("ab") as out:
        web = subprocess.Popen(
            [venv_command("daphne"), "-b", "127.0.0.1", "-p", str(port), "backend.asgi:application"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    deadline = time.monotonic() + 60
    while True:
        try:
            if requests.get(f"http://127.0.0.1:{port}/login/", timeout=5).status_code == 200:
                return web
        except requests.ConnectionError:
            pass
        if time.monotonic() > deadline or web.poll() is not None:
            raise AssertionError("the web process did not start:\n" + log.read_text()[-3000:])
        time.sleep(0.3)


def test_a_conversation_resumes_after_the_web_process_is_killed_and_restarted(
    alice, sent_dose, redis_url, tmp_path, monkeypatch
):
    from playwright.sync_api import expect, sync_playwright

    env = app_environment(tmp_path, redis_url, AGENT_BACKEND="openai", AGENT_OPENAI_BASE_URL="")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    web_log, worker_log = tmp_path / "web.log", tmp_path / "worker.log"
    worker = start_celery_worker(env, worker_log, beat=False)
    webs = [start_web(env, port, web_log)]
    # Playwright's sync API runs an event loop in this thread; the test's own ORM calls are synchronous.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-background-networking"]
            )
            page = browser.new_context(base_url=base).new_page()
            page.set_default_timeout(BROWSER_TIMEOUT_MS)
            page.goto("/login/")
            page.fill("input[name=username]", "alice")
            page.fill("input[name=password]", PASSWORD)
            page.click("button[type=submit]")
            page.wait_for_url(lambda url: "/login/" not in url)

            page.goto("/chat/")
            page.fill("#message", "I've taken my metformin")
            page.click("#send")
            messages = page.locator("#messages")
            expect(messages).to_contain_text("Metformin", timeout=60_000)
            expect(messages).to_contain_text("Reply yes to mark it", timeout=60_000)
            assert DoseEvent.objects.get(pk=sent_dose.pk).state == "sent", "nothing changes before the yes"

            kill_group(webs[0])  # SIGKILL: no shutdown of any kind
            expect(page.locator("#live-status")).to_be_visible()  # the page says it lost the live feed
            webs.append(start_web(env, port, web_log))
            expect(page.locator("#live-status")).to_be_hidden(timeout=40_000)  # and finds it again

            # The same page, never reloaded, on the new process: the question is answerable.
            page.fill("#message", "yes")
            page.click("#send")
            expect(messages).to_contain_text("Recorded: your", timeout=60_000)
            # and the page settles on the recorded end: not thinking, the message sent, the chat done
            expect(page.locator("#thinking")).to_be_hidden(timeout=30_000)
            expect(page.locator("#message")).to_have_value("")
            expect(page.locator("#conversation-list")).to_contain_text("Done")
            screenshot(page, "chat-after-web-restart")
            browser.close()
    finally:
        for process in (*webs, worker):
            kill_group(process)

    dose = DoseEvent.objects.get(pk=sent_dose.pk)
    assert dose.state == "taken" and dose.acted_at is not None
    summarise(
        "chaos (web restart): 1 SIGKILL of the web process mid-conversation; the page said it was "
        "reconnecting, found the new process, and the answer to the pending question was recorded once"
    )
