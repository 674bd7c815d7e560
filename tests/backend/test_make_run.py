"""`make run` (scripts/run_local.py) brings up web, worker, the OCR worker, beat and Redis, and
Ctrl-C stops all of them."""

from __future__ import annotations

import io
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import requests

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


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


@pytest.mark.slow
def test_make_run_serves_the_app_with_a_connected_worker_and_stops_on_ctrl_c(tmp_path):
    web_port, redis_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "DJANGO_SETTINGS_MODULE"}}
    env.update(
        DATA_DIR=str(tmp_path),
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        PORT=str(web_port),
        LOCAL_REDIS_PORT=str(redis_port),
        CELERY_CONCURRENCY="1",
    )
    if os.environ.get("REDIS_URL"):
        # A database of its own on the shared Redis: no other worker may take
        # this stack's tasks, and this stack's worker takes no one else's.
        env["REDIS_URL"] = os.environ["REDIS_URL"].rsplit("/", 1)[0] + "/14"
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
        if not os.environ.get("REDIS_URL"):
            assert f"started local Redis redis://127.0.0.1:{redis_port}/0" in output

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

        # The seeded demo patient can sign in.
        token = session.cookies["csrftoken"]
        home = session.post(
            f"{base}/login/",
            data={"username": "demo", "password": "demo-health-2024", "csrfmiddlewaretoken": token},
            headers={"Referer": f"{base}/login/"},
            timeout=10,
        )
        assert home.status_code == 200 and "Hello" in home.text
        assert (tmp_path / "secret_key").exists(), "the local run persists its generated secret key"

        # A prescription photo goes through the broker to the OCR worker, which reads it.
        upload = session.post(
            f"{base}/medications/upload/",
            files={"image": ("rx.png", prescription_png(), "image/png")},
            data={"csrfmiddlewaretoken": session.cookies["csrftoken"]},
            headers={"Referer": f"{base}/medications/"},
            timeout=30,
        )
        assert upload.status_code == 200 and "/prescriptions/" in upload.url, upload.text[-2000:]
        deadline = time.monotonic() + 180
        while (status := session.get(f"{base}/api/prescriptions/", timeout=10).json()["results"][0])[
            "parse_status"
        ] in ("pending", "processing") and time.monotonic() < deadline:
            time.sleep(1)
        assert status["parse_status"] == "needs_review", status
        assert [item["name"] for item in status["extracted"]] == ["amoxicillin"]

        # A worker that dies (SIGKILL, out of memory) is brought back, not left dead with SOS texts in it.
        worker = celery_worker_of(process.pid)
        os.killpg(worker, signal.SIGKILL)
        reader.until("worker exited with code -9; restarting it", timeout=15)
        assert process.poll() is None, "make run must keep serving after a worker died"
        assert session.get(f"{base}/login/", timeout=10).status_code == 200
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
