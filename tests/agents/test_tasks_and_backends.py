"""Celery tasks are thin wrappers over the services, and get_backend() picks the
configured model backend (or says clearly why it cannot)."""

from __future__ import annotations

import re

import pytest
from django.core.exceptions import ImproperlyConfigured

from agents.llm import get_backend, resolved_choice
from agents.llm.base import BackendError
from agents.llm.scripted import ScriptedBackend
from agents.tasks import hard_sos_end_task, hard_sos_start_task, soft_sos_task
from health.models import Alert, Dispatch, OutboundMessage
from tests.agents.helpers import call, end, plan
from tests.factories import AlertFactory


def test_the_scripted_backend_is_returned_when_configured(scripted_backend):
    installed = scripted_backend(planner=[end()])

    assert get_backend() is installed


@pytest.mark.parametrize("choice", ["transformers", "openai"])
def test_a_backend_that_is_not_prepared_or_configured_is_refused_clearly(settings, choice):
    settings.AGENT_BACKEND = choice

    with pytest.raises(ImproperlyConfigured, match=f"AGENT_BACKEND='{choice}' is not available"):
        get_backend()


def _llama_cpp_installed(monkeypatch, installed: bool) -> None:
    import importlib.util

    real = importlib.util.find_spec

    def find_spec(name, *args, **kwargs):
        if name == "llama_cpp":
            return real("json") if installed else None  # any spec stands for "importable"
        return real(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)


@pytest.mark.parametrize(
    ("llama_cpp", "base_model", "expected"),
    [
        (True, "", "llamacpp"),
        (False, "", "transformers"),
        (True, "/models/qwen2.5-coder-7b", "transformers"),  # llama.cpp runs the default GGUF only
    ],
)
def test_auto_picks_llama_cpp_only_when_it_is_installed_and_the_base_is_the_default(
    settings, monkeypatch, llama_cpp, base_model, expected
):
    settings.AGENT_BACKEND = "auto"
    settings.AGENT_BASE_MODEL = base_model
    _llama_cpp_installed(monkeypatch, llama_cpp)

    assert resolved_choice() == expected


def test_auto_names_what_it_picked_when_that_is_not_available(settings, monkeypatch):
    settings.AGENT_BACKEND = "auto"
    settings.AGENT_BASE_MODEL = ""
    _llama_cpp_installed(monkeypatch, False)

    with pytest.raises(ImproperlyConfigured, match=re.escape("AGENT_BACKEND='auto' (transformers) is not available")):
        get_backend()


def test_an_exhausted_script_fails_loudly():
    with pytest.raises(BackendError, match="no more outputs"):
        ScriptedBackend().generate("planner", [])


def test_the_hard_sos_tasks_run_start_and_end_with_the_configured_model(
    scripted_backend, alice, alice_contacts, ambulances
):
    ref = str(alice.pk)
    alert = AlertFactory(user=alice, kind=Alert.Kind.HARD, condition="")
    scripted_backend(
        planner=[plan("SOS.", "Notify the user.")],
        caller=[call("notify_user", user_id=ref, message="Hard SOS triggered.")],
    )

    start_id = hard_sos_start_task.delay(alert.pk).get()
    end_id = hard_sos_end_task.delay(alert.pk).get()

    assert start_id != end_id
    assert Dispatch.objects.get(alert=alert).ambulance.code == "AMB-NEAR"
    assert OutboundMessage.objects.filter(alert=alert, recipient_kind="ambulance").count() == 2
    alert.refresh_from_db()
    assert alert.conversation_id == end_id
    assert list(alert.events.filter(kind="agent_conversation").values_list("data__conversation_kind", flat=True)) == [
        "hard_sos_start",
        "hard_sos_end",
    ]


def test_a_soft_sos_task_for_a_hard_alert_is_refused(alice):
    alert = AlertFactory(user=alice, kind=Alert.Kind.HARD)

    with pytest.raises(ValueError, match="needs a soft alert"):
        soft_sos_task.delay(alert.pk).get()
