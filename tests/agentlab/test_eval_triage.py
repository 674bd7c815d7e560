"""``eval_triage`` on a tiny folder: it scores the real triage's first specialization."""

from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command

from agentlab.data.bank import DISEASES

RASH = "I have an itchy red rash with dry, scaly patches on my elbows and knees"


@pytest.fixture
def folder(tmp_path, settings):
    settings.TRIAGE_INDEX_DIR = str(tmp_path / "index")
    eval_dir = tmp_path / "eval"
    eval_dir.mkdir()
    (eval_dir / "symptom2disease.csv").write_text(
        f'index,label,text\n0,Made-up Rash,"{RASH}"\n1,Made-up Wrong,"{RASH}"\n', encoding="utf-8"
    )
    (eval_dir / "symptom2disease_specialists.json").write_text(
        json.dumps({"Made-up Rash": ["Dermatologist"], "Made-up Wrong": ["urologist"]}), encoding="utf-8"
    )
    return eval_dir


def test_the_first_specialization_is_scored_against_each_labels_list(folder, tmp_path, capsys):
    out = tmp_path / "triage.json"

    call_command("eval_triage", "--generated", "0", "--hand-written", "", "--s2d-dir", str(folder), "--json", str(out))

    report = json.loads(out.read_text())["symptom2disease"]
    assert (report["cases"], report["right"]) == (2, 1)
    assert report["groups"] == {"Made-up Rash": {"right": 1, "cases": 1}, "Made-up Wrong": {"right": 0, "cases": 1}}
    printed = capsys.readouterr().out
    assert "1 of 2 (50.0 %)" in printed and "Target 90% of the complaints: not met." in printed
    assert RASH not in printed and RASH not in out.read_text()  # evaluation text is never echoed


def test_generated_complaints_cover_every_disease_grouped_by_who_examines_first(folder, tmp_path):
    out = tmp_path / "triage.json"

    call_command("eval_triage", "--generated", "1", "--hand-written", "", "--no-s2d", "--json", str(out))

    report = json.loads(out.read_text())["generated"]
    assert report["cases"] == len(DISEASES)
    assert set(report["groups"]) == {d.examined_first_by for d in DISEASES}
    assert "oncologist" not in report["groups"]
    assert report["right"] > report["cases"] / 2  # far above chance (1 in 23), whatever the exact figure


def test_a_missing_folder_is_a_clear_error(tmp_path):
    with pytest.raises(CommandError, match=r"No symptom2disease\.csv"):
        call_command("eval_triage", "--generated", "0", "--s2d-dir", str(tmp_path / "nowhere"))


def test_hand_written_complaints_are_scored_per_specialization(tmp_path, settings):
    settings.TRIAGE_INDEX_DIR = str(tmp_path / "index")
    lines = tmp_path / "hand.jsonl"
    lines.write_text(
        json.dumps({"text": RASH, "specialization": "Dermatologist"})
        + "\n\n"
        + json.dumps({"text": RASH, "specialization": "urologist"})
        + "\n",
        encoding="utf-8",
    )
    out = tmp_path / "triage.json"

    call_command("eval_triage", "--generated", "0", "--no-s2d", "--hand-written", str(lines), "--json", str(out))

    report = json.loads(out.read_text())["hand_written"]
    assert (report["cases"], report["right"]) == (2, 1)
    assert report["groups"] == {"dermatologist": {"right": 1, "cases": 1}, "urologist": {"right": 0, "cases": 1}}


def test_the_committed_hand_written_set_names_directory_specializations_only():
    from agentlab.evaluation.triage import HAND_WRITTEN
    from health import demo_data

    directory = {row.name for row in demo_data.SPECIALIZATIONS}
    rows = [json.loads(line) for line in HAND_WRITTEN.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(rows) >= 100
    assert {row["specialization"] for row in rows} <= directory
    assert len({row["text"] for row in rows}) == len(rows)


def test_a_malformed_hand_written_line_is_a_clear_error(tmp_path, settings):
    settings.TRIAGE_INDEX_DIR = str(tmp_path / "index")
    lines = tmp_path / "hand.jsonl"
    lines.write_text('{"text": "a rash"}\n', encoding="utf-8")

    with pytest.raises(CommandError, match=r"line 1: not a \{text, specialization\} object"):
        call_command("eval_triage", "--generated", "0", "--no-s2d", "--hand-written", str(lines))
