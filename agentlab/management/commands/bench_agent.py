"""`manage.py bench_agent`: how fast the configured model runs the agent on this machine."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import BaseCommand, CommandError

from agentlab import bench
from agents.llm import get_backend, model_store, resolved_choice
from agents.prompts import build_messages
from agents.tools import REGISTRY


class Command(BaseCommand):
    help = "Time the planner and caller of the configured model over the Appendix D trajectories."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--convert",
            action="store_true",
            help="Also time a fresh conversion of the default GGUF (into a temporary directory; ~30-60 s).",
        )
        parser.add_argument("--timeout", type=float, default=300.0, help="Per-call timeout in seconds.")

    def handle(self, *args, convert: bool = False, timeout: float = 300.0, **options) -> None:
        rows: list[list[str]] = [["what", "time", "tokens", "speed"]]
        choice = resolved_choice()
        if choice == "transformers":
            rows += self._load_rows(convert)
        started = time.perf_counter()
        try:
            backend = get_backend()
        except ImproperlyConfigured as exc:
            raise CommandError(str(exc)) from exc
        load_seconds = time.perf_counter() - started
        if choice == "transformers":
            loaded_from = model_store.base_model_dir()
        elif choice == "llamacpp":
            loaded_from = model_store.gguf_path()
        else:
            loaded_from = settings.AGENT_OPENAI_BASE_URL
        rows.append([f"load ({choice}, this process)", f"{load_seconds:.1f} s", "", ""])

        # The first call pays one-time costs (kernels, the constrained caller's vocabulary scan).
        warm_states = bench.load_states("d2_appointment_rejected.json")[:4]
        started = time.perf_counter()
        bench.replay(backend, "warm-up", warm_states, timeout)
        rows.append(["warm-up (first calls in the process)", f"{time.perf_counter() - started:.1f} s", "", ""])

        if getattr(backend, "decode_stats", None) is not None:
            backend.decode_stats.reset()  # count the measured trajectories only
        trajectories = [
            bench.replay(backend, name, bench.load_states(filename), timeout)
            for name, filename in bench.TRAJECTORIES.items()
        ]
        rows += bench.role_rows(trajectories)
        stats = getattr(backend, "decode_stats", None)
        if stats is not None and stats.forward_passes:
            generated = sum(step.completion_tokens for trajectory in trajectories for step in trajectory.steps)
            rows.append(
                [
                    "draft-and-verify decoding (both trajectories)",
                    f"{stats.forward_passes} forward passes",
                    f"{stats.accepted} of {stats.drafted} guessed tokens kept",
                    f"{generated / stats.forward_passes:.2f} tok/pass",
                ]
            )
        for trajectory in trajectories:
            generated = sum(step.completion_tokens for step in trajectory.steps)
            rows.append(
                [
                    f"whole {trajectory.name} trajectory ({len(trajectory.steps)} model calls)",
                    f"{trajectory.seconds:.1f} s model time",
                    f"{generated} generated",
                    "",
                ]
            )
        rows.append(["llama.cpp (llama-cpp-python), same GGUF", "", "", self._llama_cpp(backend, trajectories)])

        threads = os.environ.get("AGENT_TORCH_THREADS", "1")
        load = os.getloadavg()[0]
        self.stdout.write(
            f"Model: {loaded_from} | backend {choice} | few-shot prompt {backend.few_shot} | "
            f"torch threads {threads} | load average {load:.1f} on {os.cpu_count()} CPUs"
        )
        self.stdout.write(bench.table(rows))

    def _load_rows(self, convert: bool) -> list[list[str]]:
        if settings.AGENT_BASE_MODEL.strip():
            return []
        rows = []
        recorded = None
        try:
            recorded = model_store.conversion_seconds(model_store.base_model_dir())
        except model_store.ModelNotAvailable:
            pass
        if recorded is not None:
            rows.append(["first conversion GGUF -> HF (recorded by prepare_model)", f"{recorded:.1f} s", "", ""])
        if convert:
            with tempfile.TemporaryDirectory(prefix="bench-convert-") as scratch:
                prepared = model_store.prepare(Path(scratch))
            rows.append(["first conversion GGUF -> HF (measured now)", f"{prepared.seconds:.1f} s", "", ""])
        return rows

    def _llama_cpp(self, backend, trajectories: list[bench.TrajectoryTiming]) -> str:
        """llama.cpp's tokens/s on the first planner prompt of D.1, beside ours, when it is installed."""
        try:
            gguf = model_store.gguf_path()
        except model_store.ModelNotAvailable:
            return "no GGUF"
        states = bench.load_states(bench.TRAJECTORIES["appointment (D.1)"])[:2]
        messages = build_messages("planner", states, REGISTRY.offered(), few_shot=backend.few_shot)
        if hasattr(backend, "tokenizer"):
            chat = [{"role": message.role, "content": message.content} for message in messages]
            prompt = backend.tokenizer.apply_chat_template(chat, tokenize=False, add_generation_prompt=True)
        else:
            prompt = "\n".join(message.content for message in messages)
        threads = int(os.environ.get("AGENT_TORCH_THREADS", "1"))
        result = bench.llama_cpp_tokens_per_second(gguf, prompt, 64, threads)
        if result is None:
            return "not installed"
        steps = [step for trajectory in trajectories for step in trajectory.steps]
        ours = sum(step.completion_tokens for step in steps) / sum(step.seconds for step in steps)
        return f"{result:.1f} tok/s (ours {ours:.1f} tok/s = {ours / result:.2f}x)"
