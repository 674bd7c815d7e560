"""The live event feed: a signed-in user's tabs receive what is pushed to them,
and nobody else's."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client

from backend.asgi import application
from core.realtime import push_to_user

pytestmark = pytest.mark.django_db(transaction=True)


def session_headers(user) -> list[tuple[bytes, bytes]]:
    client = Client()
    client.force_login(user)
    cookie = f"sessionid={client.cookies['sessionid'].value}"
    return [(b"origin", b"http://127.0.0.1"), (b"cookie", cookie.encode())]


def test_an_anonymous_socket_is_refused():
    async def scenario():
        communicator = WebsocketCommunicator(application, "/ws/events/", headers=[(b"origin", b"http://127.0.0.1")])
        connected, code = await communicator.connect()
        assert not connected or code == 4401
        await communicator.disconnect()

    async_to_sync(scenario)()


def test_a_socket_from_a_foreign_origin_is_refused(alice):
    headers = [(b"origin", b"http://evil.example"), *session_headers(alice)[1:]]

    async def scenario():
        communicator = WebsocketCommunicator(application, "/ws/events/", headers=headers)
        connected, _ = await communicator.connect()
        assert not connected
        await communicator.disconnect()

    async_to_sync(scenario)()


def test_events_pushed_to_a_user_reach_only_that_users_socket(alice, bob):
    alice_headers, bob_headers = session_headers(alice), session_headers(bob)

    async def scenario():
        alice_socket = WebsocketCommunicator(application, "/ws/events/", headers=alice_headers)
        bob_socket = WebsocketCommunicator(application, "/ws/events/", headers=bob_headers)
        assert (await alice_socket.connect())[0]
        assert (await bob_socket.connect())[0]
        assert (await alice_socket.receive_json_from())["event"] == "hello"
        assert (await bob_socket.receive_json_from())["event"] == "hello"

        await sync_to_async(push_to_user)(alice.pk, "notification", {"title": "Appointment confirmed"})
        message = await alice_socket.receive_json_from(timeout=5)
        assert message == {"event": "notification", "data": {"title": "Appointment confirmed"}}
        assert await bob_socket.receive_nothing(timeout=0.5)
        await alice_socket.disconnect()
        await bob_socket.disconnect()

    async_to_sync(scenario)()


def test_nothing_is_pushed_from_a_muted_context(alice):
    """GIVEN alice's open tab
    WHEN an event is pushed inside realtime.muted() (a generated conversation), then one after it
    THEN only the one after it arrives."""
    from core.realtime import muted

    def push_muted_then_live():
        with muted():
            push_to_user(alice.pk, "notification", {"title": "generated"})
        push_to_user(alice.pk, "notification", {"title": "live"})

    headers = session_headers(alice)

    async def scenario():
        socket = WebsocketCommunicator(application, "/ws/events/", headers=headers)
        assert (await socket.connect())[0]
        assert (await socket.receive_json_from())["event"] == "hello"
        await sync_to_async(push_muted_then_live)()
        assert (await socket.receive_json_from(timeout=5))["data"] == {"title": "live"}
        assert await socket.receive_nothing(timeout=0.5)
        await socket.disconnect()

    async_to_sync(scenario)()


@pytest.mark.skipif(not settings.REDIS_URL, reason="needs the Redis channel layer (REDIS_URL)")
def test_an_idle_socket_on_the_redis_layer_stays_open_and_still_delivers(alice):
    """GIVEN alice's tab on the real Redis channel layer, with nothing to tell her for 12 s
    (channels_redis waits for messages in 5 s blocking reads; under redis-py 8's default 5 s
    socket timeout each idle read failed and closed the socket every ~7 s)
    THEN the socket is still open afterwards and an event pushed then arrives."""
    assert "RedisChannelLayer" in settings.CHANNEL_LAYERS["default"]["BACKEND"]
    headers = session_headers(alice)

    async def scenario():
        socket = WebsocketCommunicator(application, "/ws/events/", headers=headers)
        assert (await socket.connect())[0]
        assert (await socket.receive_json_from())["event"] == "hello"
        assert await socket.receive_nothing(timeout=12, interval=0.5)
        assert await socket.receive_nothing(timeout=0.1)  # raises what ended the consumer, if anything did
        await sync_to_async(push_to_user)(alice.pk, "notification", {"title": "still here"})
        assert (await socket.receive_json_from(timeout=5))["data"] == {"title": "still here"}
        await socket.disconnect()

    async_to_sync(scenario)()
