"""At most ``WEB_MAX_CONCURRENT_REQUESTS`` requests in Django's views at once in the web process.

Under ASGI, Django runs each request's synchronous view in a thread of its own, with a database
connection of its own. Unbounded, a burst (100 watches posting at once: ``bench_load``) opened more
PostgreSQL connections than the server allows ("too many clients": readings refused) and, on SQLite,
set dozens of writers waiting on one lock, some past their timeout ("database is locked"). Bounded,
the rest of the burst waits its turn on the event loop, where waiting costs nothing, and every
request is answered. Written here because it is a few lines around Django's own async middleware
support; a connection pooler would bound PostgreSQL alone, not SQLite's writers.

Under WSGI (the test client, ``manage.py``) there is one request per thread anyway: it passes through.
"""

from __future__ import annotations

import asyncio
import weakref

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.conf import settings


class AdmissionMiddleware:
    sync_capable = True
    async_capable = True

    def __init__(self, get_response) -> None:
        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)
        # One semaphore per event loop: a semaphore is bound to the loop it first waited on.
        self._slots: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
            weakref.WeakKeyDictionary()
        )

    def __call__(self, request):
        if self.is_async:
            return self._admitted(request)
        return self.get_response(request)

    async def _admitted(self, request):
        loop = asyncio.get_running_loop()
        slots = self._slots.get(loop)
        if slots is None:
            slots = self._slots[loop] = asyncio.Semaphore(settings.WEB_MAX_CONCURRENT_REQUESTS)
        async with slots:
            return await self.get_response(request)
