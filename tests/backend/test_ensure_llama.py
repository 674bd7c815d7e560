"""`make run` installs llama-cpp-python through scripts/ensure_llama.py: from the wheel cache when it
holds one, else after building the wheel once into it; a failed build is not fatal. Only pip is
faked (no real build, no install into this venv): it records its calls and "installs" into a flag."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
from pathlib import Path

import pytest
from packaging.tags import sys_tags

ROOT = Path(__file__).resolve().parents[2]


def load_script():
    spec = importlib.util.spec_from_file_location("ensure_llama", ROOT / "scripts" / "ensure_llama.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ensure_llama = load_script()
TAG = next(iter(sys_tags()))
WHEEL = f"llama_cpp_python-{ensure_llama.VERSION}-{TAG.interpreter}-{TAG.abi}-{TAG.platform}.whl"


class FakePip:
    """pip as the script sees it: `wheel` writes a wheel into -w (or fails), `install` installs."""

    def __init__(self, build_ok: bool = True) -> None:
        self.build_ok = build_ok
        self.installed: str | None = None
        self.calls: list[tuple[str, ...]] = []

    def __call__(self, *args: str, output: Path | None = None, env: dict | None = None) -> int:
        self.calls.append(args)
        if args[0] == "wheel":
            if output is not None:
                output.write_text("compiling...\n")
            if not self.build_ok:
                return 1
            (Path(args[args.index("-w") + 1]) / WHEEL).write_bytes(b"wheel")
            return 0
        if args[0] == "install":
            assert Path(args[-1]).is_file(), "installs only a wheel that exists"
            self.installed = ensure_llama.VERSION
            return 0
        raise AssertionError(f"unexpected pip call {args}")

    def verbs(self) -> list[str]:
        return [call[0] for call in self.calls]


@pytest.fixture
def fake_pip(monkeypatch):
    pip = FakePip()
    monkeypatch.setattr(ensure_llama, "pip", pip)
    monkeypatch.setattr(ensure_llama, "installed_version", lambda: pip.installed)
    return pip


@pytest.fixture
def env(tmp_path):
    return {"WHEEL_CACHE_DIR": str(tmp_path / "wheels")}


def test_a_cached_wheel_is_installed_without_building(fake_pip, env, capsys):
    cache = Path(env["WHEEL_CACHE_DIR"])
    cache.mkdir()
    (cache / WHEEL).write_bytes(b"wheel")

    assert ensure_llama.ensure(env) is True

    assert fake_pip.calls == [("install", "--quiet", "--no-warn-conflicts", str(cache / WHEEL))]
    assert "from the cached wheel" in capsys.readouterr().out


def test_without_a_cached_wheel_it_is_built_once_then_installed_from_the_cache(fake_pip, env):
    cache = Path(env["WHEEL_CACHE_DIR"])

    assert ensure_llama.ensure(env) is True
    assert fake_pip.verbs() == ["wheel", "install"]
    assert fake_pip.calls[0][-1] == f"llama-cpp-python=={ensure_llama.VERSION}"
    assert (cache / WHEEL).is_file()
    assert not list(cache.glob(".build-*")), "the scratch directory is removed"

    # A second `make run`: already installed, so pip is not even called.
    assert ensure_llama.ensure(env) is True
    assert fake_pip.verbs() == ["wheel", "install"]

    # A recreated venv: installed again from the cache, not rebuilt.
    fake_pip.installed = None
    assert ensure_llama.ensure(env) is True
    assert fake_pip.verbs() == ["wheel", "install", "install"]


def test_a_wheel_for_another_interpreter_is_not_used(fake_pip, env):
    cache = Path(env["WHEEL_CACHE_DIR"])
    cache.mkdir()
    (cache / f"llama_cpp_python-{ensure_llama.VERSION}-cp27-cp27m-win32.whl").write_bytes(b"other")

    assert ensure_llama.ensure(env) is True
    assert fake_pip.verbs() == ["wheel", "install"]
    assert fake_pip.calls[1][-1] == str(cache / WHEEL)


def test_a_failed_build_is_not_fatal_says_so_once_and_is_not_retried_on_every_run(fake_pip, env, monkeypatch, capsys):
    fake_pip.build_ok = False
    monkeypatch.setattr(ensure_llama.os, "environ", env)
    cache = Path(env["WHEEL_CACHE_DIR"])

    assert ensure_llama.main([]) == 0  # `make run` goes on
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if "transformers" in line]
    assert len(lines) == 1 and "building llama-cpp-python" in lines[0] and "failed" in lines[0]
    assert str(ensure_llama.build_log(cache)) in lines[0]
    assert fake_pip.verbs() == ["wheel"]
    assert not list(cache.glob("*.whl"))

    # The next `make run` does not spend minutes on the same failure...
    assert ensure_llama.main([]) == 0
    assert fake_pip.verbs() == ["wheel"]
    assert "earlier build" in capsys.readouterr().out

    # ...`make llama` retries it, and fails loudly while it fails.
    assert ensure_llama.main(["--require"]) == 1
    assert fake_pip.verbs() == ["wheel", "wheel"]
    fake_pip.build_ok = True
    assert ensure_llama.main(["--require"]) == 0
    assert fake_pip.verbs() == ["wheel", "wheel", "wheel", "install"]
    assert not ensure_llama.failed_marker(cache).exists()


@pytest.mark.parametrize(
    ("setting", "value"), [("AGENT_BACKEND", "transformers"), ("AGENT_BASE_MODEL", "/models/other")]
)
def test_nothing_is_built_where_the_backend_would_not_use_llama_cpp(fake_pip, env, setting, value, capsys):
    assert ensure_llama.ensure({**env, setting: value}) is False
    assert fake_pip.calls == []
    assert setting in capsys.readouterr().out


def test_the_cache_defaults_under_xdg_cache_home(tmp_path):
    assert ensure_llama.cache_dir({"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "agent-lite-health" / "wheels"
    assert ensure_llama.cache_dir({"XDG_CACHE_HOME": str(tmp_path), "WHEEL_CACHE_DIR": "/w"}) == Path("/w")


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_run_installs_llama_and_make_test_does_not():
    def dry_run(target: str) -> str:
        return subprocess.run(["make", "-n", target], cwd=ROOT, capture_output=True, text=True, check=True).stdout

    command = "bin/python scripts/ensure_llama.py"
    assert command in dry_run("run")
    assert f"{command} --require" in dry_run("llama")
    assert command not in dry_run("test")
