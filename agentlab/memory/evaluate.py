"""Train the LambdaMART ranker and score the memory retrievers on generated personas.

Retrievers (Context Tuning's Table 2 layout): BM25 alone, dense alone, their RRF fusion, and RRF
then LambdaMART. Recall@K is the share of a query's relevant items in the top K; NDCG@K uses the
graded labels (gain 2^rel - 1). Personas are split by persona: the model is trained on the
training personas only and every figure is measured on the test personas.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from agentlab.memory.personas import TODAY, Persona
from agents.memory.index import MemoryIndex, clauses, embed
from agents.memory.rank import CATEGORICAL, FEATURES, features
from agents.memory.text import analyse

KS = (3, 5, 10)
RETRIEVERS = ("bm25", "dense", "rrf", "rrf_lambdamart")
PARAMS = {
    "objective": "lambdarank",
    "metric": "ndcg",
    "eval_at": [3, 5, 10],
    "learning_rate": 0.05,
    "num_leaves": 15,
    "min_data_in_leaf": 20,
    "feature_fraction": 0.9,
    "bagging_fraction": 0.9,
    "bagging_freq": 1,
    "lambdarank_truncation_level": 10,
    "deterministic": True,
    "force_row_wise": True,
    "num_threads": 1,
    "seed": 0,
    "verbose": -1,
}
ROUNDS = 300


@dataclass
class Sample:
    """One query of one persona: a feature row and a label per item."""

    persona: str
    kind: str
    keys: list[str]
    rows: list[tuple[float, ...]]
    labels: list[int]


def samples(personas: list[Persona]) -> list[Sample]:
    """Feature rows and labels of every query of ``personas``."""
    # Every text embedded in large batches first (the cache then answers each query): one call
    # per item and query would take several times longer on a CPU.
    texts = [analyse(item.content).affirmed_text or item.text for p in personas for item in p.items]
    for persona in personas:
        for query in persona.queries:
            affirmed = analyse(query.text).affirmed_text
            texts += [affirmed or ".", *clauses(affirmed)]
    embed(texts)
    found = []
    for persona in personas:
        index = MemoryIndex(persona.items)
        for query in persona.queries:
            if not query.relevance:
                continue
            rows = features(index, query.text, now=TODAY)
            keys = [item.key for item in index.items]
            found.append(Sample(persona.name, query.kind, keys, rows, [query.relevance.get(k, 0) for k in keys]))
    return found


def train(training: list[Sample], rounds: int = ROUNDS):
    """A LightGBM lambdarank model on ``training`` (one group per query)."""
    import lightgbm
    import numpy as np

    x = np.asarray([row for s in training for row in s.rows], dtype=float)
    y = np.asarray([label for s in training for label in s.labels])
    data = lightgbm.Dataset(
        x,
        y,
        group=[len(s.rows) for s in training],
        feature_name=list(FEATURES),
        categorical_feature=list(CATEGORICAL),
        free_raw_data=False,
    )
    return lightgbm.train(PARAMS, data, num_boost_round=rounds)


def order(sample: Sample, retriever: str, model=None) -> list[int]:
    """Item positions of ``sample`` in the order ``retriever`` ranks them."""
    column = {"bm25": "bm25", "dense": "dense", "rrf": "rrf"}.get(retriever)
    if column is not None:
        scores = [row[FEATURES.index(column)] for row in sample.rows]
    else:
        import numpy as np

        scores = [float(s) for s in model.predict(np.asarray(sample.rows, dtype=float))]
    return sorted(range(len(scores)), key=lambda i: (-scores[i], sample.rows[i][FEATURES.index("rrf_rank")]))


def recall_at(labels: list[int], ranked: list[int], k: int) -> float:
    relevant = sum(1 for label in labels if label > 0)
    return sum(1 for i in ranked[:k] if labels[i] > 0) / relevant if relevant else 0.0


def ndcg_at(labels: list[int], ranked: list[int], k: int) -> float:
    def dcg(gains: list[int]) -> float:
        return sum((2**g - 1) / math.log2(position + 2) for position, g in enumerate(gains[:k]))

    ideal = dcg(sorted(labels, reverse=True))
    return dcg([labels[i] for i in ranked]) / ideal if ideal else 0.0


def score(test: list[Sample], model=None, retrievers: tuple[str, ...] = RETRIEVERS) -> dict[str, dict[str, float]]:
    """Mean Recall@K and NDCG@K of each retriever over ``test`` (fractions)."""
    table: dict[str, dict[str, float]] = {}
    for retriever in retrievers:
        if retriever == "rrf_lambdamart" and model is None:
            continue
        sums = {f"{metric}@{k}": 0.0 for metric in ("recall", "ndcg") for k in KS}
        for sample in test:
            ranked = order(sample, retriever, model)
            for k in KS:
                sums[f"recall@{k}"] += recall_at(sample.labels, ranked, k)
                sums[f"ndcg@{k}"] += ndcg_at(sample.labels, ranked, k)
        table[retriever] = {name: round(total / max(1, len(test)), 4) for name, total in sums.items()}
    return table


def by_kind(test: list[Sample], model) -> dict[str, dict[str, float]]:
    """Recall@5 of each retriever per query kind (where the fusion and the re-ranker help)."""
    kinds = sorted({s.kind for s in test})
    return {
        kind: {r: v["recall@5"] for r, v in score([s for s in test if s.kind == kind], model).items()} for kind in kinds
    }


def single_thread() -> None:
    """One torch thread for the encoder: on this 2-core machine, shared with other work, encoding one
    sentence took ~0.4 s with two threads and ~15 ms with one (measured)."""
    import torch

    torch.set_num_threads(1)


def run(personas: int, seed: int, model_path=None, retrain: bool = False):
    """(retrieval table, per-kind Recall@5, referral table, setup) for ``personas`` generated with
    ``seed``; the ranker is the committed one unless ``retrain`` (then trained on the train split)."""
    from agentlab.memory import referrals
    from agentlab.memory.personas import generate, split
    from agents.memory.rank import RANKER_FILE, ranker

    single_thread()
    train_personas, test_personas = split(generate(personas, seed))
    test = samples(test_personas)
    if retrain:
        model = train(samples(train_personas))
        source = f"trained now on {len(train_personas)} train personas"
    else:
        model = ranker(model_path or RANKER_FILE)
        source = str(model_path or RANKER_FILE.name)
    table = score(test, model)
    kinds = by_kind(test, model) if model is not None else {}
    refer = referrals.evaluate(referrals.cases(test_personas, seed), model)
    setup = {
        "personas": personas,
        "test_personas": len(test_personas),
        "test_queries": len(test),
        "seed": seed,
        "ranker": source,
    }
    return table, kinds, refer, setup
