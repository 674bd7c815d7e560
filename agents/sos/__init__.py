"""The Action Manager's part of an SOS: the flows (``agents.sos.flows``) and the guard that makes
them complete whatever the model does (``agents.sos.guard``). The whole story is told in
``health.sos``."""
