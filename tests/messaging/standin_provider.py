"""A stand-in SMS provider at Twilio's HTTP boundary, served over real HTTP.

Processes the test starts (a Celery worker) reach it through ``TWILIO_API_URL``
and talk to it with the official Twilio client, as they would to Twilio: it
answers ``POST .../Messages.json`` (create) and ``GET .../Messages.json``
(list, for the in-doubt lookup) with Twilio's JSON. It records when each
message was accepted, and can hold one POST unanswered (the test kills the
sender meanwhile): a held message is never accepted.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import json
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit


@dataclass
class Accepted:
    sid: str
    to: str
    sender: str
    body: str
    at: float  # time.monotonic() when accepted
    created: dt.datetime


@dataclass
class StandInProvider:
    account_sid: str
    accepted: list[Accepted] = field(default_factory=list)
    # A POST for which this returns True is held (once): ``held`` is set and the
    # request waits for ``release``, then is answered 503 and not accepted.
    hold_when: Callable[[dict[str, str]], bool] | None = None
    held: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    @property
    def path(self) -> str:
        return f"/2010-04-01/Accounts/{self.account_sid}/Messages.json"

    def start(self) -> StandInProvider:
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # quiet
                pass

            def _answer(self, status: int, payload: dict) -> None:
                body = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the sender died waiting (that is the point of holding it)

            def do_POST(self) -> None:
                if urlsplit(self.path).path != provider.path:
                    return self._answer(404, {"code": 20404, "message": "not found", "status": 404})
                length = int(self.headers.get("Content-Length", "0"))
                form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
                with provider.lock:
                    hold = provider.hold_when is not None and not provider.held.is_set() and provider.hold_when(form)
                    if hold:
                        provider.held.set()
                if hold:
                    provider.release.wait(120)
                    return self._answer(503, {"code": 20503, "message": "unavailable", "status": 503})
                return self._answer(201, provider._accept(form))

            def do_GET(self) -> None:
                query = {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}
                with provider.lock:
                    found = [
                        provider._resource(m)
                        for m in reversed(provider.accepted)
                        if m.to == query.get("To") and m.sender == query.get("From")
                    ]
                page_size = int(query.get("PageSize", "50"))
                return self._answer(200, {"messages": found, "next_page_uri": None, "page": 0, "page_size": page_size})

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, name="standin-sms", daemon=True).start()
        return self

    def stop(self) -> None:
        self.release.set()
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()

    def _accept(self, form: dict[str, str]) -> dict:
        message = Accepted(
            sid="SM" + uuid.uuid4().hex,
            to=form["To"],
            sender=form["From"],
            body=form["Body"],
            at=time.monotonic(),
            created=dt.datetime.now(dt.UTC),
        )
        with self.lock:
            self.accepted.append(message)
        return self._resource(message)

    def _resource(self, message: Accepted) -> dict:
        stamp = email.utils.format_datetime(message.created, usegmt=True)
        return {
            "sid": message.sid,
            "account_sid": self.account_sid,
            "to": message.to,
            "from": message.sender,
            "body": message.body,
            "status": "queued",
            "direction": "outbound-api",
            "date_created": stamp,
            "date_updated": stamp,
            "date_sent": None,
            "error_code": None,
            "error_message": None,
            "num_segments": "1",
        }
