"""The speed benchmark behind ``manage.py bench_agent``.

It replays the planner and caller prompts of the seed paper's Appendix D
trajectories (tests/agents/data/) through the configured backend, step by step
in order, exactly as the runtime would build them: so the prefix cache sees the
same reuse as in a real run, and no database is touched.
"""

from __future__ import annotations

import importlib.util
import json
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.llm.base import Generation, ModelBackend, Role
from agents.prompts import build_messages
from agents.runtime import STOP
from agents.tools import REGISTRY

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "agents" / "data"
TRAJECTORIES = {"appointment (D.1)": "d1_appointment_generic.json", "hard SOS start (D.5)": "d5_hard_sos_start.json"}


@dataclass
class StepTiming:
    role: Role
    seconds: float
    prompt_tokens: int
    completion_tokens: int


@dataclass
class TrajectoryTiming:
    name: str
    steps: list[StepTiming] = field(default_factory=list)

    @property
    def seconds(self) -> float:
        return sum(step.seconds for step in self.steps)


def load_states(filename: str) -> list[dict[str, Any]]:
    data = json.loads((FIXTURES / filename).read_text(encoding="utf-8"))
    return data["interaction_trajectory"] if isinstance(data, dict) else data


def replay(backend: ModelBackend, name: str, states: Sequence[dict[str, Any]], timeout: float) -> TrajectoryTiming:
    """Ask the backend for every planner and caller state of ``states``, given the states before it."""
    timing = TrajectoryTiming(name)
    for index, state in enumerate(states):
        role = state["from"]
        if role not in ("planner", "caller"):
            continue
        messages = build_messages(role, list(states[:index]), REGISTRY.offered(), few_shot=backend.few_shot)
        started = time.perf_counter()
        generation: Generation = backend.generate(role, messages, STOP[role], timeout=timeout)
        seconds = time.perf_counter() - started
        timing.steps.append(StepTiming(role, seconds, generation.prompt_tokens, generation.completion_tokens))
    return timing


def percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def role_rows(trajectories: Sequence[TrajectoryTiming]) -> list[list[str]]:
    rows = []
    for role in ("planner", "caller"):
        steps = [step for trajectory in trajectories for step in trajectory.steps if step.role == role]
        if not steps:
            continue
        seconds = [step.seconds for step in steps]
        generated = sum(step.completion_tokens for step in steps)
        rows.append(
            [
                f"{role} step ({len(steps)} steps)",
                f"p50 {statistics.median(seconds):.2f} s, p95 {percentile(seconds, 0.95):.2f} s",
                f"prompt {statistics.mean(step.prompt_tokens for step in steps):.0f} tok/step, "
                f"generated {generated / len(steps):.1f} tok/step",
                f"{generated / sum(seconds):.1f} generated tok/s",
            ]
        )
    return rows


def llama_cpp_tokens_per_second(gguf: Path, prompt: str, max_tokens: int, threads: int) -> float | None:
    """llama.cpp's generated tokens/s (prompt included in the time, as ours) on ``prompt``; None if not installed."""
    if importlib.util.find_spec("llama_cpp") is None:
        return None
    # llama-cpp-python is optional (make run installs it): imported only where it is installed.
    import llama_cpp
    import llama_cpp.llama_cpp as api  # what llama_cpp.Llama calls

    from agents.llm.llamacpp_backend import EXTRA_BUFFERS

    defaults = api.llama_model_default_params

    def same_buffers():  # the backend's weight buffers, so the two run the same kernels
        params = defaults()
        params.use_extra_bufts = EXTRA_BUFFERS
        return params

    api.llama_model_default_params = same_buffers
    try:
        llm = llama_cpp.Llama(model_path=str(gguf), n_threads=threads, n_ctx=4096, verbose=False)
    finally:
        api.llama_model_default_params = defaults
    started = time.perf_counter()
    output = llm(prompt, max_tokens=max_tokens, temperature=0.0)
    return output["usage"]["completion_tokens"] / (time.perf_counter() - started)


def table(rows: Sequence[Sequence[str]]) -> str:
    """A Markdown table (docs/benchmarks.md quotes it as printed)."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["| " + " | ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)) + " |" for row in rows]
    lines.insert(1, "|" + "|".join("-" * (width + 2) for width in widths) + "|")
    return "\n".join(lines)
