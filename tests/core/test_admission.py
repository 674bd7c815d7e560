"""The web process lets at most WEB_MAX_CONCURRENT_REQUESTS HTTP requests into Django at once (core/admission.py)."""

from __future__ import annotations

import asyncio
import threading

import pytest
from asgiref.sync import sync_to_async
from channels.testing import HttpCommunicator
from django.core.asgi import get_asgi_application
from django.core.signals import request_started

from core.admission import Admission


def _counting_app():
    seen = {"inside": 0, "most": 0, "answered": []}

    async def app(scope, receive, send):
        seen["inside"] += 1
        seen["most"] = max(seen["most"], seen["inside"])
        await asyncio.sleep(0.01)
        seen["inside"] -= 1
        seen["answered"].append(scope["n"])

    return app, seen


def test_a_burst_waits_its_turn_and_every_request_is_answered(settings):
    settings.WEB_MAX_CONCURRENT_REQUESTS = 3
    app, seen = _counting_app()
    admitted = Admission(app)

    async def burst():
        await asyncio.gather(*(admitted({"type": "http", "n": n}, None, None) for n in range(20)))

    asyncio.run(burst())
    assert sorted(seen["answered"]) == list(range(20))
    assert seen["most"] == 3


def test_websockets_are_not_counted(settings):
    settings.WEB_MAX_CONCURRENT_REQUESTS = 1
    app, seen = _counting_app()
    admitted = Admission(app)

    async def sockets():
        await asyncio.gather(*(admitted({"type": "websocket", "n": n}, None, None) for n in range(5)))

    asyncio.run(sockets())
    assert seen["most"] == 5


def test_a_new_event_loop_gets_its_own_slots(settings):
    settings.WEB_MAX_CONCURRENT_REQUESTS = 1
    app, seen = _counting_app()
    admitted = Admission(app)

    async def two():
        calls = [admitted({"type": "http", "n": n}, None, None) for n in (1, 2)]
        await asyncio.wait_for(asyncio.gather(*calls), 5)

    for _ in range(2):  # a semaphore bound to the first, closed loop would refuse the second
        asyncio.run(two())
    assert len(seen["answered"]) == 4


def test_requests_run_their_synchronous_code_on_the_same_few_long_lived_threads(settings):
    """Django's own handler started a thread (and a database connection) for every request."""
    settings.WEB_MAX_CONCURRENT_REQUESTS = 3
    threads = []

    async def app(scope, receive, send):
        threads.append(await sync_to_async(threading.current_thread)())
        await asyncio.sleep(0.001)

    admitted = Admission(app)

    async def burst():
        await asyncio.gather(*(admitted({"type": "http"}, None, None) for _ in range(30)))

    for _ in range(2):  # and across event loops, one after the other
        asyncio.run(burst())
    assert len(threads) == 60
    assert len(set(threads)) <= 3
    assert all(thread.name.startswith("web-lane-") and thread.is_alive() for thread in threads)


# transaction=True: Django's request signals check the lane thread's database connection, which an
# earlier request of the suite (a live server's) may have opened.
@pytest.mark.django_db(transaction=True)
def test_a_django_request_runs_in_a_lane(settings):
    settings.WEB_MAX_CONCURRENT_REQUESTS = 2
    started_on = []

    def started(**kwargs):
        started_on.append(threading.current_thread().name)

    request_started.connect(started)
    try:

        async def two_requests():
            admitted = Admission(get_asgi_application())
            for _ in range(2):
                communicator = HttpCommunicator(admitted, "GET", "/no-such-page/", headers=[(b"host", b"localhost")])
                answer = await communicator.get_response(timeout=10)
                assert answer["status"] == 404

        asyncio.run(two_requests())
    finally:
        request_started.disconnect(started)
    assert len(started_on) == 2 and all(name.startswith("web-lane-") for name in started_on)
