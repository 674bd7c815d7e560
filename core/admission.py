"""At most ``WEB_MAX_CONCURRENT_REQUESTS`` HTTP requests inside Django at once in the web process.

Under ASGI, Django runs each request's synchronous view in a thread of its own, with a database
connection of its own. Unbounded, a burst (100 watches posting at once: ``bench_load``) opened more
PostgreSQL connections than the server allows ("too many clients": readings refused). Bounded, the
rest of the burst waits its turn on the event loop, where waiting holds no thread and no connection.

An ASGI wrapper around Django's HTTP application (``backend/asgi.py``), not a Django middleware:
Django runs an async middleware in sync mode as soon as any middleware inside it is sync-only, so a
bound there would never hold. Written here because it is a semaphore around one call; a connection
pooler would bound PostgreSQL's connections but not the threads.
"""

from __future__ import annotations

import asyncio
import weakref

from django.conf import settings


class Admission:
    def __init__(self, app) -> None:
        self.app = app
        # One semaphore per event loop: a semaphore is bound to the loop it first waited on.
        self._slots: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
            weakref.WeakKeyDictionary()
        )

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        loop = asyncio.get_running_loop()
        slots = self._slots.get(loop)
        if slots is None:
            slots = self._slots[loop] = asyncio.Semaphore(settings.WEB_MAX_CONCURRENT_REQUESTS)
        async with slots:
            await self.app(scope, receive, send)
