"""``manage.py eval_prescriptions``: prescription reading scored on a generated corpus.

    python manage.py eval_prescriptions                                  # 30 a set: printed, photo, handwriting
    python manage.py eval_prescriptions --per-set 20 --seed 1 --json var/eval/prescriptions.json
    python manage.py eval_prescriptions --sets text --per-set 200        # the extractor alone, on perfect text
    python manage.py eval_prescriptions --save-corpus var/rx_corpus      # images + truth.json, no reading

Prints, per set, the OCR character error rate, precision/recall/F1 per field and overall, seconds per
image with the reader warm, and whether each target is met. See agentlab.prescriptions.evaluate.
"""

from __future__ import annotations

import sys

from django.core.management.base import BaseCommand, CommandError

from agentlab.prescriptions import evaluate
from agentlab.prescriptions.render import FontMissing


class Command(BaseCommand):
    help = "Generate a prescription corpus (printed, photo, handwriting) and score prescription reading on it."
    # Tests may pass a reader: call_command(..., read=fake) (a function: PIL image -> .text, .medications).
    stealth_options = ("read",)

    def add_arguments(self, parser) -> None:
        parser.add_argument("--per-set", type=int, default=30, help="Prescriptions per set (default 30).")
        parser.add_argument("--seed", type=int, default=0, help="Corpus seed (default 0).")
        parser.add_argument(
            "--sets",
            default=",".join(evaluate.DEFAULT_SETS),
            help="Comma-separated sets: printed, photo, handwriting, and text (the printed set's text given "
            "straight to the extractor, as if OCR were perfect).",
        )
        parser.add_argument("--out", default=None, help="Keep the corpus (images + truth.json) in this folder.")
        parser.add_argument("--save-corpus", default=None, help="Only write the corpus to this folder; read nothing.")
        parser.add_argument("--json", dest="json_out", default=None, help="Write the full report (every sample) here.")
        parser.add_argument("--errors", type=int, default=0, help="Print up to N field errors of each kind per set.")

    def handle(self, *args, per_set: int, seed: int, sets: str, **options) -> None:
        if per_set < 1:
            raise CommandError("--per-set must be at least 1.")
        names = [s.strip() for s in sets.split(",") if s.strip()]
        try:
            samples = evaluate.build_corpus(names, per_set, seed)
        except (ValueError, FontMissing) as exc:
            raise CommandError(str(exc)) from exc
        if options.get("save_corpus"):
            path = evaluate.save_corpus(samples, options["save_corpus"])
            self.stdout.write(f"Wrote {len(samples)} prescriptions and {path}.")
            return
        if options.get("out"):
            evaluate.save_corpus(samples, options["out"])
        read = options.get("read")
        if read is None and any(s.rendered is not None for s in samples):
            try:
                read = evaluate.default_reader()
            except ImportError as exc:
                raise CommandError(f"The prescription reader is not available: {exc}") from exc
        done = {"n": 0}

        def progress(sample, result) -> None:
            done["n"] += 1
            sys.stderr.write(f"\r{done['n']}/{len(samples)} {sample.id} {result['seconds']:.1f}s ")
            sys.stderr.flush()

        report = evaluate.evaluate(samples, read=read, progress=progress)
        sys.stderr.write("\n")
        self.stdout.write(evaluate.render_report(report))
        limit = options.get("errors") or 0
        if limit:
            for set_name in report["sets"]:
                self.stdout.write(f"\n### {set_name}: field errors by kind")
                for kind, errors in evaluate.error_kinds(report, set_name).items():
                    self.stdout.write(f"- {kind}: {len(errors)}")
                    for e in errors[:limit]:
                        self.stdout.write(
                            f"    {e['id']} ({e['layout']}) {e['name']}: truth {e['truth']!r}, read {e['predicted']!r}"
                        )
        if options.get("json_out"):
            evaluate.write_json(options["json_out"], report)
            self.stdout.write(f"\nWrote the report to {options['json_out']}.")
