"""Serializers of the conversation endpoints."""

from __future__ import annotations

from rest_framework import serializers

from agents.models import AgentStep, Conversation
from agents.runtime import pending_question
from health.api.base import StrictModelSerializer, StrictSerializer


class ConversationSerializer(StrictModelSerializer):
    question = serializers.SerializerMethodField(help_text="The question the assistant waits on, if any.")

    class Meta:
        model = Conversation
        fields = ["id", "kind", "title", "status", "error", "question", "created_at", "updated_at"]
        read_only_fields = fields

    def get_question(self, conversation: Conversation) -> str | None:
        return pending_question(conversation)


class MessageSerializer(StrictSerializer):
    text = serializers.CharField(max_length=4000, trim_whitespace=True)


class AgentStepSerializer(StrictModelSerializer):
    value = serializers.JSONField(source="payload", read_only=True)

    class Meta:
        model = AgentStep
        fields = ["index", "role", "value", "latency_ms", "prompt_tokens", "completion_tokens", "created_at"]
        read_only_fields = fields
