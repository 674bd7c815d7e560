"""`manage.py model_card`: write each committed adapter's README.md from the pipeline's reports."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from agentlab.training import card
from agents.llm import model_store


class Command(BaseCommand):
    help = "Write agents/adapters/<role>/README.md (model card) from training.json and the evaluation JSON reports."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--data-report", help="generate_agent_data's report.json.")
        parser.add_argument("--offline", help="agent_eval --json output.")
        parser.add_argument("--scenarios", help="agent_scenarios --file ... --json output.")
        parser.add_argument("--symptom2disease", help="agent_scenarios --symptom2disease --json output.")
        parser.add_argument("--adapters", default=str(model_store.COMMITTED_ADAPTERS_DIR))
        parser.add_argument(
            "--role",
            choices=("planner", "caller"),
            help="Write only this adapter's card (the roles may have been trained on different data).",
        )

    def handle(self, *args, **options) -> None:
        root = Path(options["adapters"])
        paths = {
            key: Path(options[key]) if options[key] else None
            for key in ("data_report", "offline", "scenarios", "symptom2disease")
        }
        missing = [str(path) for path in paths.values() if path is not None and not path.is_file()]
        if missing:
            raise CommandError(f"No such report: {', '.join(missing)}")
        for role in (options["role"],) if options.get("role") else ("planner", "caller"):
            adapter = root / role
            if not (adapter / "adapter_config.json").is_file():
                raise CommandError(f"No adapter in {adapter}.")
            (adapter / "README.md").write_text(card.render(role, adapter, **paths) + "\n", encoding="utf-8")
            self.stdout.write(f"Wrote {adapter / 'README.md'}")
