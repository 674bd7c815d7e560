from __future__ import annotations

from django.urls import path

from frontend.consumers import UserEventsConsumer

websocket_urlpatterns = [
    path("ws/events/", UserEventsConsumer.as_asgi()),
]
