"""Prescription reading scored on the generated corpus: OCR character error rate, field-level
precision/recall/F1 and seconds per image (``manage.py eval_prescriptions``).

Sets: ``printed``, ``photo`` and ``handwriting`` are images given to the reader
(``health.scheduler.reading.read_prescription``, or any function passed in that takes a PIL image
and returns an object with ``.text`` and ``.medications``). ``text`` is the printed set's
prescriptions with no image: their text goes straight to ``extract_medications``, which measures the
extractor alone, as if OCR were perfect.

Rules, documented here because they are choices:

- **CER**: Levenshtein distance (rapidfuzz) between the reader's text and the page's printed text,
  over the reference's length, both case-folded, table bars ("|") removed and every run of
  whitespace made one space (line breaks and case carry no field). A set's CER is the total of its
  distances over the total of its reference lengths.
- **Alignment**: a predicted medication matches a true one with the same name (lower case, spaces
  collapsed), one to one, in reading order. Names are the lexicon's generic names on both sides.
- **Field counts**, for the fields ``name strength dose times_per_day times duration_days with_food``:
  in a matched pair, a field is a TP when the values are equal and not null; when they differ, a
  non-null prediction is an FP and a non-null truth an FN (a wrong value is both); null on both sides
  counts nothing. An unmatched prediction's non-null fields are FPs (its name included); an
  unmatched truth's non-null fields are FNs. Numbers compare as numbers (1 == 1.0), strengths with
  spaces removed and case-folded ("500mg" == "500 mg"), times as lists in order.
- **Overall** precision/recall/F1 sum the counts of all fields. ``exact`` is the share of true
  medications matched with every field right.
- **Seconds per image**: wall time of the read call on an already decoded image, after one warm-up
  read (models loaded); mean and 95th percentile.
"""

from __future__ import annotations

import json
import math
import random
import statistics
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image
from rapidfuzz.distance import Levenshtein

from agentlab.prescriptions.corpus import LAYOUTS, Prescription, make_prescription
from agentlab.prescriptions.render import Rendered, check_fonts, pick_font, render

FIELDS = ("name", "strength", "dose", "times_per_day", "times", "duration_days", "with_food")
ALL_SETS = ("printed", "photo", "handwriting", "text")
DEFAULT_SETS = ("printed", "photo", "handwriting")
TARGET_F1 = {"printed": 0.95, "photo": 0.90, "handwriting": 0.80}
TARGET_SECONDS = 2.0

ReadImage = Callable[[Image.Image], Any]
ReadText = Callable[[str], list[dict[str, Any]]]


# -- the corpus -----------------------------------------------------------------------------------------


@dataclass
class Sample:
    id: str
    set: str
    layout: str
    font: str
    prescription: Prescription
    rendered: Rendered | None = None  # None for the text set


def make_sample(set_name: str, index: int, seed: int) -> Sample:
    """Sample ``index`` of ``set_name``: a function of (seed, set, index) alone. Layouts take turns and
    fonts shift by one every round of layouts, so every layout meets every font."""
    # the text set is the printed set's prescriptions, unrendered: its score is printed's upper bound
    key = "printed" if set_name == "text" else set_name
    rng = random.Random(f"{seed}:{key}:{index}")
    layout = LAYOUTS[index % len(LAYOUTS)]
    font = pick_font(key, index + index // len(LAYOUTS))
    rx = make_prescription(rng, layout, unicode_ok=font.unicode_ok)
    rendered = None if set_name == "text" else render(rx, set_name, font, rng)
    return Sample(f"{set_name}-{index:04d}", set_name, layout, font.name if rendered else "-", rx, rendered)


def build_corpus(sets: Iterable[str], per_set: int, seed: int) -> list[Sample]:
    sets = list(sets)
    unknown = [s for s in sets if s not in ALL_SETS]
    if unknown:
        raise ValueError(f"unknown set(s) {', '.join(unknown)}; known: {', '.join(ALL_SETS)}")
    check_fonts([s for s in sets if s != "text"])
    return [make_sample(set_name, i, seed) for set_name in sets for i in range(per_set)]


def truth_record(sample: Sample, file: str | None) -> dict[str, Any]:
    rx = sample.prescription
    return {
        "id": sample.id,
        "set": sample.set,
        "layout": sample.layout,
        "font": sample.font,
        "file": file,
        "text": rx.text,
        "visible_text": rx.visible_text,
        "mentions": rx.mentions,
        "medications": rx.medications,
    }


def save_corpus(samples: list[Sample], out_dir: str | Path) -> Path:
    """Each image as a file and ``truth.json`` (one record per sample, its file name relative)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    records = []
    for sample in samples:
        file = None
        if sample.rendered is not None:
            file = f"{sample.id}{sample.rendered.suffix}"
            (out / file).write_bytes(sample.rendered.data)
        records.append(truth_record(sample, file))
    path = out / "truth.json"
    path.write_text(json.dumps(records, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


# -- metrics --------------------------------------------------------------------------------------------


def normalise_text(text: str) -> str:
    return " ".join(text.replace("|", " ").casefold().split())


def char_errors(reference: str, hypothesis: str) -> tuple[int, int]:
    """(edit distance, reference length) after ``normalise_text``."""
    ref, hyp = normalise_text(reference), normalise_text(hypothesis)
    return Levenshtein.distance(ref, hyp), len(ref)


def _norm_name(value: Any) -> str:
    return " ".join(str(value or "").casefold().split())


def _norm(field_name: str, value: Any) -> Any:
    if value is None or value == "":
        return None
    if field_name == "name":
        return _norm_name(value)
    if field_name == "strength":
        return str(value).replace(" ", "").casefold() or None
    if field_name in ("dose", "times_per_day", "duration_days"):
        try:
            number = float(value)
        except (TypeError, ValueError):
            return str(value)
        return None if math.isnan(number) else number
    if field_name == "times":
        return tuple(value) if value else None
    return value


@dataclass
class Counts:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    def add(self, other: Counts) -> None:
        self.tp, self.fp, self.fn = self.tp + other.tp, self.fp + other.fp, self.fn + other.fn

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def as_dict(self) -> dict[str, float]:
        return {
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
        }


def align(truth: list[dict], predicted: list[dict]) -> tuple[list[tuple[int, int]], list[int], list[int]]:
    """Pairs (truth index, predicted index) matched by name, one to one in reading order; then the
    unmatched truth and predicted indices."""
    free = list(range(len(predicted)))
    pairs, missed = [], []
    for t, med in enumerate(truth):
        name = _norm_name(med.get("name"))
        hit = next((p for p in free if _norm_name(predicted[p].get("name")) == name), None)
        if hit is None:
            missed.append(t)
        else:
            free.remove(hit)
            pairs.append((t, hit))
    return pairs, missed, free


@dataclass
class Scored:
    counts: dict[str, Counts]
    exact: int  # true medications matched with every field right
    errors: list[dict[str, Any]] = field(default_factory=list)  # one per wrong, missed or extra field


def score_medications(truth: list[dict], predicted: list[dict]) -> Scored:
    """Field counts for one prescription (the module docstring's rules)."""
    counts = {f: Counts() for f in FIELDS}
    errors: list[dict[str, Any]] = []
    pairs, missed, extra = align(truth, predicted)
    exact = 0
    for t, p in pairs:
        all_right = True
        for f in FIELDS:
            want, got = _norm(f, truth[t].get(f)), _norm(f, predicted[p].get(f))
            if want == got:
                if want is not None:
                    counts[f].tp += 1
                continue
            all_right = False
            counts[f].fp += got is not None
            counts[f].fn += want is not None
            errors.append(
                {
                    "kind": "wrong",
                    "name": truth[t]["name"],
                    "field": f,
                    "truth": truth[t].get(f),
                    "predicted": predicted[p].get(f),
                }
            )
        exact += all_right
    for t in missed:
        for f in FIELDS:
            counts[f].fn += _norm(f, truth[t].get(f)) is not None
        errors.append(
            {"kind": "missed", "name": truth[t]["name"], "field": "name", "truth": truth[t], "predicted": None}
        )
    for p in extra:
        for f in FIELDS:
            counts[f].fp += _norm(f, predicted[p].get(f)) is not None
        errors.append(
            {
                "kind": "extra",
                "name": predicted[p].get("name"),
                "field": "name",
                "truth": None,
                "predicted": predicted[p],
            }
        )
    return Scored(counts, exact, errors)


def _p95(values: list[float]) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)]


# -- running a reader -------------------------------------------------------------------------------------


def default_reader() -> ReadImage:
    # Deferred: the reader loads EasyOCR and torch, which only the image sets need.
    from health.scheduler.reading import read_prescription

    return read_prescription


def default_text_reader() -> ReadText:
    from health.scheduler.extract import extract_medications

    return extract_medications


def warm_up(read: ReadImage, seed: int = 0) -> float:
    """One read of a small printed prescription, so that timed reads find the models loaded; returns
    its seconds (the cold start)."""
    sample = make_sample("printed", 0, seed + 7919)
    assert sample.rendered is not None
    image = sample.rendered.image()
    image = image.resize((image.width // 2, image.height // 2))
    start = time.perf_counter()
    read(image)
    return time.perf_counter() - start


def evaluate(
    samples: list[Sample],
    read: ReadImage | None = None,
    read_text: ReadText | None = None,
    warm: bool = True,
    progress: Callable[[Sample, dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Read every sample and score it; returns the report (``render_report`` prints it)."""
    results: list[dict[str, Any]] = []
    cold = None
    if any(s.rendered is not None for s in samples):
        read = read or default_reader()
        if warm:
            cold = warm_up(read)
    if any(s.rendered is None for s in samples):
        read_text = read_text or default_text_reader()
    for sample in samples:
        rx = sample.prescription
        if sample.rendered is None:
            assert read_text is not None
            start = time.perf_counter()
            meds = read_text(rx.text)
            seconds = time.perf_counter() - start
            text = rx.text
        else:
            assert read is not None
            image = sample.rendered.image()
            start = time.perf_counter()
            reading = read(image)
            seconds = time.perf_counter() - start
            text, meds = reading.text, list(reading.medications)
        distance, length = char_errors(rx.visible_text, text)
        scored = score_medications(rx.medications, meds)
        result = {
            "id": sample.id,
            "set": sample.set,
            "layout": sample.layout,
            "font": sample.font,
            "seconds": seconds,
            "char_distance": distance,
            "ref_chars": length,
            "counts": {f: c.as_dict() for f, c in scored.counts.items()},
            "exact": scored.exact,
            "truth_medications": len(rx.medications),
            "errors": scored.errors,
            "text": text,
            "predicted": meds,
            "truth": rx.medications,
        }
        results.append(result)
        if progress:
            progress(sample, result)
    return summarise(results, cold_seconds=cold)


def _aggregate(results: list[dict[str, Any]]) -> dict[str, Any]:
    fields = {f: Counts() for f in FIELDS}
    for r in results:
        for f in FIELDS:
            c = r["counts"][f]
            fields[f].add(Counts(c["tp"], c["fp"], c["fn"]))
    overall = Counts()
    for c in fields.values():
        overall.add(c)
    ref = sum(r["ref_chars"] for r in results)
    seconds = [r["seconds"] for r in results]
    truth_meds = sum(r["truth_medications"] for r in results)
    return {
        "images": len(results),
        "cer": sum(r["char_distance"] for r in results) / ref if ref else 0.0,
        "fields": {f: c.as_dict() for f, c in fields.items()},
        "overall": overall.as_dict(),
        "exact": sum(r["exact"] for r in results) / truth_meds if truth_meds else 1.0,
        "seconds_mean": statistics.fmean(seconds) if seconds else 0.0,
        "seconds_p95": _p95(seconds),
    }


def summarise(results: list[dict[str, Any]], cold_seconds: float | None = None) -> dict[str, Any]:
    sets: dict[str, Any] = {}
    for set_name in dict.fromkeys(r["set"] for r in results):
        mine = [r for r in results if r["set"] == set_name]
        summary = _aggregate(mine)
        summary["layouts"] = {
            layout: {k: v for k, v in _aggregate([r for r in mine if r["layout"] == layout]).items() if k != "fields"}
            for layout in LAYOUTS
            if any(r["layout"] == layout for r in mine)
        }
        target = TARGET_F1.get(set_name)
        summary["targets"] = {
            "f1": target,
            "f1_met": None if target is None else summary["overall"]["f1"] >= target,
            "seconds": TARGET_SECONDS if set_name != "text" else None,
            "seconds_met": None if set_name == "text" else summary["seconds_mean"] <= TARGET_SECONDS,
        }
        sets[set_name] = summary
    return {"sets": sets, "cold_seconds": cold_seconds, "samples": results}


# -- printing -------------------------------------------------------------------------------------------------


def _met(flag: bool | None) -> str:
    return "-" if flag is None else ("met" if flag else "NOT met")


def render_report(report: dict[str, Any]) -> str:
    out: list[str] = []
    for set_name, s in report["sets"].items():
        t = s["targets"]
        out.append(f"\n## {set_name}: {s['images']} images")
        out.append(f"CER {s['cer']:.3f}   medications with every field right {s['exact']:.1%}")
        out.append("")
        out.append("| field | TP | FP | FN | precision | recall | F1 |")
        out.append("| --- | --- | --- | --- | --- | --- | --- |")
        for f, c in [*s["fields"].items(), ("**overall**", s["overall"])]:
            scores = f"{c['precision']:.3f} | {c['recall']:.3f} | {c['f1']:.3f}"
            out.append(f"| {f} | {c['tp']} | {c['fp']} | {c['fn']} | {scores} |")
        out.append("")
        f1_target = f"target >= {t['f1']:.2f}: {_met(t['f1_met'])}" if t["f1"] is not None else "no target"
        out.append(f"overall F1 {s['overall']['f1']:.3f} ({f1_target})")
        if set_name != "text":
            target = f"target mean <= {t['seconds']:.0f} s: {_met(t['seconds_met'])}"
            out.append(f"seconds/image mean {s['seconds_mean']:.2f}, p95 {s['seconds_p95']:.2f} ({target})")
        out.append("")
        out.append("| layout | images | CER | overall F1 | every field right |")
        out.append("| --- | --- | --- | --- | --- |")
        for layout, ls in s["layouts"].items():
            out.append(
                f"| {layout} | {ls['images']} | {ls['cer']:.3f} | {ls['overall']['f1']:.3f} | {ls['exact']:.1%} |"
            )
    if report.get("cold_seconds") is not None:
        out.append(f"\nwarm-up read (models loading): {report['cold_seconds']:.1f} s")
    return "\n".join(out).lstrip("\n")


def error_kinds(report: dict[str, Any], set_name: str) -> dict[str, list[dict[str, Any]]]:
    """A set's field errors grouped by (kind, field), each with its sample id: the failure list."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in report["samples"]:
        if r["set"] != set_name:
            continue
        for e in r["errors"]:
            groups.setdefault(f"{e['kind']} {e['field']}", []).append({"id": r["id"], "layout": r["layout"], **e})
    return dict(sorted(groups.items(), key=lambda kv: -len(kv[1])))


def write_json(path: str | Path, report: dict[str, Any]) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(report, indent=1, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
