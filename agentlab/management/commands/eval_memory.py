"""``manage.py eval_memory``: memory retrieval and its effect on referrals, on generated personas.

    python manage.py eval_memory                        # 400 personas, seed 0, the committed ranker
    python manage.py eval_memory --json var/eval/memory.json
    python manage.py eval_memory --personas 40 --train  # train a ranker on the train split first

Prints Recall@3/5/10 and NDCG@3/5/10 of BM25, dense, RRF and RRF + LambdaMART on the test
personas (Context Tuning's Table 2 layout), Recall@5 per query kind, and first-referral accuracy
with and without memory. ``--json`` writes one object per retriever (``bm25``, ``dense``, ``rrf``,
``rrf_lambdamart``), each with ``recall@3`` ... ``ndcg@10`` as fractions. See agentlab.memory.
"""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from agentlab.memory import evaluate

NAMES = {"bm25": "BM25", "dense": "Dense (MiniLM)", "rrf": "RRF", "rrf_lambdamart": "RRF + LambdaMART"}
TARGET_RECALL_AT_5 = 0.93


class Command(BaseCommand):
    help = "Score memory retrieval (BM25, dense, RRF, RRF + LambdaMART) and referrals on generated personas."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--personas", type=int, default=400, help="Personas to generate (default 400).")
        parser.add_argument("--seed", type=int, default=0, help="Persona seed (default 0).")
        parser.add_argument("--model", default=None, help="A LightGBM ranker file (default: the committed one).")
        parser.add_argument("--train", action="store_true", help="Train a ranker on the train split instead.")
        parser.add_argument("--json", dest="json_out", default=None, help="Write the retrieval table here.")

    def handle(self, *args, personas: int, seed: int, model, train: bool, json_out, **options) -> None:
        if personas < 4:
            raise CommandError("--personas must be at least 4 (a quarter of them are the test split).")
        path = Path(model) if model else None
        if path is not None and not path.is_file():
            raise CommandError(f"No ranker file at {path}.")
        table, kinds, referrals, setup = evaluate.run(personas, seed, path, retrain=train)
        self.stdout.write(
            f"Memory retrieval: {setup['test_queries']} implicit queries of {setup['test_personas']} test personas "
            f"({setup['personas']} generated, seed {setup['seed']}); ranker: {setup['ranker']}"
        )
        self.stdout.write("| retriever | R@3 | R@5 | R@10 | NDCG@3 | NDCG@5 | NDCG@10 |")
        self.stdout.write("| --- | --- | --- | --- | --- | --- | --- |")
        for key, row in table.items():
            cells = " | ".join(f"{100 * row[m]:.2f}" for m in ("recall@3", "recall@5", "recall@10"))
            cells += " | " + " | ".join(f"{100 * row[m]:.2f}" for m in ("ndcg@3", "ndcg@5", "ndcg@10"))
            self.stdout.write(f"| {NAMES[key]} | {cells} |")
        if kinds:
            self.stdout.write("\nRecall@5 per query kind:")
            self.stdout.write("| kind | " + " | ".join(NAMES[k] for k in table) + " |")
            for kind, row in kinds.items():
                self.stdout.write(f"| {kind} | " + " | ".join(f"{100 * row[k]:.2f}" for k in table) + " |")
        self.stdout.write("\nReferrals (first specialization right), triage alone vs triage with memory:")
        self.stdout.write("| group | cases | without memory | with memory |")
        for group, row in referrals.items():
            self.stdout.write(
                f"| {group} | {row['cases']} | {100 * row['without_memory']:.1f} | {100 * row['with_memory']:.1f} |"
            )
        if "rrf_lambdamart" in table:
            best_single = max(table[k]["recall@5"] for k in ("bm25", "dense", "rrf"))
            fused = table["rrf_lambdamart"]["recall@5"]
            self.stdout.write(
                f"\nTarget: RRF + LambdaMART beats every single retriever at Recall@5: "
                f"{'yes' if fused > best_single else 'NO'} ({100 * fused:.2f} vs {100 * best_single:.2f}); "
                f"Recall@5 >= {100 * TARGET_RECALL_AT_5:.0f}: {'yes' if fused >= TARGET_RECALL_AT_5 else 'NO'}"
            )
        if json_out:
            out = Path(json_out)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(json.dumps(table, indent=2) + "\n", encoding="utf-8")
            self.stdout.write(f"Wrote {out}.")
