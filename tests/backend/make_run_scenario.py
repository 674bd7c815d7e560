"""The newcomer's `make run`, driven from outside as a person would, and run by
tests/backend/test_make_run.py inside a network namespace with only loopback.

Run as ``python -m tests.backend.make_run_scenario FOLDER [--netns]``: it starts scripts/run_local.py
(web, worker, OCR worker, beat, its own Redis) with FOLDER as DATA_DIR and a SQLite database there,
signs in as the demo patient, chats, uploads a prescription photo that the OCR worker reads, writes
and downloads today's report, kills the worker and sees it brought back, then stops it with Ctrl-C
and checks nothing is left listening. Exit status 0 when every check held; each check is printed.

With ``--netns`` (the process is already in a fresh network namespace, from ``unshare --net``) it
first brings the namespace's loopback up: there is no other interface, so nothing can leave.
"""

from __future__ import annotations

import asyncio
import fcntl
import io
import json
import os
import queue
import re
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

import requests

from agentlab import load
from core.ports import free_port
from health import demo_data

ROOT = Path(__file__).resolve().parents[2]
# A request that the desks leave to the planner: the local model runs in the worker.
CHAT = "I have had a bad headache and a stiff neck since yesterday"


def loopback_up() -> None:
    """``ip link set lo up`` without needing iproute2: SIOCGIFFLAGS, then SIOCSIFFLAGS with IFF_UP."""
    siocgifflags, siocsifflags, iff_up = 0x8913, 0x8914, 0x1
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH14s", b"lo", 0, b"")
        flags = struct.unpack("16sH14s", fcntl.ioctl(sock, siocgifflags, request))[1]
        fcntl.ioctl(sock, siocsifflags, struct.pack("16sH14s", b"lo", flags | iff_up, b""))


def check(checked: list[str], what: str) -> None:
    checked.append(what)
    print(f"ok: {what}", flush=True)


class OutputReader:
    """Collects a process's output lines on a thread (select() cannot see lines
    already buffered by Python, so a reader thread is the reliable way)."""

    def __init__(self, process: subprocess.Popen) -> None:
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._pump, args=(process.stdout,), daemon=True).start()

    def _pump(self, stream) -> None:
        for line in iter(stream.readline, ""):
            self.lines.put(line)
        self.lines.put(None)

    def _read(self, timeout: float, marker: str | None = None) -> bool:
        """Collect lines for up to ``timeout`` s; True as soon as one contains ``marker``."""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                return False
            if line is None:
                return False
            self.seen.append(line)
            if marker is not None and marker in line:
                return True
        return False

    def until(self, marker: str, timeout: float) -> str:
        if not self._read(timeout, marker):
            raise AssertionError(f"{marker!r} not seen in time; output:\n{''.join(self.seen)[-4000:]}")
        return "".join(self.seen)

    def rest(self, timeout: float) -> str:
        self._read(timeout)
        return "".join(self.seen)


def prescription_png() -> bytes:
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("RGB", (900, 120), "white")
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 26)
    ImageDraw.Draw(image).text((30, 40), "Cap. Amoxicillin 500 mg TDS x 5 days", fill="black", font=font)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def celery_worker_of(parent: int) -> int:
    """The pid of the Celery worker ``make run`` started (a direct child of its process)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if (
            int(stat.rpartition(")")[2].split()[1]) == parent
            and b"worker" in command
            and b"beat" not in command
            and b"ocr" not in command
        ):
            return int(entry.name)
    raise AssertionError("no Celery worker found under make run")


def wait_for(read, done, timeout: float, what: str):
    """Poll ``read()`` until ``done(value)``; the last value, or an AssertionError naming ``what``."""
    deadline = time.monotonic() + timeout
    while True:
        value = read()
        if done(value):
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: still {value!r} after {timeout:.0f} s")
        time.sleep(1)


def scenario(folder: Path) -> list[str]:
    checked: list[str] = []
    web_port, redis_port = free_port(), free_port()
    env = {
        k: v
        for k, v in os.environ.items()
        # The on-device default: its own Redis and SQLite, whatever the suite around it uses.
        if k not in {"SECRET_KEY", "DJANGO_SETTINGS_MODULE", "REDIS_URL", "DATABASE_URL"}
    }
    env.update(
        DATA_DIR=str(folder),
        DATABASE_URL=f"sqlite:///{folder / 'db.sqlite3'}",
        PORT=str(web_port),
        LOCAL_REDIS_PORT=str(redis_port),
        CELERY_CONCURRENCY="1",
    )
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "scripts" / "run_local.py")],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    reader = OutputReader(process)
    try:
        output = reader.until("ready:", timeout=300)
        assert "Celery worker connected to the broker" in output
        assert f"started local Redis redis://127.0.0.1:{redis_port}/0" in output
        check(checked, "make run started web, worker, OCR worker, beat and its own Redis")

        base = f"http://127.0.0.1:{web_port}"
        session = requests.Session()
        login = session.get(f"{base}/login/", timeout=10)
        assert login.status_code == 200 and "Sign in" in login.text
        assert session.get(f"{base}/admin/login/", timeout=10).status_code == 200
        schema = session.get(f"{base}/api/schema/", timeout=30)
        assert schema.status_code == 200 and "openapi" in schema.text
        docs = session.get(f"{base}/api/docs/", timeout=10)
        assert docs.status_code == 200
        assert "cdn." not in docs.text, "API docs must work offline"
        static = re.search(r'src="([^"]*swagger-ui-bundle\.js)"', docs.text)
        assert static and session.get(base + static.group(1), timeout=10).status_code == 200
        check(checked, "sign-in page, admin, API schema and offline API docs served")

        # The seeded demo patient can sign in.
        token = session.cookies["csrftoken"]
        home = session.post(
            f"{base}/login/",
            data={"username": "demo", "password": "demo-health-2024", "csrfmiddlewaretoken": token},
            headers={"Referer": f"{base}/login/"},
            timeout=10,
        )
        assert home.status_code == 200 and "Hello" in home.text
        assert (folder / "secret_key").exists(), "the local run persists its generated secret key"
        check(checked, "the demo patient signed in; the secret key is kept in DATA_DIR")
        headers = {"X-CSRFToken": session.cookies["csrftoken"], "Referer": f"{base}/"}

        # The worker loaded the chat models as it started, not at the first chat (agents/warm.py).
        seen = "".join(reader.seen)
        warmed = seen if "Ready for chats" in seen else reader.until("Ready for chats", timeout=240)
        warm_line = next(line for line in warmed.splitlines() if "Ready for chats" in line)
        assert "loaded libraries (" in warm_line and " model (" in warm_line and "triage (" in warm_line, warm_line
        check(checked, "the worker loaded the chat models as it started: " + warm_line.split("loaded ", 1)[1])

        # A chat the desks leave to the planner: the worker runs the local model.
        started = session.post(f"{base}/api/conversations/", json={"text": CHAT}, headers=headers, timeout=30)
        assert started.status_code == 201, started.text[-2000:]
        url = f"{base}/api/conversations/{started.json()['id']}/"
        chat = wait_for(
            lambda: session.get(url, timeout=10).json(),
            lambda c: c["status"] in ("waiting_input", "completed", "failed"),
            timeout=300,
            what="the chat",
        )
        steps = session.get(url + "steps/", timeout=10).json()
        assert chat["status"] != "failed", (chat, steps[-3:])
        model_steps = [step for step in steps if (step["prompt_tokens"] or 0) > 0]
        assert model_steps, [(step["role"], step["prompt_tokens"]) for step in steps]
        check(checked, f"a chat ran the local model in the worker ({len(model_steps)} model steps, {chat['status']})")

        # A prescription photo goes through the broker to the OCR worker, which reads it.
        upload = session.post(
            f"{base}/medications/upload/",
            files={"image": ("rx.png", prescription_png(), "image/png")},
            data={"csrfmiddlewaretoken": session.cookies["csrftoken"]},
            headers={"Referer": f"{base}/medications/"},
            timeout=30,
        )
        assert upload.status_code == 200 and "/prescriptions/" in upload.url, upload.text[-2000:]
        status = wait_for(
            lambda: session.get(f"{base}/api/prescriptions/", timeout=10).json()["results"][0],
            lambda s: s["parse_status"] not in ("pending", "processing"),
            timeout=180,
            what="the prescription reading",
        )
        assert status["parse_status"] == "needs_review", status
        assert [item["name"] for item in status["extracted"]] == ["amoxicillin"]
        check(checked, "a prescription photo was read by the OCR worker (amoxicillin, for review)")

        # Today's report, written from what is recorded, and its PDF.
        page = session.post(
            f"{base}/reports/today/",
            data={"csrfmiddlewaretoken": session.cookies["csrftoken"]},
            headers={"Referer": f"{base}/reports/"},
            timeout=120,
        )
        assert page.status_code == 200 and "/reports/20" in page.url, (page.status_code, page.text[-2000:])
        pdf = session.get(page.url.rstrip("/") + "/pdf/", timeout=120)
        assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF"), pdf.headers
        check(checked, f"today's report written and its PDF made ({len(pdf.content)} bytes)")

        # The load benchmark's driver (agentlab/load.py), on tiny numbers: every reading sent is stored.
        patients = load.make_patients(env, 2)
        results = asyncio.run(load.drive(base, patients, chats=1, seconds=3, pid=process.pid))
        stored = load.stored_readings(env)
        table = load.table(results, stored=stored, watches=2, chats=1, database="SQLite + local Redis")
        assert results.sent == results.accepted == stored >= 4 and not results.errors, table
        assert results.event_ms and results.turn_ms and results.cpu_percent, table
        print(table, flush=True)
        check(checked, f"the load driver: {stored} readings sent and stored, {len(results.turn_ms)} chat turns")
        stored_before = load.stored_readings(env)
        saturated, refused, _took = asyncio.run(load.saturate(base, patients, 20, clients=4))
        assert saturated == 20 and refused == 0 and load.stored_readings(env) == stored_before + 20
        check(checked, "the saturation driver: 20 readings posted as fast as 4 clients can, all stored")
        asked = asyncio.run(load.first_turns(base, patients, ("what's my next appointment?",)))
        assert len(asked[0].turn_ms) == 2 and not asked[0].errors, asked
        print(load.first_turns_table(("what's my next appointment?",), asked, after=0), flush=True)
        check(checked, "the first-turn benchmark's driver: a question asked twice, both answered")

        # A worker that dies (SIGKILL, out of memory) is brought back, not left dead with SOS texts in it.
        worker = celery_worker_of(process.pid)
        os.killpg(worker, signal.SIGKILL)
        reader.until("worker exited with code -9; restarting it", timeout=15)
        assert process.poll() is None, "make run must keep serving after a worker died"
        assert session.get(f"{base}/login/", timeout=10).status_code == 200
        check(checked, "a SIGKILLed worker was restarted and the app kept serving")
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGINT)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            raise
    rest = reader.rest(timeout=5)
    assert process.returncode == 0, rest[-3000:]
    assert "[run] stopped" in rest
    # Nothing is left listening on the ports it used.
    for port in (web_port, redis_port):
        with socket.socket() as sock:
            assert sock.connect_ex(("127.0.0.1", port)) != 0, f"port {port} still open after Ctrl-C"
    check(checked, "Ctrl-C stopped everything; no port left open")
    # Every line web, worker, OCR worker, beat and Redis wrote, with none of the demo patient's details.
    lines = "".join(reader.seen).splitlines() + rest.splitlines()
    found = [
        f"{label}: {line}" for line in lines for label, pattern in personal_details().items() if pattern.search(line)
    ]
    assert not found, "\n".join(found[:20])
    check(checked, f"{len(lines)} lines of every process's output hold none of the demo patient's details")
    return checked


def personal_details() -> dict[str, re.Pattern]:
    """The demo patient's name, email, address, phone numbers, her contacts, what she typed."""
    patterns = {
        label: re.compile(re.escape(value), re.I)
        for label, value in {
            "first name": demo_data.DEMO_USER["first_name"],
            "last name": demo_data.DEMO_USER["last_name"],
            "email": demo_data.DEMO_USER["email"],
            "home address": demo_data.DEMO_PROFILE["home_address"].split(",")[0],
            "chat": CHAT[10:40],
        }.items()
    }
    phones = [demo_data.DEMO_PROFILE["phone"]] + [contact.phone for contact in demo_data.EMERGENCY_CONTACTS]
    for number, phone in enumerate(phones):
        digits = phone[-10:]  # +14155550100, (415) 555-0100, 415 555 0100
        patterns[f"phone {number}"] = re.compile(r"\D{0,2}".join([digits[:3], digits[3:6], digits[6:]]))
    for contact in demo_data.EMERGENCY_CONTACTS:
        patterns[f"contact {contact.relation}"] = re.compile(re.escape(contact.name.split()[0]), re.I)
    return patterns


def main() -> None:
    folder = Path(sys.argv[1])
    if "--netns" in sys.argv[2:]:
        loopback_up()
    checked = scenario(folder)
    (folder / "checked.json").write_text(json.dumps(checked))


if __name__ == "__main__":
    main()
