"""`manage.py prepare_model`: convert the default model and build the triage index once, so that
processes load them fast."""

from __future__ import annotations

import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from agents import triage
from agents.llm import model_store, resolved_choice


class Command(BaseCommand):
    help = (
        "Convert the default SmolLM2 GGUF to a Hugging Face directory under MODEL_CACHE_DIR, write the llama.cpp"
        " models of the adapters (llama.cpp backend) and build the triage index (each once)."
    )

    def handle(self, *args, **options) -> None:
        self._prepare_model()
        started = time.perf_counter()
        if triage.prepare():
            self.stdout.write(f"Built the triage index in {time.perf_counter() - started:.1f} s.")
        else:
            self.stdout.write("The triage index is ready.")

    def _prepare_model(self) -> None:
        choice = resolved_choice()
        if choice not in ("transformers", "llamacpp") or settings.AGENT_BASE_MODEL.strip():
            self.stdout.write("Nothing to prepare: the configured model is not the default one.")
            return
        try:
            prepared = model_store.prepare()
        except model_store.ModelNotAvailable as exc:
            raise CommandError(str(exc)) from exc
        if prepared.converted:
            self.stdout.write(f"Converted the default model into {prepared.path} in {prepared.seconds:.1f} s.")
        else:
            self.stdout.write(f"The default model is ready in {prepared.path}.")
        if choice == "llamacpp":  # the tokenizer comes from the converted model, the weights from GGUFs
            from agents.llm import llamacpp_backend

            started = time.perf_counter()
            files = llamacpp_backend.prepare()
            self.stdout.write(f"{len(files)} llama.cpp model file(s) ready ({time.perf_counter() - started:.1f} s).")
