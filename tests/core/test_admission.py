"""The web process lets at most WEB_MAX_CONCURRENT_REQUESTS HTTP requests into Django at once (core/admission.py)."""

from __future__ import annotations

import asyncio

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
