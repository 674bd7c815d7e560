"""At most ``WEB_MAX_CONCURRENT_REQUESTS`` HTTP requests inside Django at once in the web process,
each on one of as many long-lived threads ("lanes").

Under ASGI, Django runs each request's synchronous code in a thread of its own, with a database
connection of its own. Unbounded, a burst (100 watches posting at once: ``bench_load``) opened more
PostgreSQL connections than the server allows ("too many clients": readings refused). Bounded, the
rest of the burst waits its turn on the event loop, where waiting holds no thread and no connection.

Django's ASGI handler also made that thread new for every request (a ThreadSensitiveContext of its
own), and with it a new database connection: under 100 readings a second, starting threads, opening
connections and shutting the threads down again took about a fifth of the web process's time. A
request here runs in a ThreadSensitiveContext that uses a lane's executor (asgiref's own way to
give a context an executor; Django's inner context then keeps it), so its synchronous code runs on
a thread that lives as long as the process, and that thread's connection is kept between requests
(``CONN_MAX_AGE``), as under a WSGI server's fixed pool of threads.

An ASGI wrapper around Django's HTTP application (``backend/asgi.py``), not a Django middleware:
Django runs an async middleware in sync mode as soon as any middleware inside it is sync-only, so a
bound there would never hold. Written here because it is a queue around one call; a connection
pooler would bound PostgreSQL's connections but not the threads.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import ThreadSensitiveContext
from django.conf import settings

# One executor of one thread per lane, for the life of the process: every event loop's lanes use
# them (a test runs several loops one after the other; daphne runs one).
_executors: list[ThreadPoolExecutor] = []
_executors_lock = threading.Lock()


def _lane_executors(count: int) -> list[ThreadPoolExecutor]:
    with _executors_lock:
        while len(_executors) < count:
            _executors.append(ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"web-lane-{len(_executors)}"))
        return _executors[:count]


class Admission:
    def __init__(self, app) -> None:
        self.app = app
        # One queue of free lanes per event loop: an asyncio queue is bound to the loop it first waited on.
        self._lanes: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Queue] = weakref.WeakKeyDictionary()

    def _free_lanes(self) -> asyncio.Queue:
        loop = asyncio.get_running_loop()
        lanes = self._lanes.get(loop)
        if lanes is None:
            lanes = self._lanes[loop] = asyncio.Queue()
            for executor in _lane_executors(settings.WEB_MAX_CONCURRENT_REQUESTS):
                lanes.put_nowait(executor)
        return lanes

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        lanes = self._free_lanes()
        lane = await lanes.get()
        try:
            async with ThreadSensitiveContext(executor=lane):
                await self.app(scope, receive, send)
        finally:
            lanes.put_nowait(lane)
