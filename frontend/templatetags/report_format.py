"""Filters of the Reports pages."""

from __future__ import annotations

from django import template

from health.reports.narrative import hours_and_minutes

register = template.Library()


@register.filter
def hours_minutes(minutes: float | None) -> str:
    """135.5 -> "2 h 16 min"; None stays empty (the template says what is missing)."""
    return "" if minutes is None else hours_and_minutes(minutes)


@register.filter
def thousands(number: int | None) -> str:
    """12389 -> "12,389"."""
    return "" if number is None else f"{number:,}"
