"""Small readers of API responses shared by the API tests."""

from __future__ import annotations


def results(response) -> list[dict]:
    """The rows of a (paginated) list response."""
    body = response.json()
    return body["results"] if isinstance(body, dict) and "results" in body else body


def ids(response) -> set[int]:
    """The ids of the rows of a (paginated) list response."""
    return {row["id"] for row in results(response)}
