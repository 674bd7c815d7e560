"""The symptom bank as a data file (agents/knowledge/symptom_bank.json) and its loader."""

from __future__ import annotations

import json

import pytest

from agents.knowledge import SYMPTOM_BANK, BankError, symptom_bank


def test_the_committed_bank_loads_with_every_disease_symptom_known():
    bank = symptom_bank()
    assert len(bank.symptoms) == 445 and len(bank.diseases) == 278
    assert all(key in bank.symptoms for disease in bank.diseases for key in disease.symptoms)
    assert set(bank.child_lay) <= set(bank.symptoms)
    assert bank.countable <= set(bank.symptoms) and bank.not_noun_phrase <= set(bank.symptoms)
    assert not bank.countable & bank.not_noun_phrase
    fever = bank.symptoms["fever"]
    assert fever.clinical == "fever" and "fever" in bank.countable and fever.lay


def test_a_bank_naming_an_unknown_symptom_is_refused(tmp_path):
    data = json.loads(SYMPTOM_BANK.read_text(encoding="utf-8"))
    data["diseases"][0]["symptoms"].append("no_such_symptom")
    path = tmp_path / "bank.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(BankError, match="no_such_symptom"):
        symptom_bank(path)


def test_a_duplicate_symptom_key_is_refused(tmp_path):
    data = json.loads(SYMPTOM_BANK.read_text(encoding="utf-8"))
    first_group = next(iter(data["symptoms"].values()))
    first_group.append(dict(first_group[0]))
    path = tmp_path / "bank.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(BankError, match="duplicate symptom key"):
        symptom_bank(path)
