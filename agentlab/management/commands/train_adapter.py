"""`manage.py train_adapter --role planner|caller`: LoRA fine-tuning on the generated SFT data."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from agentlab.training.lora import Config, TrainingError, train
from agents.llm import model_store


class Command(BaseCommand):
    help = (
        "Train the planner or caller LoRA adapter (r=8, alpha=16, loss on completions only) on "
        "generate_agent_data's output; CPU by default, CUDA when present. Checkpoints and --resume."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--role", choices=("planner", "caller"), required=True)
        parser.add_argument("--data", help="SFT JSONL (default: <DATA_DIR>/agent_data/<role>_train.jsonl).")
        parser.add_argument("--out", help="Adapter folder (default: <DATA_DIR>/adapters/<role>).")
        parser.add_argument("--base-model", help="Local HF model directory (default: the configured base model).")
        parser.add_argument("--steps", type=int, default=300)
        parser.add_argument("--batch-size", type=int, default=4)
        parser.add_argument("--learning-rate", type=float, default=1e-3)
        parser.add_argument("--rank", type=int, default=8)
        parser.add_argument("--alpha", type=int, default=16)
        parser.add_argument("--max-tokens", type=int, default=1536)
        parser.add_argument("--threads", type=int, default=2)
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument("--save-every", type=int, default=50)
        parser.add_argument("--max-minutes", type=float, help="Stop (and save) after this much wall time.")
        parser.add_argument("--limit-conversations", type=int)
        parser.add_argument("--resume", action="store_true", help="Continue from <out>/checkpoint.")
        parser.add_argument(
            "--init-from",
            help="Start from this trained adapter folder (e.g. agents/adapters/planner) with a fresh schedule.",
        )

    def handle(self, *args, role: str, **options) -> None:
        data_dir = Path(settings.DATA_DIR)
        try:
            base = Path(options["base_model"]) if options["base_model"] else model_store.base_model_dir()
        except model_store.ModelNotAvailable as exc:
            raise CommandError(str(exc)) from exc
        if options["steps"] < 1 or options["batch_size"] < 1:
            raise CommandError("--steps and --batch-size must be at least 1.")
        config = Config(
            role=role,
            data=Path(options["data"] or data_dir / "agent_data" / f"{role}_train.jsonl"),
            out=Path(options["out"] or data_dir / "adapters" / role),
            base_model=base,
            steps=options["steps"],
            batch_size=options["batch_size"],
            learning_rate=options["learning_rate"],
            rank=options["rank"],
            alpha=options["alpha"],
            max_tokens=options["max_tokens"],
            threads=options["threads"],
            seed=options["seed"],
            save_every=options["save_every"],
            max_minutes=options["max_minutes"],
            resume=options["resume"],
            init_from=Path(options["init_from"]) if options["init_from"] else None,
            limit_conversations=options["limit_conversations"],
        )
        try:
            state = train(config, log=self.stdout.write)
        except TrainingError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(
            f"Saved the {role} adapter to {config.out}: {state.step} steps, {state.tokens_seen:,} tokens, "
            f"{state.seconds / 60:.1f} min, final loss {state.losses[-1][1] if state.losses else float('nan'):.3f}"
        )
