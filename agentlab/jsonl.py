"""Reading JSONL files line by line, with errors that name the line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def read_jsonl(path: str | Path, *, error: type[Exception], missing: str) -> Iterator[tuple[int, Any]]:
    """(line number, parsed object) for every non-blank line; ``error(missing)`` when there is no file,
    ``error("line N: not valid JSON (...)")`` at the first malformed line."""
    path = Path(path)
    if not path.is_file():
        raise error(missing)
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError as exc:
                raise error(f"line {number}: not valid JSON ({exc.msg} at column {exc.colno}).") from exc
            yield number, data
