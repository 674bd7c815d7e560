"""Conversations and their agent steps, stored in the seed paper's trajectory
states (system, user, planner, caller, observation), one row per state."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Conversation(models.Model):
    class Kind(models.TextChoices):
        CHAT = "chat", "Chat"
        SOFT_SOS = "soft_sos", "Soft SOS"
        HARD_SOS_START = "hard_sos_start", "Hard SOS start"
        HARD_SOS_END = "hard_sos_end", "Hard SOS end"
        REMINDER = "reminder", "Reminder from prescription"

    class Status(models.TextChoices):
        IDLE = "idle", "Idle"
        RUNNING = "running", "Running"
        WAITING_INPUT = "waiting_input", "Waiting for the user"
        COMPLETED = "completed", "Completed"
        FAILED = "failed", "Failed"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="conversations")
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.CHAT)
    title = models.CharField(max_length=160, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.IDLE)
    error = models.CharField(max_length=255, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at"]

    def __str__(self) -> str:
        return self.title or f"{self.get_kind_display()} #{self.pk}"


class AgentStep(models.Model):
    class Role(models.TextChoices):
        SYSTEM = "system", "System"
        USER = "user", "User"
        PLANNER = "planner", "Planner"
        CALLER = "caller", "Caller"
        OBSERVATION = "observation", "Observation"

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="steps")
    index = models.PositiveIntegerField(help_text="Position in the trajectory, from 0.")
    role = models.CharField(max_length=12, choices=Role.choices)
    payload = models.JSONField(help_text="The state's 'value' in the seed paper's trajectory format.")
    latency_ms = models.PositiveIntegerField(null=True, blank=True)
    prompt_tokens = models.PositiveIntegerField(null=True, blank=True)
    completion_tokens = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["conversation_id", "index"]
        constraints = [
            models.UniqueConstraint(fields=["conversation", "index"], name="agentstep_unique_index"),
        ]

    def __str__(self) -> str:
        return f"{self.conversation_id}#{self.index} {self.role}"

    def to_state(self) -> dict:
        """This step as one state of a §6.1.1 trajectory."""
        return {"from": self.role, "value": self.payload}
