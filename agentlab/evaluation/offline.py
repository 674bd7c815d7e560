"""Offline evaluation: run a backend over the SFT test split and score it.

Each sample is one prompt (``messages``) with its reference ``completion``;
the backend answers it the way the runtime would ask (same stop sequences and
timeout). Scores are grouped as in the seed paper's Tables 2 and 3: per
category, an "appointment (avg)" row that averages the appointment categories'
rows (as the paper's "average RougeL" does), "seen" and "unseen" rows, and
"all". CAMPHOR's Tool F1 / Plan F1 are computed per conversation from the
caller samples (see :mod:`agentlab.evaluation.metrics`).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentlab.evaluation import metrics
from agentlab.jsonl import read_jsonl
from agents.llm.base import ROLES, Message, ModelBackend
from agents.runtime import STOP

CATEGORIES = (
    "general",
    "counter",
    "negative",
    "dietician",
    "soft_sos",
    "hard_sos_start",
    "hard_sos_end",
    "reminder",
)
APPOINTMENT_CATEGORIES = ("general", "counter", "negative", "dietician")
APPOINTMENT_AVERAGE = "appointment (avg)"
MESSAGE_ROLES = ("system", "user", "assistant")


class DatasetError(ValueError):
    """The dataset file is missing or malformed (the message names the line)."""


@dataclass(frozen=True)
class Sample:
    id: str
    conversation: str
    category: str
    role: str
    unseen: bool
    messages: tuple[Message, ...]
    completion: str
    line: int


@dataclass
class Prediction:
    sample: Sample
    text: str
    latency_ms: int | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    error: str = ""


# --- reading the dataset -------------------------------------------------------------


def _sample(line_number: int, data: Any) -> Sample:
    where = f"line {line_number}"
    if not isinstance(data, dict):
        raise DatasetError(f"{where}: expected a JSON object.")
    missing = [key for key in ("id", "role", "messages", "completion") if key not in data]
    if missing:
        raise DatasetError(f"{where}: missing {', '.join(missing)}.")
    role = data["role"]
    if role not in ROLES:
        raise DatasetError(f"{where}: unknown role {role!r} (expected one of {', '.join(ROLES)}).")
    raw_messages = data["messages"]
    if not isinstance(raw_messages, list) or not raw_messages:
        raise DatasetError(f"{where}: 'messages' must be a non-empty list.")
    messages = []
    for position, message in enumerate(raw_messages):
        if (
            not isinstance(message, dict)
            or message.get("role") not in MESSAGE_ROLES
            or not isinstance(message.get("content"), str)
        ):
            raise DatasetError(
                f"{where}: message {position} must be {{'role': system|user|assistant, 'content': string}}."
            )
        messages.append(Message(role=message["role"], content=message["content"]))
    if not isinstance(data["completion"], str):
        raise DatasetError(f"{where}: 'completion' must be a string.")
    return Sample(
        id=str(data["id"]),
        conversation=str(data.get("conversation") or data["id"]),
        category=str(data.get("category") or "uncategorised"),
        role=role,
        unseen=bool(data.get("unseen", False)),
        messages=tuple(messages),
        completion=data["completion"],
        line=line_number,
    )


def load_samples(
    path: str | Path,
    *,
    categories: Sequence[str] | None = None,
    limit: int | None = None,
    per_category: int | None = None,
) -> list[Sample]:
    """Every sample in the JSONL file (all lines are checked), then the
    ``categories`` filter, the first ``per_category`` seen and unseen
    conversations of each category (whole conversations, so Plan F1 still
    holds) and the first
    ``limit`` samples. Raises DatasetError."""
    samples = [
        _sample(number, data)
        for number, data in read_jsonl(path, error=DatasetError, missing=f"No dataset file at {Path(path)}.")
    ]
    if categories:
        wanted = set(categories)
        present = {sample.category for sample in samples}
        if wanted - present:
            raise DatasetError(
                f"no samples of category {', '.join(sorted(wanted - present))} "
                f"(the file has: {', '.join(_ordered_categories(present)) or 'none'})."
            )
        samples = [sample for sample in samples if sample.category in wanted]
    if per_category is not None:
        # Seen and unseen conversations are counted apart: N of each where both exist.
        kept: dict[tuple[str, bool], list[str]] = {}
        for sample in samples:
            chosen = kept.setdefault((sample.category, sample.unseen), [])
            if sample.conversation not in chosen and len(chosen) < per_category:
                chosen.append(sample.conversation)
        samples = [s for s in samples if s.conversation in kept[(s.category, s.unseen)]]
    if limit is not None:
        samples = samples[: max(limit, 0)]
    return samples


# --- running the model ----------------------------------------------------------------


def _progress(items: Sequence[Sample], enabled: bool) -> Iterable[Sample]:
    if not enabled:
        return items
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover  (tqdm comes with transformers)
        return items
    return tqdm(items, desc="agent_eval", unit="sample", file=sys.stderr)


def predict(
    samples: Sequence[Sample],
    backend: ModelBackend,
    *,
    timeout: float | None = None,
    progress: bool = True,
) -> list[Prediction]:
    """The backend's output for each sample. A failing call is recorded (and
    scored as a wrong, empty prediction) instead of ending the evaluation."""
    predictions = []
    for sample in _progress(samples, progress):
        try:
            generation = backend.generate(sample.role, sample.messages, STOP[sample.role], timeout=timeout)
        except Exception as exc:  # noqa: BLE001  (one failed call is a wrong answer, not a failed run)
            predictions.append(Prediction(sample, "", error=f"{type(exc).__name__}: {exc}"[:300]))
            continue
        predictions.append(
            Prediction(
                sample,
                generation.text,
                latency_ms=generation.latency_ms,
                prompt_tokens=generation.prompt_tokens,
                completion_tokens=generation.completion_tokens,
            )
        )
    return predictions


# --- scoring ----------------------------------------------------------------------------


def score_prediction(prediction: Prediction) -> dict[str, Any]:
    """Per-sample scores (the canonical texts BLEU/ROUGE compare included)."""
    role = prediction.sample.role
    hypothesis = metrics.canonical(role, prediction.text)
    reference = metrics.canonical(role, prediction.sample.completion)
    scores: dict[str, Any] = {"bleu": metrics.sentence_bleu(hypothesis, reference)}
    scores.update(metrics.rouge(hypothesis, reference))
    if role == "planner":
        scores["action_match"] = float(metrics.action_match(prediction.text, prediction.sample.completion))
    else:
        scores.update(metrics.caller_accuracy(prediction.text, prediction.sample.completion))
    scores["parsed"] = (
        metrics.try_parse_planner(prediction.text) if role == "planner" else metrics.try_parse_caller(prediction.text)
    ) is not None
    return {"hypothesis": hypothesis, "reference": reference, "scores": scores}


ACCURACY_COLUMNS = {"planner": ("action_match",), "caller": ("tool_acc", "param_acc", "values_acc")}
COST_COLUMNS = ("latency_ms", "prompt_tokens", "completion_tokens")


def _row(name: str, role: str, scored: Sequence[tuple[Prediction, dict[str, Any]]]) -> dict[str, Any]:
    row: dict[str, Any] = {"group": name, "n": len(scored)}
    row["bleu"] = metrics.corpus_bleu([s["hypothesis"] for _, s in scored], [s["reference"] for _, s in scored])
    for column in (*metrics.ROUGE_TYPES, *ACCURACY_COLUMNS[role]):
        row[column] = metrics.mean(s["scores"][column] for _, s in scored)
    for column in COST_COLUMNS:
        values = [getattr(p, column) for p, _ in scored if getattr(p, column) is not None]
        row[column] = metrics.mean(values) if values else None
    row["errors"] = sum(1 for p, _ in scored if p.error)
    return row


def _average_row(name: str, rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    row: dict[str, Any] = {"group": name, "n": sum(r["n"] for r in rows)}
    for column in rows[0]:
        if column in ("group", "n", "errors"):
            continue
        values = [r[column] for r in rows if r[column] is not None]
        row[column] = metrics.mean(values) if values else None
    row["errors"] = sum(r["errors"] for r in rows)
    return row


def _ordered_categories(names: Iterable[str]) -> list[str]:
    names = set(names)
    return [c for c in CATEGORIES if c in names] + sorted(names - set(CATEGORIES))


def _groups(items: Sequence[Any], sample_of: Callable[[Any], Any], row, average) -> list[dict[str, Any]]:
    """Rows per category, the appointment average, seen, unseen and all."""
    by_category: dict[str, list[Any]] = defaultdict(list)
    for item in items:
        by_category[sample_of(item).category].append(item)
    rows = [row(category, by_category[category]) for category in _ordered_categories(by_category)]
    appointment = [r for r in rows if r["group"] in APPOINTMENT_CATEGORIES]
    if appointment:
        rows.append(average(APPOINTMENT_AVERAGE, appointment))
    for name, unseen in (("seen", False), ("unseen", True)):
        part = [item for item in items if sample_of(item).unseen == unseen]
        if part:
            rows.append(row(name, part))
    if items:
        rows.append(row("all", list(items)))
    return rows


def _f1_row(name: str, conversations: Sequence[dict[str, Any]]) -> dict[str, Any]:
    row: dict[str, Any] = {"group": name, "conversations": len(conversations)}
    for column in metrics.F1_NAMES:
        row[column] = metrics.mean(c[column] for c in conversations)
    return row


def _f1_average(name: str, rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    row: dict[str, Any] = {"group": name, "conversations": sum(r["conversations"] for r in rows)}
    for column in metrics.F1_NAMES:
        row[column] = metrics.mean(r[column] for r in rows)
    return row


@dataclass(frozen=True)
class _ConversationKey:
    """What the F1 grouping needs of a conversation (its first caller sample)."""

    category: str
    unseen: bool


def conversation_scores(scored: Sequence[tuple[Prediction, dict[str, Any]]]) -> list[dict[str, Any]]:
    """Tool F1 / Delexicalised Plan F1 / Plan F1 of each conversation with caller samples."""
    pairs: dict[str, list[tuple[str, str]]] = defaultdict(list)
    first: dict[str, Sample] = {}
    for prediction, _ in scored:
        sample = prediction.sample
        if sample.role != "caller":
            continue
        pairs[sample.conversation].append((prediction.text, sample.completion))
        first.setdefault(sample.conversation, sample)
    return [
        {
            "conversation": conversation,
            "category": first[conversation].category,
            "unseen": first[conversation].unseen,
            "calls": len(pairs[conversation]),
            **metrics.conversation_f1(pairs[conversation]),
        }
        for conversation in pairs
    ]


def evaluate(predictions: Sequence[Prediction]) -> dict[str, Any]:
    """The report: planner and caller tables, the F1 table and per-sample scores."""
    scored = [(prediction, score_prediction(prediction)) for prediction in predictions]
    report: dict[str, Any] = {}
    for role in ROLES:
        part = [item for item in scored if item[0].sample.role == role]
        report[role] = _groups(
            part, lambda item: item[0].sample, lambda name, items, role=role: _row(name, role, items), _average_row
        )
    conversations = conversation_scores(scored)
    report["conversation_f1"] = _groups(
        conversations,
        lambda c: _ConversationKey(c["category"], c["unseen"]),
        _f1_row,
        _f1_average,
    )
    report["conversations"] = conversations
    report["samples"] = [
        {
            "id": prediction.sample.id,
            "conversation": prediction.sample.conversation,
            "category": prediction.sample.category,
            "role": prediction.sample.role,
            "unseen": prediction.sample.unseen,
            "prediction": prediction.text,
            "reference": prediction.sample.completion,
            "error": prediction.error,
            "latency_ms": prediction.latency_ms,
            "prompt_tokens": prediction.prompt_tokens,
            "completion_tokens": prediction.completion_tokens,
            "scores": result["scores"],
        }
        for prediction, result in scored
    ]
    return report


# --- printing -----------------------------------------------------------------------------


def _cell(value: Any, digits: int) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def table(rows: Sequence[Sequence[str]]) -> str:
    """A Markdown table."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["| " + " | ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)) + " |" for row in rows]
    lines.insert(1, "|" + "|".join("-" * (width + 2) for width in widths) + "|")
    return "\n".join(lines)


PLANNER_COLUMNS = [
    ("Category", "group", 0),
    ("n", "n", 0),
    ("BLEU", "bleu", 2),
    ("Rouge1", "rouge1", 2),
    ("Rouge2", "rouge2", 2),
    ("RougeL", "rougeL", 2),
    ("ActionEM", "action_match", 2),
    ("ms/call", "latency_ms", 0),
    ("prompt tok", "prompt_tokens", 0),
    ("gen tok", "completion_tokens", 0),
    ("errors", "errors", 0),
]
CALLER_COLUMNS = [
    *PLANNER_COLUMNS[:6],
    ("ToolAcc", "tool_acc", 2),
    ("ParamAcc", "param_acc", 2),
    ("ValuesAcc", "values_acc", 2),
    *PLANNER_COLUMNS[7:],
]
F1_COLUMNS = [
    ("Category", "group", 0),
    ("conversations", "conversations", 0),
    ("Tool F1", "tool_f1", 3),
    ("Delex. Plan F1", "delex_plan_f1", 3),
    ("Plan F1", "plan_f1", 3),
]


def render_rows(rows: Sequence[dict[str, Any]], columns) -> str:
    if not rows:
        return "(no samples)"
    header = [title for title, _, _ in columns]
    return table([header, *([_cell(row.get(key), digits) for _, key, digits in columns] for row in rows)])


def render_report(report: dict[str, Any]) -> str:
    return "\n\n".join(
        [
            "Planner (seed paper Table 2; BLEU 0-100, ROUGE F-measure 0-1)",
            render_rows(report["planner"], PLANNER_COLUMNS),
            "Caller (seed paper Table 3)",
            render_rows(report["caller"], CALLER_COLUMNS),
            "CAMPHOR end-to-end F1 (per conversation, macro average)",
            render_rows(report["conversation_f1"], F1_COLUMNS),
        ]
    )


def write_json(path: str | Path, data: dict[str, Any]) -> None:
    """Write ``data`` to ``path`` atomically (a partial file is never left behind)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(data, out, ensure_ascii=False, indent=2)
            out.write("\n")
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def run(
    samples: Sequence[Sample],
    backend: ModelBackend,
    *,
    data: str | Path = "",
    categories: Sequence[str] | None = None,
    limit: int | None = None,
    timeout: float | None = None,
    progress: bool = True,
) -> dict[str, Any]:
    """Predict and score ``samples`` (from :func:`load_samples`); the report with its metadata."""
    predictions = predict(samples, backend, timeout=timeout, progress=progress)
    report = {
        "meta": {
            "data": str(data),
            "backend": getattr(backend, "name", type(backend).__name__),
            "samples": len(samples),
            "categories": list(categories or []),
            "limit": limit,
            "finished_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        }
    }
    report.update(evaluate(predictions))
    return report
