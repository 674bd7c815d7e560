"""A real browser against the real ASGI app: daphne serves HTTP and websockets
from a thread of the test process, so tests share its database and can
install a scripted model with ``agents.llm.scripted.install``.

Daphne runs in a thread rather than in channels' forked ChannelsLiveServerTestCase
process because the scripted backend and the in-memory channel layer are
per-process: a forked server would not see a script installed by the test.
Twisted's reactor cannot be restarted, so the server lives for the session.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
from playwright.sync_api import expect

from core.ports import free_port

SCREENSHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
# How long an action or an expectation waits. A passing test never waits for it; on a shared 2-core
# machine under load the first render after "Send" once took longer than Playwright's default 5 s.
BROWSER_TIMEOUT_MS = 15_000
expect.set_options(timeout=BROWSER_TIMEOUT_MS)


# HTTP requests the served app is still answering. A test's database is emptied when it ends; a
# request a page sent as it closed must finish first (on PostgreSQL a multi-table SELECT and the
# flush's TRUNCATE otherwise deadlock).
_in_flight = 0
_in_flight_lock = threading.Lock()


def _counting(app):
    async def counted(scope, receive, send):
        global _in_flight
        if scope["type"] != "http":
            return await app(scope, receive, send)
        with _in_flight_lock:
            _in_flight += 1
        try:
            return await app(scope, receive, send)
        finally:
            with _in_flight_lock:
                _in_flight -= 1

    return counted


def wait_until_the_server_is_idle(timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while _in_flight and time.monotonic() < deadline:
        time.sleep(0.05)


@pytest.fixture(scope="session")
def live_url() -> Iterator[str]:
    """The base URL of the app served by daphne in a background thread."""
    from daphne.endpoints import build_endpoint_description_strings
    from daphne.server import Server
    from twisted.internet import reactor

    from backend.asgi import application

    port = free_port()
    ready = threading.Event()
    server = Server(
        application=_counting(ASGIStaticFilesHandler(application)),
        endpoints=build_endpoint_description_strings(host="127.0.0.1", port=port),
        signal_handlers=False,
        ready_callable=ready.set,
    )
    thread = threading.Thread(target=server.run, name="daphne", daemon=True)
    thread.start()
    assert ready.wait(10), "daphne did not start"
    yield f"http://127.0.0.1:{port}"
    reactor.callFromThread(reactor.stop)
    thread.join(5)


@pytest.fixture(scope="module")
def browser(django_db_setup) -> Iterator:
    """Chromium for one test module.

    Playwright's sync API marks an asyncio loop as running in this thread for
    as long as it is started. Django then refuses ORM calls here, and asgiref
    refuses async_to_sync, so it must not outlive the browser tests: it is
    started after the test database exists and stopped at the module's end,
    and only meanwhile are the test's own (synchronous) ORM calls allowed.
    """
    from playwright.sync_api import sync_playwright

    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-background-networking"]
            )
            yield chromium
            chromium.close()
    finally:
        del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]


@pytest.fixture
def page(browser, live_url, transactional_db) -> Iterator:
    context = browser.new_context(base_url=live_url, viewport={"width": 1280, "height": 900})
    context.set_default_timeout(BROWSER_TIMEOUT_MS)
    page = context.new_page()
    yield page
    context.close()
    wait_until_the_server_is_idle()


def screenshot(page, name: str) -> Path:
    """Save a full-page screenshot under artifacts/screenshots/ (gitignored) for a human to look at."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


@pytest.fixture
def scripted_model(settings):
    """Install a scripted planner/caller for runs started by the served app (same process)."""
    from agents.llm import scripted

    settings.AGENT_BACKEND = "scripted"

    def install(planner=(), caller=()):
        backend = scripted.ScriptedBackend(planner=planner, caller=caller)
        scripted.install(backend)
        return backend

    yield install
    scripted.install(None)


def wait_until(page, expression: str, timeout: float = BROWSER_TIMEOUT_MS / 1000) -> None:
    """Wait until a JavaScript expression is true in the page.

    Not ``page.wait_for_function``: once its first check fails it polls by evaluating the expression
    as a string inside the page, which the app's Content-Security-Policy (no eval) rightly refuses.
    ``page.evaluate`` runs through the devtools protocol, which the policy does not govern."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"still false after {timeout:.0f} s: {expression}")
        page.wait_for_timeout(50)


def sign_in(page, username: str, password: str = "correct horse battery") -> None:
    """Sign in through the login form, as a patient would."""
    page.goto("/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/")


@pytest.fixture(autouse=True)
def background_sos_runs_finish(transactional_db) -> Iterator[None]:
    """Without a worker, a hard SOS runs in a countdown timer thread of the served app. Let it
    finish before the test database is emptied: PostgreSQL's TRUNCATE and that thread's last
    writes otherwise deadlock."""
    yield
    from health.sos import cancel_countdown_timers

    cancel_countdown_timers()  # those still counting down: the test is over, nobody is waiting for them
    for thread in threading.enumerate():
        if thread.name.startswith("sos-countdown-"):
            thread.join(30)
