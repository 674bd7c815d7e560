"""A worker process loads the chat models as it starts (agents/warm.py, backend/celery.py)."""

from __future__ import annotations

import logging

from django.core.exceptions import ImproperlyConfigured

from agents import first_step, triage, warm
from agents.memory import index as memory_index
from backend import celery


def test_warm_up_loads_what_a_first_chat_needs(scripted_backend, settings):
    scripted_backend()
    settings.AGENT_FIRST_STEP_MODEL = True
    triage._load_encoder.cache_clear()
    first_step._model.cache_clear()
    memory_index.concept_terms.cache_clear()

    took = warm.warm_up()

    assert list(took) == ["libraries", "model", "triage", "first step", "memory"]
    assert triage._load_encoder.cache_info().currsize == 1
    assert first_step._model.cache_info().currsize == 1
    assert memory_index.concept_terms.cache_info().currsize == 1


def test_a_part_that_cannot_load_is_logged_and_the_rest_still_load(caplog):
    loaded = []

    def unavailable() -> None:
        raise ImproperlyConfigured("llama-cpp-python is not installed")

    def broken() -> None:
        raise RuntimeError("disk full")

    with caplog.at_level(logging.INFO, logger="agents.warm"):
        took = warm.warm_up((("model", unavailable), ("triage", broken), ("memory", lambda: loaded.append(1))))

    assert list(took) == ["memory"] and loaded == [1]
    assert "Not warmed up: model (llama-cpp-python is not installed)" in caplog.text
    assert "Warming up triage failed" in caplog.text and "disk full" in caplog.text


def test_a_starting_worker_process_warms_up_in_the_background(monkeypatch, settings):
    monkeypatch.delenv("OCR_WORKER", raising=False)
    loaded = []
    monkeypatch.setattr(warm, "PARTS", (("model", lambda: loaded.append("model")),))

    settings.AGENT_WARM_UP = False
    assert celery.warm_up() is None

    settings.AGENT_WARM_UP = True
    thread = celery.warm_up()
    thread.join(10)
    assert loaded == ["model"] and thread.name == "chat-warm-up"


def test_the_ocr_worker_builds_its_reader_not_the_chat_models(monkeypatch):
    from health.scheduler import ocr

    monkeypatch.setenv("OCR_WORKER", "1")
    built, chat = [], []
    monkeypatch.setattr(ocr, "get_reader", lambda: built.append("reader"))
    monkeypatch.setattr(warm, "PARTS", (("model", lambda: chat.append("model")),))

    celery.warm_up().join(10)

    assert built == ["reader"] and chat == []


def test_tasks_wait_for_the_warm_up_s_imports_but_an_sos_never_does(monkeypatch):
    """Two threads importing spaCy at once fail (a chat resumed as its worker started): a task waits
    until the warm-up thread has imported the libraries; an SOS task goes at once."""
    waited = []
    monkeypatch.setattr(warm, "wait_for_imports", lambda timeout: waited.append(timeout))

    import agents.tasks
    import health.tasks

    tasks = {
        task.name: task
        for module in (agents.tasks, health.tasks)
        for task in vars(module).values()
        if isinstance(getattr(task, "name", None), str) and hasattr(task, "delay")
    }
    assert celery._SOS_TASKS <= set(tasks)  # every exempt name is a real task
    for name in ("agents.run_conversation", "health.tasks.read_prescription", "health.tasks.write_daily_report"):
        celery.after_the_warm_up_imports(task=tasks[name])
    for name in celery._SOS_TASKS:
        celery.after_the_warm_up_imports(task=tasks[name])

    assert waited == [60, 60, 60]


def test_the_imports_are_marked_done_once_the_libraries_are_loaded(monkeypatch):
    seen = []
    monkeypatch.setattr(
        warm,
        "PARTS",
        (("libraries", lambda: None), ("model", lambda: seen.append(warm.wait_for_imports(0)))),
    )

    warm.in_background().join(10)

    assert seen == [True] and warm.wait_for_imports(0)
