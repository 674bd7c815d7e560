"""Conversations and their trajectories, read-only: they are the record of
what the agents did, exported in the seed paper's format."""

from __future__ import annotations

import json

from django.contrib import admin
from django.db.models import Count, QuerySet
from django.http import HttpRequest
from django.utils.html import format_html

from agents.models import AgentStep, Conversation
from health.admin.base import ReadOnlyTabularInline, ViewOnlyAdmin


def _pretty(payload: object) -> str:
    text = payload if isinstance(payload, str) else json.dumps(payload, indent=2, ensure_ascii=False)
    return format_html('<pre style="white-space: pre-wrap; margin: 0">{}</pre>', text)


class AgentStepInline(ReadOnlyTabularInline):
    model = AgentStep
    fields = ("index", "role", "pretty_payload", "latency_ms", "prompt_tokens", "completion_tokens", "created_at")
    readonly_fields = fields
    ordering = ("index",)
    # Each row already shows the whole step; a link per step would only add noise.
    show_change_link = False

    @admin.display(description="payload")
    def pretty_payload(self, step: AgentStep) -> str:
        return _pretty(step.payload)


@admin.register(Conversation)
class ConversationAdmin(ViewOnlyAdmin):
    list_display = ("__str__", "user", "kind", "status", "step_count", "error", "created_at", "updated_at")
    list_filter = ("kind", "status")
    search_fields = ("title", "error", "user__username")
    list_select_related = ("user",)
    date_hierarchy = "created_at"
    inlines = [AgentStepInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).annotate(step_total=Count("steps"))

    @admin.display(description="steps", ordering="step_total")
    def step_count(self, conversation: Conversation) -> int:
        return conversation.step_total


@admin.register(AgentStep)
class AgentStepAdmin(ViewOnlyAdmin):
    list_display = (
        "conversation",
        "index",
        "role",
        "latency_ms",
        "prompt_tokens",
        "completion_tokens",
        "created_at",
    )
    list_filter = ("role", "conversation__kind")
    search_fields = ("conversation__title", "conversation__user__username")
    list_select_related = ("conversation",)
    date_hierarchy = "created_at"
    readonly_fields = ("pretty_payload",)
    exclude = ("payload",)

    @admin.display(description="payload")
    def pretty_payload(self, step: AgentStep) -> str:
        return _pretty(step.payload)
