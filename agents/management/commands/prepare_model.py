"""`manage.py prepare_model`: convert the default model once so that processes load it fast."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from agents.llm import model_store


class Command(BaseCommand):
    help = "Convert the default SmolLM2 GGUF to a Hugging Face directory under MODEL_CACHE_DIR (once)."

    def handle(self, *args, **options) -> None:
        if settings.AGENT_BACKEND != "transformers" or settings.AGENT_BASE_MODEL.strip():
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
