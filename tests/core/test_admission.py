"""The web process lets at most WEB_MAX_CONCURRENT_REQUESTS requests into the views at once (core/admission.py)."""

from __future__ import annotations

import asyncio

from core.admission import AdmissionMiddleware


def test_a_burst_waits_its_turn_and_every_request_is_answered(settings):
    settings.WEB_MAX_CONCURRENT_REQUESTS = 3
    inside, most = 0, 0

    async def view(request):
        nonlocal inside, most
        inside += 1
        most = max(most, inside)
        await asyncio.sleep(0.01)
        inside -= 1
        return f"answer {request}"

    middleware = AdmissionMiddleware(view)

    async def burst():
        return await asyncio.gather(*(middleware(n) for n in range(20)))

    answers = asyncio.run(burst())
    assert answers == [f"answer {n}" for n in range(20)]
    assert most == 3


def test_a_new_event_loop_gets_its_own_slots(settings):
    settings.WEB_MAX_CONCURRENT_REQUESTS = 1

    async def view(request):
        await asyncio.sleep(0)
        return request

    middleware = AdmissionMiddleware(view)

    async def two():
        return await asyncio.wait_for(asyncio.gather(middleware(1), middleware(2)), 5)

    for _ in range(2):  # a semaphore bound to the first, closed loop would refuse the second
        assert asyncio.run(two()) == [1, 2]


def test_under_wsgi_it_passes_through():
    middleware = AdmissionMiddleware(lambda request: f"sync {request}")
    assert middleware("x") == "sync x"
