"""Scoring functions for the planner and caller models (no I/O, no model).

Text similarity, as in the seed paper's Tables 2 and 3:

* **BLEU**: ``sacrebleu.corpus_bleu`` over a group of samples, 0-100, with
  sacrebleu's defaults (13a tokenisation, 4-grams, exponential smoothing).
* **ROUGE-1/2/L**: ``rouge_score`` F-measure per sample (stemmed), averaged, 0-1.

Both compare *canonical* texts: a planner output that parses is re-rendered as
``<reason>…</reason><action>…</action>`` (the runtime stops generation at
``</action>``, so a raw prediction lacks it while the reference has it) and a
caller output that parses as ``{"tool": …, "parameters": …}`` in compact JSON
(key order and spacing do not count). Unparseable text is compared as it is.

Caller accuracy per sample (an unparseable prediction is wrong on all three;
an unparseable reference is a dataset bug and scores like one):

* **ToolAcc**: predicted tool name == reference tool name.
* **ParamAcc**: predicted parameter-name set == reference set.
* **ValuesAcc**: the name sets are equal and every value is equal after
  :func:`normalise_value` (strings stripped, casefolded, whitespace collapsed;
  lists and objects compared as canonical JSON after normalising the strings
  inside them; numbers, booleans and null as JSON).

The planner's **action exact match**: the ``<action>`` texts are equal after
:func:`normalise_text`; an unparseable prediction does not match.

CAMPHOR's end-to-end metrics (its §5.1), computed *per conversation* and then
macro-averaged over conversations. For one conversation, the reference calls
are the parsed ``completion`` of each of its caller samples, the predicted
calls the parsed predictions for the same samples (an unparseable prediction
contributes no call). Each call becomes an item, and the F1 of the predicted
against the reference *multiset* of items is
``P = TP / |pred|``, ``R = TP / |ref|``, ``F1 = 2PR / (P + R)`` with
``TP = |pred ∩ ref|`` (multiset intersection; 0 when ``TP`` is 0, 1 when both
are empty). Order is ignored, as in CAMPHOR.

* **Tool F1**: item = the tool name.
* **Delexicalised Plan F1**: item = (tool name, set of parameter names): a
  hallucinated or missing parameter makes the call a miss.
* **Plan F1**: item = (tool name, parameter names and normalised values).
  CAMPHOR matches open-ended values by Sentence-BERT similarity >= 0.7; here
  values match after :func:`normalise_value` (no embedding model at
  evaluation time), which is stricter.

Conversations without caller samples have no F1 and are left out.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from typing import Any

import sacrebleu
from rouge_score import rouge_scorer

from agents.errors import UnparseableOutput
from agents.tools import REGISTRY
from agents.trajectory import parse_caller, parse_planner, render_caller, render_planner

ROUGE_TYPES = ("rouge1", "rouge2", "rougeL")
_SCORER = rouge_scorer.RougeScorer(list(ROUGE_TYPES), use_stemmer=True)
_WHITESPACE = re.compile(r"\s+")


# --- normalisation -----------------------------------------------------------------


def normalise_text(text: str) -> str:
    """Stripped, casefolded, with runs of whitespace as one space."""
    return _WHITESPACE.sub(" ", str(text)).strip().casefold()


def normalise_value(value: Any) -> str:
    """A canonical JSON string of ``value`` with every string in it normalised."""
    return json.dumps(_normalise(value), sort_keys=True, ensure_ascii=False)


def _normalise(value: Any) -> Any:
    if isinstance(value, str):
        return normalise_text(value)
    if isinstance(value, dict):
        return {str(key): _normalise(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_normalise(item) for item in value]
    return value


def try_parse_planner(text: str) -> dict[str, str] | None:
    try:
        return parse_planner(text)
    except UnparseableOutput:
        return None


def try_parse_caller(text: str) -> dict[str, Any] | None:
    try:
        return parse_caller(text)
    except UnparseableOutput:
        return None


def canonical_planner(text: str) -> str:
    parsed = try_parse_planner(text)
    return render_planner(parsed) if parsed is not None else text.strip()


def canonical_caller(text: str) -> str:
    parsed = try_parse_caller(text)
    if parsed is None:
        return text.strip()
    # Parameters in key order: the model's choice of order does not count.
    parameters = json.loads(json.dumps(parsed["parameters"], sort_keys=True))
    return render_caller({"tool": parsed["tool"], "parameters": parameters}, REGISTRY)


def canonical(role: str, text: str) -> str:
    """The text BLEU and ROUGE compare for ``role``."""
    return canonical_planner(text) if role == "planner" else canonical_caller(text)


# --- text similarity -------------------------------------------------------------


def corpus_bleu(predictions: Sequence[str], references: Sequence[str]) -> float:
    """sacrebleu corpus BLEU (0-100) of ``predictions`` against one reference each."""
    if not predictions:
        return 0.0
    return float(sacrebleu.corpus_bleu(list(predictions), [list(references)]).score)


def sentence_bleu(prediction: str, reference: str) -> float:
    return float(sacrebleu.sentence_bleu(prediction, [reference]).score)


def rouge(prediction: str, reference: str) -> dict[str, float]:
    """ROUGE-1/2/L F-measures (0-1) of one prediction."""
    scores = _SCORER.score(reference, prediction)
    return {name: float(scores[name].fmeasure) for name in ROUGE_TYPES}


def mean(values: Iterable[float]) -> float:
    values = list(values)
    return sum(values) / len(values) if values else 0.0


# --- planner and caller accuracy -------------------------------------------------


def action_match(prediction: str, reference: str) -> bool:
    """Whether the predicted ``<action>`` equals the reference's (normalised)."""
    predicted, expected = try_parse_planner(prediction), try_parse_planner(reference)
    if predicted is None or expected is None:
        return False
    return normalise_text(predicted["action"]) == normalise_text(expected["action"])


def caller_accuracy(prediction: str, reference: str) -> dict[str, float]:
    """ToolAcc, ParamAcc and ValuesAcc (each 0.0 or 1.0) of one caller output."""
    predicted, expected = try_parse_caller(prediction), try_parse_caller(reference)
    if predicted is None or expected is None:
        return {"tool_acc": 0.0, "param_acc": 0.0, "values_acc": 0.0}
    same_tool = predicted["tool"] == expected["tool"]
    same_names = set(predicted["parameters"]) == set(expected["parameters"])
    same_values = same_names and all(
        normalise_value(predicted["parameters"][name]) == normalise_value(expected["parameters"][name])
        for name in expected["parameters"]
    )
    return {"tool_acc": float(same_tool), "param_acc": float(same_names), "values_acc": float(same_values)}


# --- CAMPHOR F1 ------------------------------------------------------------------------


def multiset_f1(predicted: Iterable[Hashable], reference: Iterable[Hashable]) -> float:
    """F1 of the predicted against the reference multiset (1.0 when both are empty)."""
    predicted, reference = Counter(predicted), Counter(reference)
    total_predicted, total_reference = sum(predicted.values()), sum(reference.values())
    if not total_predicted and not total_reference:
        return 1.0
    hits = sum((predicted & reference).values())
    if not hits:
        return 0.0
    precision, recall = hits / total_predicted, hits / total_reference
    return 2 * precision * recall / (precision + recall)


def call_items(call: dict[str, Any]) -> dict[str, Hashable]:
    """One call as the item each F1 counts."""
    parameters = call["parameters"]
    return {
        "tool_f1": call["tool"],
        "delex_plan_f1": (call["tool"], tuple(sorted(parameters))),
        "plan_f1": (call["tool"], tuple(sorted((name, normalise_value(v)) for name, v in parameters.items()))),
    }


F1_NAMES = ("tool_f1", "delex_plan_f1", "plan_f1")


def conversation_f1(pairs: Sequence[tuple[str, str]]) -> dict[str, float]:
    """Tool F1, Delexicalised Plan F1 and Plan F1 of one conversation's caller
    samples, given as (prediction, reference) texts."""
    predicted = [call_items(c) for c in (try_parse_caller(p) for p, _ in pairs) if c is not None]
    reference = [call_items(c) for c in (try_parse_caller(r) for _, r in pairs) if c is not None]
    return {
        name: multiset_f1((item[name] for item in predicted), (item[name] for item in reference)) for name in F1_NAMES
    }
