"""The product's entry points to long-term memory: rank a user's items for what they just said."""

from __future__ import annotations

import datetime as dt

from django.utils import timezone

from agents.memory.index import index_for
from agents.memory.rank import Ranked, feature, rank

# A past complaint is "about the same thing" when it names a symptom the query affirms, or shares
# a body system with it and reads somewhat alike, or reads clearly alike. Cosines of
# all-MiniLM-L6-v2 between unrelated complaints are ~0.1-0.3 and between two wordings of the
# same complaint ~0.5-0.8.
RELATED_DENSE = 0.5
SAME_SYSTEM_DENSE = 0.3


def recall(user, query: str, *, k: int | None = None, kinds: tuple[str, ...] | None = None, now=None) -> list[Ranked]:
    """The user's memory items, most relevant to ``query`` first (``kinds``: only these)."""
    moment = now or timezone.now()
    ranked = rank(index_for(user, now), query, now=local_day(user, moment))
    if kinds is not None:
        ranked = [r for r in ranked if r.item.kind in kinds]
    return ranked[:k] if k is not None else ranked


def is_related(ranked: Ranked) -> bool:
    """Whether a ranked item is about what the query is about (not merely the least unrelated)."""
    if feature(ranked, "concepts") > 0:
        return True
    dense = feature(ranked, "dense")
    return dense >= RELATED_DENSE or (feature(ranked, "systems") > 0 and dense >= SAME_SYSTEM_DENSE)


def local_day(user, moment: dt.datetime) -> dt.date:
    from health.models.appointments import patient_zone

    return moment.astimezone(patient_zone(user)).date()
