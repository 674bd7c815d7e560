"""Interleaving (seed paper §6.4): one SFT sample per planner and per caller state.

The input is the trajectory so far in the adapters' chat format
(:func:`agents.prompts.build_chat`), the output the state itself
(``<reason>…</reason><action>…</action>`` or the JSON call). The tool names in
the planner's prompt are shuffled per conversation (§6.2): all samples of a
conversation share one order, so each sample's prompt extends the previous
one's and the trainer can pack a whole conversation into one sequence.

Files (JSONL, one object a line), written as samples arrive so memory stays flat:
``trajectories.jsonl`` (§6.1.1 trajectories with category and split),
``planner_train.jsonl``, ``caller_train.jsonl``, ``test.jsonl`` (both roles),
``scenarios_test.jsonl`` (end-to-end cases of the test appointment
conversations, for ``agent_scenarios``); the command adds ``report.json``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from agentlab.data.cases import case_from_trajectory
from agentlab.data.generator import Sample
from agents.llm.base import ROLES
from agents.prompts import build_chat, own_output
from agents.tools import REGISTRY


def samples_for(sample: Sample, *, seed: int) -> list[dict[str, Any]]:
    """The planner and caller SFT samples of one conversation."""
    names = sorted(tool.name for tool in REGISTRY)
    random.Random(f"{seed}-{sample.conversation}").shuffle(names)
    states = sample.trajectory
    rows = []
    for role in ROLES:
        count = 0
        for index, state in enumerate(states):
            if state["from"] != role:
                continue
            messages = build_chat(role, states[:index], tool_names=names, registry=REGISTRY)
            rows.append(
                {
                    "id": f"{sample.conversation}-{role[0]}{count:02d}",
                    "conversation": sample.conversation,
                    "category": sample.category,
                    "role": role,
                    "unseen": sample.unseen,
                    "messages": [{"role": m.role, "content": m.content} for m in messages],
                    "completion": own_output(role, state["value"], REGISTRY),
                }
            )
            count += 1
    return rows


class Writer:
    """Streams samples into the dataset files of ``directory``."""

    def __init__(self, directory: Path, *, seed: int) -> None:
        self.directory = directory
        self.seed = seed
        directory.mkdir(parents=True, exist_ok=True)
        self.files = {
            name: (directory / f"{name}.jsonl").open("w", encoding="utf-8")
            for name in ("trajectories", "planner_train", "caller_train", "test", "scenarios_test")
        }
        self.counts: dict[str, int] = {}

    def _write(self, name: str, row: dict[str, Any]) -> None:
        self.files[name].write(json.dumps(row, ensure_ascii=False) + "\n")
        self.counts[name] = self.counts.get(name, 0) + 1

    def add(self, sample: Sample) -> None:
        self._write(
            "trajectories",
            {
                "conversation": sample.conversation,
                "category": sample.category,
                "split": sample.split,
                "unseen": sample.unseen,
                "disease": sample.disease,
                "template": sample.template,
                "interaction_trajectory": sample.trajectory,
            },
        )
        if sample.split == "test":
            case = case_from_trajectory(
                {
                    "conversation": sample.conversation,
                    "category": sample.category,
                    "unseen": sample.unseen,
                    "interaction_trajectory": sample.trajectory,
                }
            )
            if case is not None:
                self._write("scenarios_test", case)
        for row in samples_for(sample, seed=self.seed):
            if sample.split == "test":
                self._write("test", row)
                self.counts[f"test_{row['role']}"] = self.counts.get(f"test_{row['role']}", 0) + 1
            else:
                self._write(f"{row['role']}_train", row)

    def close(self) -> None:
        for handle in self.files.values():
            handle.close()
