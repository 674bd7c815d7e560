"""Websocket consumer of a signed-in user's live event feed."""

from __future__ import annotations

from channels.generic.websocket import AsyncJsonWebsocketConsumer

from core.events import Event
from core.realtime import user_group


class UserEventsConsumer(AsyncJsonWebsocketConsumer):
    """Forwards events pushed to the user's group; anonymous sockets are refused."""

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=4401)
            return
        self.group = user_group(user.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send_json({"event": Event.HELLO.value, "data": {"user": user.get_username()}})

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def user_event(self, message: dict) -> None:
        await self.send_json({"event": message["event"], "data": message["data"]})
