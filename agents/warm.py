"""What a chat's first turn needs, loaded as a worker process starts.

A cold worker process loads the planner's and caller's model, the sentence encoder (triage, the
first step's classifier and memory share it), the symptom lexicon and memory's symptom vectors the
first time a chat needs them: after `make run` said "ready", the first complaint took 17.4 s and the
first records question 9.4 s, against 9.8 s and 0.1 s once loaded (docs/benchmarks.md). Each of the
worker's processes pays this once, so the first patients to ask after a start waited for it.

``warm_up`` runs in a thread of each worker process (backend/celery.py): the process reports ready
at once and takes SOS work while it loads, and a chat that arrives meanwhile waits on the same
loads (each is built once per process, under its own lock).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable

from django.core.exceptions import ImproperlyConfigured

log = logging.getLogger(__name__)


def _packages() -> None:
    # The libraries first, before any model: a task that imports spaCy while this thread is half way
    # through importing it fails ("cannot import name 'Language' from partially initialized module"),
    # and tasks wait for this step (``wait_for_imports``).
    import sentence_transformers  # noqa: F401  (imports torch)
    import spacy  # noqa: F401


def _model() -> None:
    from agents.llm import get_backend

    get_backend()


def _triage() -> None:
    from agents import triage

    triage.suggest("I have had a headache and a fever since yesterday")  # encoder, lexicon, index


def _first_step() -> None:
    from agents import first_step

    first_step.route("what's my next appointment?")


def _memory() -> None:
    from agents.memory.index import concept_terms

    concept_terms()


PARTS: tuple[tuple[str, Callable[[], None]], ...] = (
    ("libraries", _packages),
    ("model", _model),
    ("triage", _triage),
    ("first step", _first_step),
    ("memory", _memory),
)


# Set once the warm-up thread has imported the libraries (or when there is no such thread).
_IMPORTED = threading.Event()
_IMPORTED.set()


def warm_up(parts: tuple[tuple[str, Callable[[], None]], ...] | None = None) -> dict[str, float]:
    """Load every part (``PARTS`` by default); seconds each part took. A part that cannot load is
    logged and skipped: the chat that needs it reports the same error to the patient (a model that
    is not available, say)."""
    took: dict[str, float] = {}
    for name, load in PARTS if parts is None else parts:
        started = time.perf_counter()
        try:
            load()
        except ImproperlyConfigured as exc:
            log.info("Not warmed up: %s (%s)", name, exc)
            continue
        except Exception:  # a background convenience: whatever failed fails again where it is used
            log.warning("Warming up %s failed", name, exc_info=True)
            continue
        finally:
            if name == "libraries":
                _IMPORTED.set()
        took[name] = round(time.perf_counter() - started, 1)
    log.info(
        "Ready for chats: loaded %s in %.1f s",
        ", ".join(f"{name} ({seconds} s)" for name, seconds in took.items()) or "nothing",
        sum(took.values()),
    )
    return took


def wait_for_imports(timeout: float) -> bool:
    """Block until the warm-up thread has imported the libraries (about 5 s after a worker starts;
    at once when no warm-up runs). Python imports a package with circular imports (spaCy) safely in
    one thread at a time only: a chat resumed as the worker starts failed with an ImportError."""
    return _IMPORTED.wait(timeout)


def in_background() -> threading.Thread:
    """Start ``warm_up`` in a daemon thread, at a lower CPU priority than the tasks the process runs."""
    _IMPORTED.clear()

    def run() -> None:
        try:  # Linux: a thread's nice value is its own, so only the loading yields the CPU
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
        except (AttributeError, OSError):
            pass
        try:
            warm_up()
        finally:
            _IMPORTED.set()  # whatever happened: a task never waits on a warm-up that stopped

    thread = threading.Thread(target=run, name="chat-warm-up", daemon=True)
    thread.start()
    return thread
