"""The openai backend against a real local HTTP server that speaks chat completions."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.core.exceptions import ImproperlyConfigured

from agents.llm import get_backend
from agents.llm.base import BackendError, BackendTimeout, Message
from agents.llm.openai_backend import OpenAIBackend

MESSAGES = [Message("system", "You are the planner."), Message("user", "user: hello\nplanner:")]


class ChatServer:
    """Answers POST /v1/chat/completions with ``reply``; remembers every request."""

    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.reply: dict = {}
        self.status = 200
        self.delay = 0.0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                time.sleep(server.delay)
                payload = json.dumps(server.reply).encode()
                self.send_response(server.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()


@pytest.fixture
def server():
    chat = ChatServer()
    chat.reply = {
        "choices": [{"message": {"role": "assistant", "content": "<reason>hi</reason><action><END></action>"}}],
        "usage": {"prompt_tokens": 21, "completion_tokens": 9},
    }
    yield chat
    chat.httpd.shutdown()
    chat.httpd.server_close()


def backend_for(server: ChatServer, **options) -> OpenAIBackend:
    return OpenAIBackend(server.url, {"planner": "smol-planner", "caller": "smol-caller"}, **options)


def test_each_role_asks_for_its_own_model_greedily(server):
    backend = backend_for(server, api_key="k-123")

    generation = backend.generate("planner", MESSAGES, stop=("</action>",), timeout=5)
    backend.generate("caller", MESSAGES, timeout=5)

    planner, caller = server.requests
    assert planner["path"] == "/v1/chat/completions"
    assert planner["headers"]["Authorization"] == "Bearer k-123"
    assert planner["body"]["model"] == "smol-planner" and caller["body"]["model"] == "smol-caller"
    assert planner["body"]["temperature"] == 0
    assert planner["body"]["stop"] == ["</action>"] and "stop" not in caller["body"]
    assert planner["body"]["messages"] == [
        {"role": "system", "content": "You are the planner."},
        {"role": "user", "content": "user: hello\nplanner:"},
    ]
    assert (generation.text, generation.prompt_tokens, generation.completion_tokens) == (
        "<reason>hi</reason><action><END>",
        21,
        9,
    )


def test_no_api_key_sends_no_authorization_header(server):
    backend_for(server).generate("planner", MESSAGES, timeout=5)

    assert "Authorization" not in server.requests[0]["headers"]


def test_an_http_error_is_a_backend_error_naming_the_status(server):
    server.status = 404
    server.reply = {"error": {"message": "model 'smol-planner' not found"}}

    with pytest.raises(BackendError, match=r"HTTP 404 .*not found"):
        backend_for(server).generate("planner", MESSAGES, timeout=5)


def test_an_answer_without_choices_is_a_backend_error(server):
    server.reply = {"object": "chat.completion"}

    with pytest.raises(BackendError, match=r"no choices\[0\]"):
        backend_for(server).generate("planner", MESSAGES, timeout=5)


def test_a_slow_server_times_out(server):
    server.delay = 1.0

    with pytest.raises(BackendTimeout, match=r"within 0\.2 s"):
        backend_for(server).generate("planner", MESSAGES, timeout=0.2)


def test_an_unreachable_server_is_a_backend_error():
    backend = OpenAIBackend("http://127.0.0.1:9/v1", {"planner": "a", "caller": "b"})

    with pytest.raises(BackendError, match="cannot reach the model server"):
        backend.generate("planner", MESSAGES, timeout=5)


def test_get_backend_reads_the_server_and_model_names_from_settings(settings, server):
    settings.AGENT_BACKEND = "openai"
    settings.AGENT_OPENAI_BASE_URL = server.url
    settings.AGENT_OPENAI_PLANNER_MODEL = "planner-lora"
    settings.AGENT_OPENAI_CALLER_MODEL = "caller-lora"
    settings.AGENT_OPENAI_FEW_SHOT = False

    backend = get_backend()
    backend.generate("caller", MESSAGES, timeout=5)

    assert server.requests[0]["body"]["model"] == "caller-lora"
    assert backend.few_shot is False


def test_get_backend_says_which_openai_setting_is_missing(settings):
    settings.AGENT_BACKEND = "openai"
    settings.AGENT_OPENAI_BASE_URL = "http://127.0.0.1:9/v1"
    settings.AGENT_OPENAI_PLANNER_MODEL = ""

    with pytest.raises(ImproperlyConfigured, match="set AGENT_OPENAI_PLANNER_MODEL"):
        get_backend()
