"""The agent flows the Health Manager starts, and the registry the Action Manager fills.

``health`` never imports ``agents`` (layers point one way: agents -> health -> core).
Where an SOS needs the Action Manager (the hard SOS start and end sequences, the soft
SOS notification, seed paper D.4 to D.6), the Health Manager calls the handlers
registered here; ``agents`` registers them in its ``AppConfig.ready()``, the way
Django apps connect signal receivers. A run is named by the alert and its kind, and
described by the plain facts the SOS bookkeeping needs (its conversation id and status).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from django.core.exceptions import ImproperlyConfigured

HARD_SOS_START = "hard_sos_start"
HARD_SOS_END = "hard_sos_end"
SOFT_SOS = "soft_sos"
# A run's statuses in which it has not finished (agents.models.Conversation.Status).
UNFINISHED = ("idle", "running")


@dataclass(frozen=True)
class Run:
    """An agent run about an alert: its conversation and where it stands."""

    conversation_id: int
    status: str

    @property
    def finished(self) -> bool:
        return self.status not in UNFINISHED


class SosFlows(Protocol):
    def run(self, alert_id: int, kind: str) -> Run:
        """Run (or resume, or find finished) the ``kind`` flow about ``alert_id``; it completes
        even without a model (the Action Manager's guard)."""

    def status(self, conversation_id: int) -> str | None:
        """The status of the run with this conversation (None when there is none)."""

    def quiet_runs(self, conversation_ids: Iterable[int], since: dt.datetime) -> list[int]:
        """Those of the conversations still running that have written no step since ``since``."""


_registered: SosFlows | None = None


def register(flows: SosFlows) -> None:
    """Called once by the Action Manager's ``AppConfig.ready()``."""
    global _registered
    _registered = flows


def sos_flows() -> SosFlows:
    if _registered is None:
        raise ImproperlyConfigured("No SOS flows are registered: is the 'agents' app installed?")
    return _registered
