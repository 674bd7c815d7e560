"""A backend for any OpenAI-compatible chat-completions server (vLLM, llama.cpp server, Ollama).

For users who serve a bigger model on a GPU box. The planner and the caller map
to model names on that server: with vLLM serving LoRA adapters
(``--lora-modules planner=... caller=...``) they are the adapter names; with a
single plain model both names are the same. Plain HTTP (urllib), no SDK.

Settings: AGENT_OPENAI_BASE_URL (e.g. ``http://gpu-box:8000/v1``),
AGENT_OPENAI_API_KEY (optional), and from the environment
AGENT_OPENAI_PLANNER_MODEL, AGENT_OPENAI_CALLER_MODEL and AGENT_OPENAI_FEW_SHOT
(default true: a served base model needs the worked example; set false when
the names are trained adapters).
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from agents.llm.base import (
    ROLES,
    BackendError,
    BackendTimeout,
    Generation,
    Message,
    ModelBackend,
    Role,
    Tools,
    cut_at_stop,
)

MAX_TOKENS: dict[Role, int] = {"planner": 128, "caller": 256}
# The OpenAI API accepts at most four stop sequences.
MAX_STOP = 4


class OpenAIBackend(ModelBackend):
    name = "openai"

    def __init__(
        self,
        base_url: str,
        models: Mapping[Role, str],
        *,
        api_key: str = "",
        few_shot: bool = True,
        max_tokens: Mapping[Role, int] = MAX_TOKENS,
    ) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.models = dict(models)
        self.api_key = api_key
        self.few_shot = few_shot
        self.max_tokens = dict(max_tokens)

    def generate(
        self,
        role: Role,
        messages: Sequence[Message],
        stop: Sequence[str] = (),
        *,
        timeout: float | None = None,
        tools: Tools | None = None,
    ) -> Generation:
        """The server's greedy completion for ``role``; BackendTimeout/BackendError say what went wrong."""
        started = time.perf_counter()
        body: dict[str, Any] = {
            "model": self.models[role],
            "messages": [{"role": message.role, "content": message.content} for message in messages],
            "temperature": 0,
            "max_tokens": self.max_tokens[role],
        }
        if stop:
            body["stop"] = list(stop)[:MAX_STOP]
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(self.url, data=json.dumps(body).encode(), headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                payload = json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as exc:
            detail = exc.read().decode("utf-8", "replace")[:300]
            raise BackendError(
                f"the model server answered HTTP {exc.code} for {self.models[role]!r}: {detail}"
            ) from exc
        except TimeoutError as exc:
            raise BackendTimeout(f"the model server did not answer within {timeout:g} s") from exc
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, TimeoutError):
                raise BackendTimeout(f"the model server did not answer within {timeout:g} s") from exc
            raise BackendError(f"cannot reach the model server at {self.url}: {exc.reason}") from exc
        except json.JSONDecodeError as exc:
            raise BackendError("the model server's answer is not JSON") from exc
        try:
            text = payload["choices"][0]["message"]["content"] or ""
        except (KeyError, IndexError, TypeError) as exc:
            raise BackendError("the model server's answer has no choices[0].message.content") from exc
        usage = payload.get("usage") or {}
        return Generation(
            # Servers drop the stop sequence; cutting again is harmless and
            # covers those that ignore `stop`.
            text=cut_at_stop(text, stop),
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
            latency_ms=int((time.perf_counter() - started) * 1000),
        )


def configured() -> OpenAIBackend:
    """The backend the settings describe; ImproperlyConfigured names what is missing."""
    base_url = settings.AGENT_OPENAI_BASE_URL.strip()
    if not base_url:
        raise ImproperlyConfigured("set AGENT_OPENAI_BASE_URL to the server's /v1 URL (e.g. http://gpu-box:8000/v1).")
    models: dict[Role, str] = {}
    for role in ROLES:
        variable = f"AGENT_OPENAI_{role.upper()}_MODEL"
        name = getattr(settings, variable, "").strip()
        if not name:
            raise ImproperlyConfigured(f"set {variable} to the served model (or adapter) name for the {role}.")
        models[role] = name
    return OpenAIBackend(
        base_url,
        models,
        api_key=settings.AGENT_OPENAI_API_KEY,
        few_shot=settings.AGENT_OPENAI_FEW_SHOT,
    )
