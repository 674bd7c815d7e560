"""``manage.py eval_triage``: the triage retrieval alone, without the language model.

    python manage.py eval_triage                                  # generated (4 a disease), hand-written, all 1,200 S2D
    python manage.py eval_triage --generated 2 --per-disease 5    # quicker
    python manage.py eval_triage --json var/eval/triage.json

Prints the share of complaints whose first specialization is right, overall and per group
(specialization for generated complaints, disease label for Symptom2Disease). See
agentlab.evaluation.triage.
"""

from __future__ import annotations

import json
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from agentlab.evaluation import triage as evaluate
from agentlab.evaluation.scenarios import CaseError

TARGET_S2D = 0.90


class Command(BaseCommand):
    help = "Score triage alone (first specialization) on generated complaints and on Symptom2Disease."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--generated", type=int, default=4, help="Generated complaints a disease (0: none).")
        parser.add_argument("--seed", type=int, default=evaluate.TEST_SEED, help="Seed of the generated complaints.")
        parser.add_argument(
            "--s2d-dir",
            default=str(Path(settings.BASE_DIR).parent / "shared" / "eval"),
            help="Folder with symptom2disease.csv and its _specialists.json (default <repo>/../shared/eval).",
        )
        parser.add_argument("--per-disease", type=int, default=None, help="Symptom2Disease: at most N a label.")
        parser.add_argument("--no-s2d", action="store_true", help="Skip Symptom2Disease.")
        parser.add_argument(
            "--hand-written",
            default=str(evaluate.HAND_WRITTEN),
            help="JSON lines of hand-written complaints with their specialization ('' to skip).",
        )
        parser.add_argument("--json", dest="json_out", default=None, help="Write the scores here.")

    def handle(
        self,
        *args,
        generated: int,
        seed: int,
        s2d_dir: str,
        per_disease,
        no_s2d: bool,
        hand_written: str,
        json_out,
        **options,
    ):
        if generated < 0:
            raise CommandError("--generated must be 0 or more.")
        report = {}
        if generated:
            report["generated"] = evaluate.generated(generated, seed)
            self._table(
                f"Generated complaints ({generated} a disease, seed {seed})", "specialization", report["generated"]
            )
        if hand_written:
            try:
                report["hand_written"] = evaluate.hand_written(hand_written)
            except (OSError, ValueError) as exc:
                raise CommandError(str(exc)) from exc
            self._table("Hand-written complaints (development set)", "specialization", report["hand_written"])
        if not no_s2d:
            try:
                report["symptom2disease"] = evaluate.symptom2disease(s2d_dir, per_disease)
            except CaseError as exc:
                raise CommandError(str(exc)) from exc
            score = report["symptom2disease"]
            self._table("Symptom2Disease, raw complaints (evaluation only)", "label", score)
            verdict = "met" if score.share >= TARGET_S2D else "not met"
            self.stdout.write(f"Target {TARGET_S2D:.0%} of the complaints: {verdict}.")
        if json_out:
            path = Path(json_out)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps({k: v.as_dict() for k, v in report.items()}, indent=2) + "\n")
            self.stdout.write(f"Wrote {path}")

    def _table(self, title: str, group: str, score: evaluate.Score) -> None:
        self.stdout.write(
            f"\n{title}: {score.right} of {score.cases} ({100 * score.share:.1f} %) in {score.seconds:.0f} s"
        )
        self.stdout.write(f"| {group} | right | cases |")
        self.stdout.write("| --- | --- | --- |")
        for name, (right, cases) in sorted(score.groups.items()):
            self.stdout.write(f"| {name} | {right} | {cases} |")
