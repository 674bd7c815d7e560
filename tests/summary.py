"""What the fault, attack and privacy tests tried, printed at the end of ``make test``.

pytest hides what a passing test prints, and the counts of issue 23 (faults injected, requests fuzzed,
attacks tried, log lines scanned) are worth reading on every run: a test hands its line to
``summarise`` and ``tests/conftest.py``'s ``pytest_terminal_summary`` prints them all in one section.
"""

from __future__ import annotations

LINES: list[str] = []


def summarise(line: str) -> None:
    """Keep ``line`` for the run's summary (and print it: shown with ``-s`` or when the test fails)."""
    print(line)
    LINES.append(line.strip())
