"""The generated prescription corpus and its evaluation (agentlab.prescriptions): fast, no OCR model.

A fake reader stands in for EasyOCR: it returns the page's own text and the truth (or a damaged copy),
so the metrics and the command are checked on counts worked out by hand."""

from __future__ import annotations

import hashlib
import json
import random
import re
from types import SimpleNamespace

import numpy as np
import pytest
from django.core.management import call_command

from agentlab.prescriptions import evaluate
from agentlab.prescriptions.corpus import DRUGS, LAYOUTS, TIMES_SIGN, make_prescription
from agentlab.prescriptions.render import HANDWRITING_FONTS, PRINTED_FONTS, FontMissing, FontSpec
from health.scheduler.lexicon import load_lexicon
from health.scheduler.preprocess import PrepareSettings, is_sideways, prepare

KEYS = {"name", "strength", "dose", "times_per_day", "times", "duration_days", "with_food"}
PARACETAMOL = {
    "name": "paracetamol",
    "strength": "650 mg",
    "dose": 1,
    "times_per_day": 2,
    "times": ["08:00", "20:00"],
    "duration_days": 5,
    "with_food": "after",
}
CETIRIZINE = {
    "name": "cetirizine",
    "strength": "10 mg",
    "dose": 1,
    "times_per_day": 1,
    "times": ["21:00"],
    "duration_days": None,
    "with_food": None,
}


def test_every_drug_and_brand_is_in_the_lexicon():
    lexicon = load_lexicon()
    for drug in DRUGS:
        assert lexicon.names.get(drug.generic) == drug.generic, drug.generic
        for brand in drug.brands:
            assert lexicon.names.get(brand.lower()) == drug.generic, brand


def test_generation_is_deterministic_for_a_seed():
    a = evaluate.make_sample("photo", 3, seed=5)
    b = evaluate.make_sample("photo", 3, seed=5)
    c = evaluate.make_sample("photo", 3, seed=6)
    assert a.prescription.text == b.prescription.text
    assert a.prescription.medications == b.prescription.medications
    assert a.rendered.data == b.rendered.data
    assert a.prescription.text != c.prescription.text


def test_the_text_set_is_the_printed_set_unrendered():
    printed, text = evaluate.make_sample("printed", 2, seed=1), evaluate.make_sample("text", 2, seed=1)
    assert text.rendered is None
    assert text.prescription.text == printed.prescription.text


@pytest.mark.parametrize("layout", LAYOUTS)
def test_truth_matches_what_is_written(layout):
    counts = set()
    for i in range(40):
        rx = make_prescription(random.Random(f"t:{layout}:{i}"), layout)
        assert rx.layout == layout
        counts.add(len(rx.medications))
        # No medicine twice: the reader keeps one entry per medicine, so a repeat would be a wrong truth.
        assert len({med["name"] for med in rx.medications}) == len(rx.medications)
        body = "\n".join(line.text for line in rx.lines if line.role == "body").lower()
        for med, mention in zip(rx.medications, rx.mentions, strict=True):
            assert set(med) == KEYS
            assert mention.lower() in body, (mention, body)
            assert med["times_per_day"] == len(med["times"])
            assert all(re.fullmatch(r"\d\d:\d\d", t) for t in med["times"])
            assert med["with_food"] in ("before", "after", "with", None)
            if med["strength"] is not None:
                number = med["strength"].split()[0]
                assert number in body.replace(" ", "") or number in body
        # header and footer name no medicine of the truth: they must yield nothing
        around = " ".join(line.text for line in rx.lines if line.role != "body").lower()
        for mention in rx.mentions:
            assert not re.search(rf"\b{re.escape(mention.lower())}\b", around)
        if layout == "table":
            rows = [line for line in rx.lines if line.cells]
            assert len(rows) == len(rx.medications) + 1 and all(len(r.cells) == 5 for r in rows)
    # Every layout meets short and long prescriptions (one to five medicines).
    assert counts == {1, 2, 3, 4, 5}


def test_ascii_only_prescriptions_for_fonts_without_fractions():
    for i in range(60):
        rx = make_prescription(random.Random(i), unicode_ok=False)
        assert "½" not in rx.text and TIMES_SIGN not in rx.text


def test_a_missing_font_names_its_package():
    spec = FontSpec("Nowhere Sans", "fonts-nowhere", ("/nonexistent/NowhereSans.ttf",))
    with pytest.raises(FontMissing, match="fonts-nowhere"):
        spec.path()


def test_the_fonts_are_installed():
    for spec in PRINTED_FONTS + HANDWRITING_FONTS:
        assert spec.path()


# -- metrics ---------------------------------------------------------------------------------------------


def test_perfect_prediction_scores_one():
    scored = evaluate.score_medications([PARACETAMOL, CETIRIZINE], [dict(PARACETAMOL), dict(CETIRIZINE)])
    assert scored.exact == 2 and not scored.errors
    total = evaluate.Counts()
    for c in scored.counts.values():
        total.add(c)
    # cetirizine's null duration and food count nothing: 7 + 5 fields
    assert (total.tp, total.fp, total.fn) == (12, 0, 0)
    assert total.f1 == 1.0


def test_a_wrong_strength_is_one_fp_and_one_fn():
    wrong = dict(PARACETAMOL, strength="500 mg")
    scored = evaluate.score_medications([PARACETAMOL], [wrong])
    strength = scored.counts["strength"]
    assert (strength.tp, strength.fp, strength.fn) == (0, 1, 1)
    assert scored.counts["name"].tp == 1 and scored.exact == 0
    assert scored.errors == [
        {"kind": "wrong", "name": "paracetamol", "field": "strength", "truth": "650 mg", "predicted": "500 mg"}
    ]


def test_values_compare_by_meaning_not_spelling():
    same = dict(PARACETAMOL, strength="650MG", dose=1.0, duration_days=5.0, name=" Paracetamol ")
    assert evaluate.score_medications([PARACETAMOL], [same]).exact == 1


def test_a_missing_medication_is_fn_and_an_extra_one_fp():
    scored = evaluate.score_medications([PARACETAMOL, CETIRIZINE], [dict(PARACETAMOL)])
    assert scored.counts["name"].fn == 1
    assert sum(c.fn for c in scored.counts.values()) == 5  # cetirizine's five non-null fields
    extra = dict(CETIRIZINE, name="sertraline")
    scored = evaluate.score_medications([PARACETAMOL], [dict(PARACETAMOL), extra])
    assert scored.counts["name"].fp == 1
    assert sum(c.fp for c in scored.counts.values()) == 5
    assert [e["kind"] for e in scored.errors] == ["extra"]


def test_a_spurious_value_on_a_null_field_is_fp():
    scored = evaluate.score_medications([CETIRIZINE], [dict(CETIRIZINE, with_food="after")])
    assert (scored.counts["with_food"].fp, scored.counts["with_food"].fn) == (1, 0)


def test_duplicate_names_align_one_to_one_in_order():
    pairs, missed, extra = evaluate.align([PARACETAMOL, PARACETAMOL], [PARACETAMOL, CETIRIZINE, PARACETAMOL])
    assert pairs == [(0, 0), (1, 2)] and missed == [] and extra == [1]


def test_character_error_rate_ignores_case_bars_and_spacing():
    assert evaluate.char_errors("Tab Dolo 650 | 1-0-1\nx 5 days", "TAB dolo 650  1-0-1 x 5 days") == (
        0,
        len("tab dolo 650 1-0-1 x 5 days"),
    )
    assert evaluate.char_errors("abcd", "abed") == (1, 4)


# -- the evaluation and the command on tiny data ---------------------------------------------------------------


def _oracle(samples):
    """A fake reader that returns each page's truth, except the first medication's dose on photos."""
    by_pixels = {hashlib.sha1(s.rendered.image().tobytes()).digest(): s for s in samples if s.rendered is not None}

    def read(image):
        sample = by_pixels.get(hashlib.sha1(image.tobytes()).digest())
        if sample is None:  # the warm-up image
            return SimpleNamespace(text="", medications=[])
        meds = [dict(m) for m in sample.prescription.medications]
        if sample.set == "photo":
            meds[0]["dose"] = 99
        return SimpleNamespace(text=sample.prescription.visible_text, medications=meds, seconds=0.0)

    return read


def test_evaluate_reports_per_set_and_layout():
    samples = evaluate.build_corpus(["printed", "photo", "text"], per_set=2, seed=3)
    report = evaluate.evaluate(samples, read=_oracle(samples))
    printed, photo, text = (report["sets"][k] for k in ("printed", "photo", "text"))
    assert printed["overall"]["f1"] == 1.0 and printed["cer"] == 0.0 and printed["exact"] == 1.0
    assert photo["fields"]["dose"]["fp"] == 2 and photo["fields"]["dose"]["fn"] == 2
    assert photo["targets"]["f1_met"] == (photo["overall"]["f1"] >= 0.90)
    assert text["targets"]["seconds"] is None and text["cer"] == 0.0
    assert set(printed["layouts"]) == {"indian", "us"}
    rendered = evaluate.render_report(report)
    assert "## printed: 2 images" in rendered and "| **overall** |" in rendered


def test_command_end_to_end_on_tiny_data(tmp_path, capsys):
    samples = evaluate.build_corpus(["printed", "handwriting"], per_set=1, seed=0)
    out = tmp_path / "report.json"
    call_command(
        "eval_prescriptions",
        "--per-set=1",
        "--sets=printed,handwriting",
        f"--json={out}",
        f"--out={tmp_path / 'corpus'}",
        "--errors=2",
        read=_oracle(samples),
    )
    printed = capsys.readouterr().out
    assert "## printed: 1 images" in printed and "## handwriting: 1 images" in printed
    assert "target >= 0.95: met" in printed
    report = json.loads(out.read_text())
    assert report["sets"]["handwriting"]["overall"]["f1"] == 1.0
    truth = json.loads((tmp_path / "corpus" / "truth.json").read_text())
    assert [t["id"] for t in truth] == ["printed-0000", "handwriting-0000"]
    assert (tmp_path / "corpus" / truth[0]["file"]).is_file()


def test_save_corpus_reads_nothing(tmp_path, capsys):
    call_command("eval_prescriptions", "--per-set=1", "--sets=photo", f"--save-corpus={tmp_path}")
    truth = json.loads((tmp_path / "truth.json").read_text())
    assert truth[0]["file"].endswith(".jpg") and truth[0]["medications"]
    assert "Wrote 1 prescriptions" in capsys.readouterr().out


def test_unknown_set_is_refused():
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="unknown set"):
        call_command("eval_prescriptions", "--per-set=1", "--sets=scanned")


def test_generated_photos_stay_upright_and_their_turned_copies_are_noticed():
    # Phone photos a few degrees off with a page border and shadow: two of the first ten were once
    # taken for sideways pages and read as noise.
    for index in range(10):
        sample = evaluate.make_sample("photo", index, 0)
        prepared = prepare(sample.rendered.image(), PrepareSettings())
        assert "rotated 90" not in prepared.steps, sample.id
        assert is_sideways(np.ascontiguousarray(np.rot90(prepared.gray))), sample.id
