"""Evaluation of the Action Manager's planner and caller models (issue 4 §5).

* :mod:`agentlab.evaluation.metrics`: pure scoring functions (BLEU, ROUGE, the
  caller's ToolAcc/ParamAcc/ValuesAcc, CAMPHOR's Tool F1 and Plan F1).
* :mod:`agentlab.evaluation.offline`: runs a backend over the SFT test split,
  one prompt at a time (``manage.py agent_eval``).
* :mod:`agentlab.evaluation.scenarios`: whole conversations through the live
  runtime with a simulated user, checked in the database
  (``manage.py agent_scenarios``).
"""
