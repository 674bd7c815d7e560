"""No HTTP request body larger than ``REQUEST_MAX_MB`` reaches Django.

Django caps form fields (``DATA_UPLOAD_MAX_MEMORY_SIZE``) but not uploaded files: its ASGI handler
reads a whole body, spooled to disk, before any view or middleware can look at it, so a 5 GB
upload would fill the disk of the device before the prescription view said "too large". This
ASGI wrapper (``backend/asgi.py``) answers 413 at once when the declared ``Content-Length`` is over
the limit, and cuts off a body sent without one as soon as it passes it. The limit sits a little
above ``PRESCRIPTION_MAX_MB``, so that a photo just over that limit still gets the Medications page's
own message. Written here: it is one check around one call, and no maintained package does it for
ASGI.
"""

from __future__ import annotations

import json

from django.conf import settings

MB = 1024 * 1024


def limit_bytes() -> int:
    return int(settings.REQUEST_MAX_MB * MB)


def _too_large_body(path: str) -> tuple[bytes, bytes]:
    megabytes = f"{settings.REQUEST_MAX_MB:g}"
    if path.startswith("/api/"):
        detail = f"The request is too large: at most {megabytes} MB is accepted."
        return b"application/json", json.dumps({"detail": detail}).encode()
    page = (
        "<!doctype html><html lang=en><meta charset=utf-8><title>Too large</title>"
        f"<p>This upload is too large: at most {megabytes} MB is accepted. Nothing was saved."
        "<p><a href=javascript:history.back()>Go back</a> and choose a smaller photo or file.</html>"
    )
    return b"text/html; charset=utf-8", page.encode()


async def _answer_413(scope, send) -> None:
    content_type, body = _too_large_body(scope.get("path", ""))
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [(b"content-type", content_type), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})


class BodyLimit:
    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = limit_bytes()
        headers = dict(scope.get("headers") or [])
        try:
            declared = int(headers.get(b"content-length", b"") or -1)
        except ValueError:
            declared = -1
        if declared > limit:
            await _answer_413(scope, send)
            return
        state = {"read": 0, "over": False, "started": False}

        async def counted_receive():
            message = await receive()
            if message["type"] == "http.request":
                state["read"] += len(message.get("body", b""))
                if state["read"] > limit:
                    # Django stops reading at a disconnect and answers nothing: the 413 is sent below.
                    state["over"] = True
                    return {"type": "http.disconnect"}
            return message

        async def watched_send(message):
            if message["type"] == "http.response.start":
                state["started"] = True
            await send(message)

        await self.app(scope, counted_receive, watched_send)
        if state["over"] and not state["started"]:
            await _answer_413(scope, send)
