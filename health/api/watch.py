"""/api/watch/simulator/: the signed-in patient's simulated watch (the browser's
Watch panel). GET says what it is doing; POST starts, stops or switches it.
The feed itself is ``health.simulator.feed``."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from health.api.base import StrictSerializer
from health.models import WatchFeed
from health.simulator import SCENARIOS
from health.simulator import feed as watch_feed


class ScenarioSerializer(StrictSerializer):
    name = serializers.CharField(help_text="What to send as scenario.")
    label = serializers.CharField()
    description = serializers.CharField()
    expected_alert = serializers.CharField(allow_null=True, help_text="The soft SOS this scenario should raise.")


class WatchFeedSerializer(StrictSerializer):
    scenario = serializers.ChoiceField(choices=SCENARIOS)
    running = serializers.BooleanField()
    device = serializers.IntegerField(allow_null=True, help_text="The simulated watch the readings come from.")
    started_at = serializers.DateTimeField(allow_null=True)
    stops_at = serializers.DateTimeField(allow_null=True, help_text="When a running feed stops by itself.")
    readings = serializers.IntegerField(help_text="Readings stored since the feed was last started.")
    steps = serializers.IntegerField(help_text="Steps counted since the feed was last started.")
    stopped_reason = serializers.CharField(allow_blank=True)
    speed = serializers.FloatField(help_text="Simulated seconds per second (1: real time).")
    version = serializers.FloatField(help_text="Grows with every change of the feed; older states are stale.")
    scenarios = ScenarioSerializer(many=True)


class WatchFeedControlSerializer(StrictSerializer):
    scenario = serializers.ChoiceField(
        choices=SCENARIOS,
        required=False,
        error_messages={"invalid_choice": f'Unknown scenario "{{input}}"; choose one of: {", ".join(SCENARIOS)}.'},
        help_text="Switch to this scenario (at once if the feed runs, else at the next start).",
    )
    running = serializers.BooleanField(required=False, help_text="true starts the feed, false stops it.")

    def validate(self, attrs: dict) -> dict:
        if not attrs:
            raise serializers.ValidationError("Send a scenario, running (true or false), or both.")
        return attrs


class WatchSimulatorView(APIView):
    """The patient's simulated watch: readings of the chosen scenario, about one
    a second, stored as a real watch's are (so the monitor and soft SOS see them).
    A running feed stops by itself after 30 minutes."""

    @staticmethod
    def _answer(feed: WatchFeed | None) -> Response:
        return Response({**watch_feed.describe(feed), "scenarios": watch_feed.scenarios()})

    @extend_schema(responses=WatchFeedSerializer)
    def get(self, request: Request) -> Response:
        feed = WatchFeed.objects.filter(user=request.user).first()
        if watch_feed.is_running(feed):
            # Picks a feed up again after the server restarted.
            watch_feed.ensure_driver(request.user.pk)
        return self._answer(feed)

    @extend_schema(request=WatchFeedControlSerializer, responses=WatchFeedSerializer)
    def post(self, request: Request) -> Response:
        control = WatchFeedControlSerializer(data=request.data)
        control.is_valid(raise_exception=True)
        feed = watch_feed.control(request.user, **control.validated_data)
        return self._answer(feed)
