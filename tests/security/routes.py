"""Every URL pattern of the project, with a URL to call it by: the security tests walk them all,
so a route added later is checked without anyone remembering to list it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from django.urls import URLPattern, URLResolver, get_resolver

# A value for each path converter and for the admin's regex groups: any value that matches the
# pattern will do, since CSRF and authentication are checked before the view looks at it.
_SAMPLES = {"int": "1", "str": "confirm", "path": "1", "slug": "x", "uuid": "00000000-0000-0000-0000-000000000001"}
_GROUP = re.compile(r"\(\?P<(?P<name>\w+)>(?P<body>[^()]*(?:\([^()]*\)[^()]*)*)\)")


@dataclass(frozen=True)
class Route:
    name: str
    url: str


def _fill(regex: str) -> str | None:
    """A URL matching ``regex`` (a resolver's pattern), or None when it cannot be built simply."""
    text = regex.lstrip("^").rstrip("$").replace(r"\Z", "")

    def group(match: re.Match) -> str:
        body = match.group("body")
        if "|" in body:  # the admin's app_label alternation: take the first
            return body.split("|")[0].strip("()")
        return "1"

    text = _GROUP.sub(group, text)
    text = text.replace("\\.", ".").replace("\\", "")
    if any(ch in text for ch in "()[]*+?{}|"):
        return None
    return text


def _walk(patterns, prefix: str = "") -> Iterator[tuple[str, URLPattern]]:
    for entry in patterns:
        part = _part(entry)
        if part is None:
            continue
        if isinstance(entry, URLResolver):
            yield from _walk(entry.url_patterns, prefix + part)
        else:
            yield prefix + part, entry


def _part(entry: URLPattern | URLResolver) -> str | None:
    pattern = entry.pattern
    route = getattr(pattern, "_route", None)
    if route is not None:  # path(): swap each <converter:name> for a sample
        return re.sub(r"<(?:(\w+):)?\w+>", lambda m: _SAMPLES.get(m.group(1) or "str", "1"), route)
    return _fill(pattern.regex.pattern)


def all_routes() -> list[Route]:
    """Every pattern the project answers, each once, with a URL that resolves to it."""
    found: dict[str, Route] = {}
    for url, pattern in _walk(get_resolver().url_patterns):
        key = pattern.name or url
        found.setdefault(f"{key} {url}", Route(name=pattern.name or url, url="/" + url))
    return sorted(found.values(), key=lambda r: r.url)
