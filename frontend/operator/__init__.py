"""The operator's overview inside the Django admin: alerts, appointments, the outbox, doses,
agent runs and the deployed model. It reads both managers, so it sits in the top layer."""
