"""Memory (seed paper §4.3): what the assistant may use about the user, and this conversation's state.

- ``items``: the long-term memory items, built read-only from the Health Manager's models;
- ``text``: the spaCy side (lemmas, symptom entities, negation);
- ``index``: per-user BM25 and dense indexes, invalidated by the source models' signals;
- ``rank``: RRF fusion and the LambdaMART re-ranker (Context Tuning);
- ``context``: the compact memory the planner reads;
- ``short_term``: the conversation's working state.
"""
