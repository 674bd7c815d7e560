"""train_first_step on tiny data: it writes a classifier agents/first_step.py can load, with a
threshold chosen by the rule (the lowest from which on no held-out model request is routed away and
few routes go to the wrong desk)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from django.core.management import call_command

from agentlab.training import first_step as training


def test_the_threshold_is_the_lowest_that_takes_no_model_request_and_few_wrong_desks():
    table = {
        0.5: {"model_taken": 3, "desk_right": 90, "wrong_desk": 1},
        0.6: {"model_taken": 0, "desk_right": 80, "wrong_desk": 5},  # 6 % to the wrong desk
        0.7: {"model_taken": 0, "desk_right": 60, "wrong_desk": 1},
        0.8: {"model_taken": 1, "desk_right": 40, "wrong_desk": 0},  # a higher step that takes one: not safe
        0.9: {"model_taken": 0, "desk_right": 20, "wrong_desk": 0},
    }
    assert training.choose(table) == 0.9
    del table[0.8]
    assert training.choose(table) == 0.7
    assert training.choose({0.5: {"model_taken": 1}, 0.9: {"model_taken": 1}}) == 0.9


def test_the_scope_threshold_is_a_step_above_the_lowest_that_refuses_no_other_request_nor_complaint():
    table = {
        0.5: {"care_refused": 2, "complaints_refused": 5},
        0.7: {"care_refused": 0, "complaints_refused": 1},  # a complaint refused: not safe
        0.9: {"care_refused": 0, "complaints_refused": 0},
        0.95: {"care_refused": 0, "complaints_refused": 0},
    }
    assert training.choose_scope(table) == 0.95
    del table[0.95]
    assert training.choose_scope(table) == 0.9  # the top of the grid: no step above it
    assert training.choose_scope(table, floor=0.95) == 0.95  # never below a desk route's threshold
    table[0.95] = {"care_refused": 1, "complaints_refused": 0}  # a higher step that refuses one: none is safe
    assert training.choose_scope(table) is None


@pytest.mark.django_db  # the rules it asks which requests they leave to the model read the directory
def test_the_command_writes_a_classifier_and_its_card(tmp_path, settings):
    out = tmp_path / "first_step.npz"

    call_command("train_first_step", "--per-case", "6", "--per-disease", "1", "--out", str(out))

    data = np.load(out)
    card = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    assert list(data["classes"]) == card["classes"] and len(card["classes"]) == 12
    assert data["coef"].shape == (12, 384)
    assert float(data["threshold"]) in training.GRID
    table = {float(k): v for k, v in card["cross_validation"].items()}
    assert card["threshold"] == training.choose(table)
    assert card["scope_threshold"] == training.choose_scope(table, floor=card["threshold"])
    assert ("scope_threshold" in data.files) == (card["scope_threshold"] is not None)
    assert all("complaints_refused" in row and "care_refused" in row for row in table.values())
