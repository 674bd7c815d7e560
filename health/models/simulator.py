"""The browser's simulated watch: one feed per patient, its state kept here so
that any web process (and a restarted one) knows what the feed is doing.

The feed itself lives in ``health.simulator.feed``; this row is what it reads
on every tick: the scenario, whether it runs, and how far the current
scenario's readings have been ingested.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from health.models.patients import Device
from health.simulator import SCENARIOS


class WatchFeed(models.Model):
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="watch_feed")
    device = models.ForeignKey(
        Device, on_delete=models.SET_NULL, null=True, blank=True, related_name="+", help_text="The simulated watch."
    )
    scenario = models.CharField(max_length=32, choices=[(name, name) for name in SCENARIOS], default="normal")
    running = models.BooleanField(default=False)
    seed = models.PositiveIntegerField(default=0, help_text="Seed of the scenario's readings (new at every start).")
    # The current scenario's segment: begun at ``segment_started_at`` (wall
    # clock), its first reading measured at ``sim_start``; ``position`` readings
    # of it are stored. A start or a switch begins a new segment.
    segment_started_at = models.DateTimeField(null=True, blank=True)
    sim_start = models.DateTimeField(null=True, blank=True)
    position = models.PositiveIntegerField(default=0)
    last_measured_at = models.DateTimeField(null=True, blank=True)
    last_tick_at = models.DateTimeField(null=True, blank=True)
    # Since the feed was last started.
    started_at = models.DateTimeField(null=True, blank=True)
    readings_sent = models.PositiveIntegerField(default=0)
    steps = models.PositiveIntegerField(default=0)
    stopped_reason = models.CharField(max_length=80, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "simulated watch feed"

    def __str__(self) -> str:
        return f"{self.user} · {self.scenario} ({'running' if self.running else 'stopped'})"
