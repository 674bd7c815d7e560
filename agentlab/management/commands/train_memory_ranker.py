"""``manage.py train_memory_ranker``: train the LambdaMART memory ranker on generated personas.

    python manage.py train_memory_ranker                 # 400 personas, seed 0 -> agents/memory/ranker.txt
    python manage.py train_memory_ranker --out /tmp/ranker.txt --personas 800

Trains LightGBM ``lambdarank`` on the training personas (three in four; split by persona) and
prints the test personas' table, which the model never saw. See agents/memory/RANKER.md.
"""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from agentlab.memory import evaluate
from agentlab.memory.personas import generate, split
from agents.memory.rank import RANKER_FILE


class Command(BaseCommand):
    help = "Train the memory re-ranker (LightGBM lambdarank) on generated personas."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--personas", type=int, default=400, help="Personas to generate (default 400).")
        parser.add_argument("--seed", type=int, default=0, help="Persona seed (default 0).")
        parser.add_argument("--rounds", type=int, default=evaluate.ROUNDS, help="Boosting rounds.")
        parser.add_argument("--out", default=str(RANKER_FILE), help="Where to write the model.")

    def handle(self, *args, personas: int, seed: int, rounds: int, out: str, **options) -> None:
        if personas < 4:
            raise CommandError("--personas must be at least 4.")
        evaluate.single_thread()
        train_personas, test_personas = split(generate(personas, seed))
        training = evaluate.samples(train_personas)
        model = evaluate.train(training, rounds)
        path = Path(out)
        path.parent.mkdir(parents=True, exist_ok=True)
        model.save_model(str(path))
        self.stdout.write(
            f"Trained on {len(training)} queries of {len(train_personas)} personas ({rounds} rounds); wrote {path}."
        )
        test = evaluate.samples(test_personas)
        for name, row in evaluate.score(test, model).items():
            self.stdout.write(f"{name}: " + ", ".join(f"{k} {100 * v:.2f}" for k, v in row.items()))
