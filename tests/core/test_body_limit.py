"""No request body over REQUEST_MAX_MB reaches Django (core/body_limit.py): a declared one is answered
413 at once, an undeclared one as soon as it passes the limit; nothing is stored."""

from __future__ import annotations

import asyncio
import json

import pytest

from core.body_limit import MB, BodyLimit


def _echo_app(seen: dict):
    """Reads the whole body as Django's handler does (stopping at a disconnect), then answers 200."""

    async def app(scope, receive, send):
        body = b""
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                seen["aborted"] = True
                return
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        seen["body"] = len(body)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    return app


def _run(path: str, chunks: list[bytes], headers: list[tuple[bytes, bytes]]) -> tuple[dict, list[dict]]:
    seen: dict = {}
    sent: list[dict] = []
    messages = [
        {"type": "http.request", "body": chunk, "more_body": i < len(chunks) - 1} for i, chunk in enumerate(chunks)
    ]

    async def receive():
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "path": path, "method": "POST", "headers": headers}
    asyncio.run(BodyLimit(_echo_app(seen))(scope, receive, send))
    return seen, sent


@pytest.fixture(autouse=True)
def one_megabyte(settings):
    settings.REQUEST_MAX_MB = 1


def test_a_declared_body_over_the_limit_is_refused_before_it_is_read():
    seen, sent = _run("/api/prescriptions/", [b""], [(b"content-length", str(5 * 1024 * MB).encode())])

    assert seen == {}  # Django never saw it
    assert sent[0]["status"] == 413
    assert json.loads(sent[1]["body"]) == {"detail": "The request is too large: at most 1 MB is accepted."}


def test_a_body_sent_without_a_length_is_cut_off_once_it_passes_the_limit():
    chunk = b"x" * (256 * 1024)
    seen, sent = _run("/medications/upload/", [chunk] * 12, [])

    assert seen == {"aborted": True} and "body" not in seen
    assert sent[0]["status"] == 413
    assert b"This upload is too large: at most 1 MB is accepted. Nothing was saved." in sent[1]["body"]


def test_a_body_within_the_limit_goes_through():
    seen, sent = _run("/api/vitals/", [b"x" * 1000, b"y" * 1000], [(b"content-length", b"2000")])

    assert seen == {"body": 2000}
    assert sent[0]["status"] == 200


def test_the_web_process_answers_413_through_its_own_stack(settings):
    """backend.asgi's application, as daphne runs it: the wrapper is in place."""
    from channels.testing import HttpCommunicator

    from backend.asgi import application

    async def post():
        communicator = HttpCommunicator(
            application, "POST", "/api/vitals/", body=b"[]", headers=[(b"content-length", str(2 * MB).encode())]
        )
        return await communicator.get_response()

    response = asyncio.run(post())
    assert response["status"] == 413
