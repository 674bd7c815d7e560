"""``manage.py train_recogniser``: fine-tune the OCR recogniser on rendered handwriting.

    bash scripts/fetch_handwriting_fonts.sh var/fonts/handwriting     # Google handwriting fonts (npm)
    python manage.py train_recogniser --fonts var/fonts/handwriting   # -> health/scheduler/weights/recogniser.pth

The evaluation corpus's handwriting fonts are never trained on; score the result with
``OCR_RECOGNISER_WEIGHTS=<out> python manage.py eval_prescriptions`` (every set: printed reading
must not get worse). See agentlab/training/recogniser.py and health/scheduler/weights/README.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from agentlab.prescriptions import handwriting
from agentlab.training import recogniser


class Command(BaseCommand):
    help = "Fine-tune EasyOCR's english_g2 recogniser on handwriting-like renderings (fonts not in the corpus)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--fonts", default="var/fonts/handwriting", help="Folder of .ttf/.otf/.woff fonts.")
        parser.add_argument("--steps", type=int, default=800)
        parser.add_argument("--batch", type=int, default=24)
        parser.add_argument("--lr", type=float, default=2e-4)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--check", type=int, default=200, help="Rendered crops in the check set.")
        parser.add_argument("--max-minutes", type=float, default=60.0)
        parser.add_argument("--threads", type=int, default=2)
        parser.add_argument("--out", default=settings.OCR_RECOGNISER_WEIGHTS or "var/recogniser.pth")

    def handle(self, *args, fonts: str, steps: int, batch: int, lr: float, seed: int, check: int, **options) -> None:
        import torch

        torch.set_num_threads(options["threads"])
        found = handwriting.training_fonts(fonts)
        if len(found) < 2:
            raise CommandError(
                f"found {len(found)} training fonts; run scripts/fetch_handwriting_fonts.sh {fonts} "
                "or install fonts-bwht fonts-dancingscript fonts-ecolier-court fonts-cabinsketch"
            )
        self.stdout.write(f"{len(found)} training fonts; held out: the corpus's handwriting fonts")
        model, result = recogniser.train(
            found,
            steps,
            batch=batch,
            lr=lr,
            seed=seed,
            check_size=check,
            max_minutes=options["max_minutes"],
            log=self.stdout.write,
        )
        out = Path(options["out"])
        recogniser.save(model, result, out, "python manage.py " + " ".join(sys.argv[1:]))
        self.stdout.write(f"wrote {out} and {out.with_suffix('.json')}")
