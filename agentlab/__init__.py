"""The lab: offline machinery around the Action Manager (``agents``), never part of the running product.

Synthetic data generation (:mod:`agentlab.data`), adapter training (:mod:`agentlab.training`),
evaluation (:mod:`agentlab.evaluation`), the speed benchmark (:mod:`agentlab.bench`), trajectory
replay (:mod:`agentlab.replay`), the shard runner (:mod:`agentlab.shards`) and their management
commands. It depends on ``agents``; no product module imports it.
"""
