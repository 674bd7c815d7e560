"""The load benchmark: watches and chats against `make run`'s server on 127.0.0.1.

``python manage.py bench_load`` (agentlab/management/commands/bench_load.py) starts the whole stack
of `make run` (scripts/run_local.py: web, worker, OCR worker, beat) on a throwaway database, makes
one patient per simulated watch, each with a paired device, then for a fixed time:

- every watch posts one reading a second with its device token, as a real watch would;
- each chat session (a signed-in patient with the events websocket open) asks a question, waits for
  the answer (the conversation's status pushed over the websocket), and asks the next;
- the process tree's CPU and memory are sampled once a second.

It prints readings sent vs stored (read back from the database: they must be equal), ingestion
latency percentiles, chat turn latency, the delay from a reading's POST to its event on the
websocket, errors, CPU and RAM. The load generator stops by itself after ``seconds``.

Written with asyncio and aiohttp rather than locust: the measures that matter here (a reading's
event arriving on the patient's websocket, a chat turn ending on a pushed status) need the
websocket and the HTTP session of one patient in one place, and the stack is started and stopped
by the same command. Nothing here imports Django: it drives the app from outside, like a client.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import os
import random
import re
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
from yarl import URL

from core.ports import free_port

ROOT = Path(__file__).resolve().parents[1]
PASSWORD = "load-bench-password-1"
# What the chat sessions ask, in turn: the questions patients ask most (answered from the records),
# and one complaint that the planner model handles.
CHAT_TURNS = (
    "what's my next appointment?",
    "what doses do I have today?",
    "how was my day?",
    "I have had a sore throat and a mild fever since yesterday",
)
CHAT_TURN_TIMEOUT = 180.0
FINISHED = ("waiting_input", "completed", "failed")


@dataclass
class Stack:
    base: str
    env: dict[str, str]
    process: subprocess.Popen
    output: list[str]


@contextmanager
def stack(folder: Path, database_url: str | None, redis_url: str | None, timeout: float = 600) -> Iterator[Stack]:
    """`make run` (scripts/run_local.py) on a free port with ``folder`` as DATA_DIR; stopped with
    Ctrl-C (SIGINT) on the way out, as a person would."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in {"DJANGO_SETTINGS_MODULE", "SECRET_KEY", "REDIS_URL"}}
    env.update(
        DATA_DIR=str(folder),
        DATABASE_URL=database_url or f"sqlite:///{folder / 'db.sqlite3'}",
        PORT=str(port),
        LOCAL_REDIS_PORT=str(free_port()),
        PYTHONUNBUFFERED="1",
    )
    if redis_url:
        env["REDIS_URL"] = redis_url
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "scripts" / "run_local.py")],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    output: list[str] = []
    ready = threading.Event()

    def pump() -> None:
        for line in iter(process.stdout.readline, ""):
            output.append(line)
            if "ready:" in line:
                ready.set()

    threading.Thread(target=pump, daemon=True).start()
    try:
        deadline = time.monotonic() + timeout
        while not ready.wait(1):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("make run did not start:\n" + "".join(output)[-3000:])
        yield Stack(f"http://127.0.0.1:{port}", env, process, output)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, 2)  # SIGINT: run_local.py stops web, beat, workers, Redis
            try:
                process.wait(90)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, 9)
                process.wait()


def _manage_shell(env: dict[str, str], code: str) -> str:
    done = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "shell", "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-3000:])
    return done.stdout


def make_patients(env: dict[str, str], count: int) -> list[dict[str, str]]:
    """``count`` throwaway patients (load-000…), each with a paired watch: username and device token."""
    code = f"""
import json
from django.contrib.auth import get_user_model
from health.models import Device
out = []
for i in range({count}):
    user, _ = get_user_model().objects.get_or_create(username=f"load-{{i:03d}}")
    user.set_password({PASSWORD!r}); user.save()
    device = Device(user=user, name="Load watch")
    token = device.issue_token()
    device.save()
    out.append({{"username": user.username, "token": token, "device": device.pk}})
print("PATIENTS" + json.dumps(out))
"""
    line = next(line for line in _manage_shell(env, code).splitlines() if line.startswith("PATIENTS"))
    return json.loads(line[len("PATIENTS") :])


def stored_readings(env: dict[str, str]) -> int:
    code = (
        "from health.models import VitalReading\n"
        "print('STORED', VitalReading.objects.filter(user__username__startswith='load-').count())"
    )
    line = next(line for line in _manage_shell(env, code).splitlines() if line.startswith("STORED"))
    return int(line.split()[1])


@dataclass
class Results:
    seconds: float = 0.0
    sent: int = 0
    accepted: int = 0
    ingest_ms: list[float] = field(default_factory=list)
    event_ms: list[float] = field(default_factory=list)
    turn_ms: list[float] = field(default_factory=list)
    turns_unfinished: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    cpu_percent: list[float] = field(default_factory=list)
    rss_mb: list[float] = field(default_factory=list)

    def error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1


async def _sign_in(session, base: str, username: str) -> None:
    page = await session.get(f"{base}/login/")
    await page.read()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', await page.text()).group(1)
    answer = await session.post(
        f"{base}/login/",
        data={"username": username, "password": PASSWORD, "csrfmiddlewaretoken": token},
        headers={"Referer": f"{base}/login/"},
    )
    await answer.read()
    if answer.url.path.startswith("/login/"):
        raise RuntimeError(f"{username} could not sign in: {answer.status} {answer.url}")


def _reading(rng: random.Random, when: dt.datetime) -> dict:
    return {
        "measured_at": when.isoformat(timespec="microseconds"),
        "heart_rate": rng.randint(62, 88),
        "spo2": rng.randint(96, 99),
        "steps": rng.randint(0, 20),
    }


async def _watch(session, base: str, patient: dict, until: float, results: Results, posted: dict) -> None:
    """One reading a second, on the second's schedule (not after the answer): a slow server falls
    behind the watch, as it would in life."""
    rng = random.Random(patient["username"])
    headers = {"Authorization": f"Device {patient['token']}"}
    tick = time.monotonic() + rng.random()  # watches do not all post on the same instant
    while tick < until:
        await asyncio.sleep(max(0.0, tick - time.monotonic()))
        tick += 1.0
        reading = _reading(rng, dt.datetime.now(dt.UTC))
        key = (patient["device"], reading["measured_at"])
        started = time.monotonic()
        posted[key] = started
        results.sent += 1
        try:
            async with session.post(f"{base}/api/vitals/", json=reading, headers=headers) as answer:
                body = await answer.json(content_type=None)
                if answer.status in (200, 201):
                    results.accepted += body.get("created", 0)
                    results.ingest_ms.append((time.monotonic() - started) * 1000)
                else:
                    results.error(f"vitals {answer.status}")
        except (aiohttp.ClientError, TimeoutError, ValueError) as error:  # counted, not a crash
            results.error(f"vitals {type(error).__name__}")


async def _events(ws, posted: dict, statuses: dict, results: Results) -> None:
    async for message in ws:
        if message.type != 1:  # aiohttp.WSMsgType.TEXT
            break
        event = json.loads(message.data)
        data = event.get("data") or {}
        if event.get("event") == "vitals":
            when = dt.datetime.fromisoformat(data["measured_at"]).astimezone(dt.UTC)
            key = (data["device"], when.isoformat(timespec="microseconds"))
            started = posted.pop(key, None)
            if started is not None:
                results.event_ms.append((time.monotonic() - started) * 1000)
        elif event.get("event") == "agent_status" and data.get("status") in FINISHED:
            future = statuses.get(data["conversation"])
            if future is not None and not future.done():
                future.set_result(data["status"])


async def _chat(session, base: str, until: float, results: Results, statuses: dict, first: int) -> None:
    turn = first
    while time.monotonic() < until:
        text = CHAT_TURNS[turn % len(CHAT_TURNS)]
        turn += 1
        await _ask(
            session, base, text, results, statuses, wait=max(1.0, min(CHAT_TURN_TIMEOUT, until + 60 - time.monotonic()))
        )


async def _ask(session, base: str, text: str, results: Results, statuses: dict, *, wait: float) -> None:
    """One chat turn: post ``text``, wait up to ``wait`` s for the answer's status; its time in
    ``results.turn_ms`` (or counted unfinished, or as an error)."""
    headers = {"X-CSRFToken": session.cookie_jar.filter_cookies(URL(base))["csrftoken"].value}
    started = time.monotonic()
    try:
        async with session.post(f"{base}/api/conversations/", json={"text": text}, headers=headers) as answer:
            if answer.status != 201:
                results.error(f"chat {answer.status}")
                await asyncio.sleep(1)
                return
            conversation = (await answer.json())["id"]
    except (aiohttp.ClientError, TimeoutError, ValueError) as error:
        results.error(f"chat {type(error).__name__}")
        await asyncio.sleep(1)
        return
    future = statuses.setdefault(conversation, asyncio.get_running_loop().create_future())
    # The status may have been pushed before the future existed: read it once from the API too.
    async with session.get(f"{base}/api/conversations/{conversation}/") as answer:
        status = (await answer.json()).get("status")
    if status in FINISHED and not future.done():
        future.set_result(status)
    try:
        status = await asyncio.wait_for(future, timeout=wait)
    except TimeoutError:
        results.turns_unfinished += 1
        return
    if status == "failed":
        results.error("chat turn failed")
    results.turn_ms.append((time.monotonic() - started) * 1000)


async def saturate(base: str, patients: list[dict], readings: int, clients: int = 16) -> tuple[int, int, float]:
    """Post ``readings`` readings (one per POST, each with its patient's device token) as fast as
    ``clients`` concurrent clients can: the web process's throughput when it never waits for work.
    (stored, refused, seconds)."""
    queue: asyncio.Queue[int] = asyncio.Queue()
    for n in range(readings):
        queue.put_nowait(n)
    stored = refused = 0
    now = dt.datetime.now(dt.UTC)

    async def client(session, rng: random.Random) -> None:
        nonlocal stored, refused
        while not queue.empty():
            n = queue.get_nowait()
            patient = patients[n % len(patients)]
            reading = _reading(rng, now - dt.timedelta(milliseconds=n))  # distinct instants: none is a resend
            headers = {"Authorization": f"Device {patient['token']}"}
            try:
                async with session.post(f"{base}/api/vitals/", json=reading, headers=headers) as answer:
                    body = await answer.json(content_type=None)
                    if answer.status == 201:
                        stored += body.get("created", 0)
                    else:
                        refused += 1
            except (aiohttp.ClientError, TimeoutError, ValueError):
                refused += 1

    timeout = aiohttp.ClientTimeout(total=60)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0), timeout=timeout) as session:
        started = time.monotonic()
        await asyncio.gather(*(client(session, random.Random(n)) for n in range(clients)))
        return stored, refused, time.monotonic() - started


async def first_turns(base: str, patients: list[dict], questions: tuple[str, ...]) -> list[Results]:
    """Each question asked by its own signed-in patient, all at once, twice in a row (a fresh start's
    first answers, then warm ones): per question, its Results (``turn_ms``: first, then again)."""
    timeout = aiohttp.ClientTimeout(total=CHAT_TURN_TIMEOUT + 60)
    sessions = [aiohttp.ClientSession(timeout=timeout, cookie_jar=aiohttp.CookieJar(unsafe=True)) for _ in questions]
    sockets, listeners = [], []
    statuses: dict = {}
    per_question = [Results() for _ in questions]
    try:
        for session, patient, results in zip(sessions, patients, per_question, strict=False):
            await _sign_in(session, base, patient["username"])
            ws = await session.ws_connect(base.replace("http", "ws", 1) + "/ws/events/", headers={"Origin": base})
            sockets.append(ws)
            listeners.append(asyncio.create_task(_events(ws, {}, statuses, results)))
        for _round in range(2):
            await asyncio.gather(
                *(
                    _ask(session, base, text, results, statuses, wait=CHAT_TURN_TIMEOUT)
                    for session, text, results in zip(sessions, questions, per_question, strict=True)
                )
            )
    finally:
        for task in listeners:
            task.cancel()
        for ws in sockets:
            await ws.close()
        for session in sessions:
            await session.close()
    return per_question


def first_turns_table(questions: tuple[str, ...], per_question: list[Results], *, after: float) -> str:
    lines = [
        f"first chat turns, asked {after:.0f} s after make run said ready (each by its own patient, at once)",
        f"{'question':<64} {'first ms':>9} {'again ms':>9}",
    ]
    for text, results in zip(questions, per_question, strict=True):
        times = [f"{ms:>9.0f}" for ms in results.turn_ms] + [f"{'-':>9}"] * (2 - len(results.turn_ms))
        problems = results.turns_unfinished or ", ".join(results.errors)
        lines.append(f"{text[:64]:<64} {times[0]} {times[1]}" + (f"   <-- {problems}" if problems else ""))
    return "\n".join(lines)


async def _sample(pid: int, until: float, results: Results) -> None:
    import psutil

    root = psutil.Process(pid)
    tree: dict[int, psutil.Process] = {}
    while time.monotonic() < until:
        try:
            current = [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            return
        cpu = rss = 0.0
        for process in current:
            known = tree.setdefault(process.pid, process)
            try:
                cpu += known.cpu_percent(None)
                rss += known.memory_info().rss
            except psutil.Error:
                continue
        results.cpu_percent.append(cpu)
        results.rss_mb.append(rss / 2**20)
        await asyncio.sleep(1.0)


async def drive(base: str, patients: list[dict], *, chats: int, seconds: float, pid: int | None) -> Results:
    """Run the watches (one per patient) and ``chats`` chat sessions for ``seconds``; then results."""
    results = Results(seconds=seconds)
    posted: dict = {}
    statuses: dict = {}
    connector = aiohttp.TCPConnector(limit=0)
    timeout = aiohttp.ClientTimeout(total=60)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as watches:
        chatters = []
        sockets = []
        try:
            for patient in patients[:chats]:
                # unsafe=True: aiohttp keeps no cookies from an IP address (127.0.0.1) otherwise.
                session = aiohttp.ClientSession(timeout=timeout, cookie_jar=aiohttp.CookieJar(unsafe=True))
                chatters.append(session)
                await _sign_in(session, base, patient["username"])
                ws = await session.ws_connect(base.replace("http", "ws", 1) + "/ws/events/", headers={"Origin": base})
                sockets.append(ws)
            until = time.monotonic() + seconds
            tasks = [asyncio.create_task(_events(ws, posted, statuses, results)) for ws in sockets]
            work = [_watch(watches, base, patient, until, results, posted) for patient in patients]
            work += [_chat(session, base, until, results, statuses, n) for n, session in enumerate(chatters)]
            if pid is not None:
                work.append(_sample(pid, until, results))
            await asyncio.gather(*work)
            await asyncio.sleep(2)  # the last readings' events
            for task in tasks:
                task.cancel()
        finally:
            for ws in sockets:
                await ws.close()
            for session in chatters:
                await session.close()
    return results


def _percentiles(values: list[float]) -> str:
    if not values:
        return f"{'-':>8} {'-':>8} {'-':>8}"
    if len(values) == 1:
        return f"{values[0]:>8.0f} {values[0]:>8.0f} {values[0]:>8.0f}"
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    return f"{statistics.median(values):>8.0f} {cuts[94]:>8.0f} {cuts[98]:>8.0f}"


def table(results: Results, *, stored: int, watches: int, chats: int, database: str) -> str:
    lines = [
        f"load: {watches} watches at 1 reading/s, {chats} chat sessions, {results.seconds:.0f} s, {database}",
        f"readings sent {results.sent}, accepted {results.accepted}, stored {stored}"
        + ("" if results.sent == results.accepted == stored else "   <-- NOT EQUAL"),
        f"{'':<28} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'count':>7}",
        f"{'vitals ingestion':<28} {_percentiles(results.ingest_ms)} {len(results.ingest_ms):>7}",
        f"{'reading -> websocket event':<28} {_percentiles(results.event_ms)} {len(results.event_ms):>7}",
        f"{'chat turn':<28} {_percentiles(results.turn_ms)} {len(results.turn_ms):>7}",
        f"chat turns unfinished at the end: {results.turns_unfinished}",
        "errors: " + (", ".join(f"{k} x{v}" for k, v in sorted(results.errors.items())) or "none"),
    ]
    if results.cpu_percent:
        lines.append(
            f"CPU (all processes of the stack, % of one core): mean {statistics.mean(results.cpu_percent):.0f}, "
            f"max {max(results.cpu_percent):.0f}; RAM max {max(results.rss_mb):.0f} MB"
        )
    return "\n".join(lines)
