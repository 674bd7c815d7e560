"""Twilio, faked at its HTTP boundary only.

``fake_twilio`` patches ``TwilioHttpClient.request`` (autospec, so a call with the
wrong signature fails) with a small model of Twilio's Messages API: POSTs are
answered from a script (accept, error, network failure, accept-then-die), the
list endpoint returns the messages accepted so far. Everything above the HTTP
layer, the official client included, runs for real.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import json
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from unittest import mock
from urllib.parse import urlsplit

import pytest
from django.test import override_settings
from django.utils import timezone
from twilio.http.http_client import TwilioHttpClient
from twilio.http.response import Response

from backend.celery import app as celery_app
from health.messaging.outbox import queue_sms
from health.models import OutboundMessage

ACCOUNT_SID = "AC" + "0" * 31 + "1"
AUTH_TOKEN = "test-auth-token"
FROM_NUMBER = "+15005550006"
TO_NUMBER = "+14155552671"
MESSAGES_URL = f"https://api.twilio.com/2010-04-01/Accounts/{ACCOUNT_SID}/Messages.json"


class WorkerDied(BaseException):
    """The process ended mid-task (SIGKILL, power loss). Deliberately not an
    Exception, so no ``except Exception`` in the code under test can catch it."""


# Script entry: Twilio accepts the POST, then the worker dies before the
# response reaches our code.
ACCEPT_THEN_DIE = "accept-then-die"


@dataclass
class HttpCall:
    method: str
    url: str
    params: dict | None
    data: dict | None
    auth: tuple[str, str] | None


@dataclass
class FakeTwilio:
    post_script: list[object] = field(default_factory=list)
    get_script: list[object] = field(default_factory=list)
    accepted: list[dict] = field(default_factory=list)
    calls: list[HttpCall] = field(default_factory=list)
    # Called as each POST arrives, before it is answered (to hold it there).
    on_post: Callable[[], None] | None = None

    def answer_posts(self, *answers: object) -> None:
        """Script the next POSTs: 201 (accept), an error status, ``(status,
        code)``, a ready Response, an exception to raise, or ACCEPT_THEN_DIE.
        Unscripted: 201."""
        self.post_script.extend(answers)

    def answer_gets(self, *answers: object) -> None:
        """Script the next list GETs: an error status or an exception.
        Unscripted: 200 with the accepted messages."""
        self.get_script.extend(answers)

    @property
    def posts(self) -> list[HttpCall]:
        return [c for c in self.calls if c.method == "POST"]

    @property
    def gets(self) -> list[HttpCall]:
        return [c for c in self.calls if c.method == "GET"]

    def __call__(
        self,
        http_client: TwilioHttpClient,
        method: str,
        url: str,
        params: dict | None = None,
        data: dict | None = None,
        headers: dict | None = None,
        auth: tuple[str, str] | None = None,
        timeout: float | None = None,
        allow_redirects: bool = False,
    ) -> Response:
        self.calls.append(HttpCall(method, url, params, data, auth))
        if urlsplit(url).path != urlsplit(MESSAGES_URL).path:
            return _error(404, 20404)
        if method == "POST":
            if self.on_post is not None:
                self.on_post()
            return self._create(data or {})
        if method == "GET":
            return self._list(params or {})
        return _error(405, None)

    def _create(self, data: dict) -> Response:
        answer = self.post_script.pop(0) if self.post_script else 201
        if isinstance(answer, BaseException):
            raise answer
        if isinstance(answer, Response):
            return answer
        if answer == ACCEPT_THEN_DIE:
            self._accept(data)
            raise WorkerDied
        if answer == 201:
            return Response(201, json.dumps(self._accept(data)))
        status, code = answer if isinstance(answer, tuple) else (answer, None)
        return _error(status, code)

    def _list(self, params: dict) -> Response:
        if self.get_script:
            answer = self.get_script.pop(0)
            if isinstance(answer, BaseException):
                raise answer
            return _error(answer, None)
        matching = [
            m for m in reversed(self.accepted) if m["to"] == params.get("To") and m["from"] == params.get("From")
        ]
        page = {"messages": matching, "next_page_uri": None, "page": 0, "page_size": int(params.get("PageSize", 50))}
        return Response(200, json.dumps(page))

    def _accept(self, data: dict) -> dict:
        now = email.utils.format_datetime(timezone.now().astimezone(dt.UTC), usegmt=True)
        resource = {
            "sid": "SM" + uuid.uuid4().hex,
            "account_sid": ACCOUNT_SID,
            "to": data["To"],
            "from": data["From"],
            "body": data["Body"],
            "status": "queued",
            "direction": "outbound-api",
            "date_created": now,
            "date_updated": now,
            "date_sent": None,
            "error_code": None,
            "error_message": None,
            "num_segments": "1",
        }
        self.accepted.append(resource)
        return resource


def _error(status: int, code: int | None) -> Response:
    body = {"code": code, "message": f"The 'To' number {TO_NUMBER} is not valid.", "status": status}
    return Response(status, json.dumps(body))


@pytest.fixture(autouse=True)
def eager_retries_run_inline() -> Iterator[None]:
    """Run a task's retries inline, as a worker would run them later.

    Tests run tasks eagerly; with ``task_eager_propagates`` Celery raises the
    ``Retry`` out of the eager call instead of running the retry. Without it,
    eager calls run each retry at once (countdowns are skipped). Exceptions
    that are not ``Exception`` (a dying worker) still propagate."""
    previous = celery_app.conf.task_eager_propagates
    celery_app.conf.task_eager_propagates = False
    yield
    celery_app.conf.task_eager_propagates = previous


@pytest.fixture
def twilio_configured() -> Iterator[None]:
    with override_settings(
        TWILIO_ACCOUNT_SID=ACCOUNT_SID, TWILIO_AUTH_TOKEN=AUTH_TOKEN, TWILIO_FROM_NUMBER=FROM_NUMBER
    ):
        yield


@pytest.fixture
def twilio_unconfigured() -> Iterator[None]:
    with override_settings(TWILIO_ACCOUNT_SID="", TWILIO_AUTH_TOKEN="", TWILIO_FROM_NUMBER=""):
        yield


@pytest.fixture
def fake_twilio(twilio_configured) -> Iterator[FakeTwilio]:
    fake = FakeTwilio()
    with mock.patch.object(TwilioHttpClient, "request", autospec=True, side_effect=fake) as patched:
        yield fake
    # Every call went through the real client's signature.
    assert patched.call_count == len(fake.calls)


@pytest.fixture
def http_spy() -> Iterator[mock.MagicMock]:
    """Records Twilio HTTP calls for tests that expect none; a call also raises,
    so nothing can appear to succeed through it."""
    with mock.patch.object(
        TwilioHttpClient, "request", autospec=True, side_effect=AssertionError("no HTTP call expected")
    ) as patched:
        yield patched


@pytest.fixture
def queue_message(alice, django_capture_on_commit_callbacks) -> Callable[..., OutboundMessage]:
    """Queue an SMS to alice's emergency contact through ``queue_sms`` and run
    what its commit triggers (delivery, inline under CELERY_TASK_ALWAYS_EAGER)."""

    def queue(
        body: str = "Alice pressed SOS. Location: https://maps.example/?q=52.52,13.40", key: str = ""
    ) -> OutboundMessage:
        with django_capture_on_commit_callbacks(execute=True):
            message, _ = queue_sms(
                user=alice,
                recipient=TO_NUMBER,
                recipient_name="Dana",
                recipient_kind=OutboundMessage.RecipientKind.EMERGENCY_CONTACT,
                body=body,
                idempotency_key=key or f"test-{uuid.uuid4()}",
            )
        message.refresh_from_db()
        return message

    return queue
