"""The layer rule of docs/architecture.md, checked on every test run (CI runs `make test`):
`lint-imports` reads the contracts in pyproject.toml and fails on an import that points the
wrong way (health importing agents, anything importing backend or the offline lab...)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_import_contract_is_kept():
    lint = Path(sys.executable).parent / "lint-imports"
    result = subprocess.run(
        [str(lint), "--config", str(ROOT / "pyproject.toml")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert " BROKEN" not in result.stdout
