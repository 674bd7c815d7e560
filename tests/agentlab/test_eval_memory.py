"""The memory lab: generated personas, the metrics, and ``eval_memory``'s table and JSON."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from agentlab.memory import evaluate
from agentlab.memory.personas import generate, split


def test_personas_are_the_same_for_the_same_seed_and_split_by_persona():
    first, again, other = generate(6, seed=3), generate(6, seed=3), generate(6, seed=4)

    assert [[q.text for q in p.queries] for p in first] == [[q.text for q in p.queries] for p in again]
    assert [[q.text for q in p.queries] for p in first] != [[q.text for q in p.queries] for p in other]
    train, test = split(first)
    assert {p.name for p in train}.isdisjoint({p.name for p in test}) and len(train) + len(test) == 6


def test_queries_are_implicit_and_every_label_names_an_item_of_the_persona():
    for persona in generate(10, seed=0):
        keys = {item.key for item in persona.items}
        for query in persona.queries:
            assert set(query.relevance) <= keys
            texts = [i.text for i in persona.items if query.relevance.get(i.key) == 2 and i.kind == "complaint"]
            # A recurrence query says the symptoms in lay words, not the complaint's clinical wording.
            assert all(text.split(": ", 1)[1].split(";")[0] not in query.text for text in texts)


def test_recall_and_ndcg_count_what_is_in_the_top_k():
    labels = [0, 2, 0, 1]
    assert evaluate.recall_at(labels, [1, 0, 2, 3], 1) == 0.5
    assert evaluate.recall_at(labels, [1, 3, 0, 2], 2) == 1.0
    assert evaluate.ndcg_at(labels, [1, 3, 0, 2], 3) == pytest.approx(1.0)
    assert evaluate.ndcg_at(labels, [0, 2, 3, 1], 3) < 0.5


@pytest.mark.slow
def test_eval_memory_prints_the_table_and_writes_one_object_per_retriever(tmp_path, capsys):
    out = tmp_path / "memory.json"

    call_command("eval_memory", personas=8, seed=1, train=True, json_out=str(out))

    printed = capsys.readouterr().out
    assert "| retriever | R@3 | R@5 | R@10 | NDCG@3 | NDCG@5 | NDCG@10 |" in printed
    assert "| RRF + LambdaMART |" in printed and "without memory | with memory" in printed
    table = json.loads(out.read_text())
    assert set(table) == {"bm25", "dense", "rrf", "rrf_lambdamart"}
    for row in table.values():
        assert set(row) == {"recall@3", "recall@5", "recall@10", "ndcg@3", "ndcg@5", "ndcg@10"}
        assert all(0.0 <= value <= 1.0 for value in row.values())
        assert row["recall@3"] <= row["recall@5"] <= row["recall@10"]
