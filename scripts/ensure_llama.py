#!/usr/bin/env python
"""Put llama-cpp-python into this venv before `make run` serves, building it at most once per machine.

Why: the llama.cpp backend runs the seed paper's D.1 trajectory in about 9 s of model time where
transformers takes about 30 s, and AGENT_BACKEND=auto picks it as soon as the package imports. But
PyPI ships llama-cpp-python as source only, and building it takes 5-8 min on 2 cores. So the first
build's wheel is kept outside the venv (WHEEL_CACHE_DIR, default
${XDG_CACHE_HOME:-~/.cache}/agent-lite-health/wheels): a second `make run`, a recreated venv or
another clone on this machine installs that wheel in seconds.

A failed build (no compiler, say) never stops `make run`: it serves on transformers and says so in
one line, and it does not retry the build on every start (`make llama` retries it). `make test`
does not call this script: CI runs it on fresh clones and must stay fast.

Run with the venv's python: `.venv/bin/python scripts/ensure_llama.py [--require]`.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import importlib.metadata
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from packaging.tags import sys_tags
from packaging.utils import parse_wheel_filename

PACKAGE = "llama-cpp-python"
VERSION = "0.3.36"  # the version the llama.cpp backend is written and benchmarked against
WHEEL_PREFIX = f"llama_cpp_python-{VERSION}-"
PIP = ("-m", "pip", "--disable-pip-version-check")


def log(message: str) -> None:
    print(f"[run] {message}", flush=True)


def cache_dir(env: dict[str, str]) -> Path:
    if env.get("WHEEL_CACHE_DIR"):
        return Path(env["WHEEL_CACHE_DIR"]).expanduser()
    base = Path(env.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "agent-lite-health" / "wheels"


def skip_reason(env: dict[str, str]) -> str | None:
    """Why the backend would not use llama.cpp anyway (agents.llm.resolved_choice), or None."""
    backend = env.get("AGENT_BACKEND", "auto")
    if backend not in ("auto", "llamacpp"):
        return f"AGENT_BACKEND={backend}"
    if backend == "auto" and env.get("AGENT_BASE_MODEL", "").strip():
        return "AGENT_BASE_MODEL is set (llama.cpp runs only the default model)"
    return None


def installed_version() -> str | None:
    try:
        return importlib.metadata.version(PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        return None


def pip(*args: str, output: Path | None = None, env: dict[str, str] | None = None) -> int:
    """The one place that runs pip; its exit status. With ``output``, pip's output goes to that file."""
    command = [sys.executable, *PIP, *args]
    if output is None:
        return subprocess.run(command, env=env).returncode
    with output.open("w") as stream:
        return subprocess.run(command, stdout=stream, stderr=subprocess.STDOUT, env=env).returncode


def cached_wheel(cache: Path) -> Path | None:
    """A wheel of VERSION in the cache that this interpreter can install."""
    supported = set(sys_tags())
    for wheel in sorted(cache.glob(f"{WHEEL_PREFIX}*.whl")):
        with contextlib.suppress(ValueError):
            if supported & set(parse_wheel_filename(wheel.name)[3]):
                return wheel
    return None


def failed_marker(cache: Path) -> Path:
    return cache / f"{PACKAGE}-{VERSION}-{sys.implementation.cache_tag}.failed"


def build_log(cache: Path) -> Path:
    return cache / f"{PACKAGE}-{VERSION}-build.log"


def build(cache: Path) -> Path | None:
    """Build the wheel into the cache; the wheel, or None when the build failed."""
    log(
        f"building {PACKAGE} {VERSION} once for the fast llama.cpp backend (5-8 min on 2 cores); "
        f"later runs and new venvs install the cached wheel from {cache}; log: {build_log(cache)}"
    )
    env = {**os.environ, "CMAKE_BUILD_PARALLEL_LEVEL": str(os.cpu_count() or 1)}  # one compiler per core
    with tempfile.TemporaryDirectory(dir=cache, prefix=".build-") as scratch:
        status = pip("wheel", "--no-deps", "-w", scratch, f"{PACKAGE}=={VERSION}", output=build_log(cache), env=env)
        built = sorted(Path(scratch).glob(f"{WHEEL_PREFIX}*.whl"))
        if status != 0 or not built:
            failed_marker(cache).write_text(f"pip wheel exited with {status}; see {build_log(cache)}\n")
            return None
        # Moved in only once complete: a build killed halfway leaves no wheel that looks usable.
        target = cache / built[0].name
        os.replace(built[0], target)
    failed_marker(cache).unlink(missing_ok=True)
    return target


def ensure(env: dict[str, str], require: bool = False) -> bool:
    """True when llama-cpp-python VERSION is installed in this venv on return."""
    if installed_version() == VERSION:
        return True
    reason = None if require else skip_reason(env)
    if reason:
        log(f"not installing {PACKAGE}: {reason}")
        return False
    cache = cache_dir(env)
    cache.mkdir(parents=True, exist_ok=True)
    # One build at a time per cache: a second `make run` started meanwhile waits, then installs it.
    with (cache / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        wheel = cached_wheel(cache)
        if wheel is None:
            if failed_marker(cache).exists() and not require:
                log(
                    f"llama.cpp is not installed: an earlier build of {PACKAGE} {VERSION} failed "
                    f"(log: {build_log(cache)}); serving on the slower transformers backend. "
                    "`make llama` retries the build."
                )
                return False
            wheel = build(cache)
        if wheel is None:
            log(
                f"llama.cpp is not installed: building {PACKAGE} {VERSION} failed (a C++ compiler and "
                f"cmake are needed; log: {build_log(cache)}); serving on the slower transformers backend. "
                "`make llama` retries the build."
            )
            return False
    log(f"installing {PACKAGE} {VERSION} from the cached wheel {wheel}")
    if pip("install", "--quiet", "--no-warn-conflicts", str(wheel)) != 0:
        log(f"llama.cpp is not installed: pip could not install {wheel}; serving on the slower transformers backend")
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--require",
        action="store_true",
        help="`make llama`: build even where AGENT_BACKEND would not use it or an earlier build failed; "
        "exit 1 when it is not installed",
    )
    args = parser.parse_args(argv)
    try:
        installed = ensure(dict(os.environ), require=args.require)
    except OSError as exc:  # an unwritable cache, say: still no reason to stop `make run`
        log(f"llama.cpp is not installed ({exc}); serving on the slower transformers backend")
        installed = False
    return 1 if args.require and not installed else 0


if __name__ == "__main__":
    sys.exit(main())
