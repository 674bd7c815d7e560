"""Error pages: an API client gets JSON where the browser gets a page.

A URL under /api/ that no route matches (an id that is not an integer, a misspelt path) used to
answer Django's HTML "Not Found" page; API clients read DRF's ``{"detail": ...}`` everywhere else
(found by tests/api/test_schema_fuzz.py).
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults

API_PREFIX = "/api/"


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if request.path.startswith(API_PREFIX):
        return JsonResponse({"detail": "Not found."}, status=404)
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    """A failure of ours (the database locked past its timeout under load, found by bench_load): the
    API client reads JSON that says nothing was stored and to send again, not an HTML page."""
    if request.path.startswith(API_PREFIX):
        return JsonResponse(
            {"detail": "The server could not complete this request; nothing was stored. Please send it again."},
            status=500,
        )
    return defaults.server_error(request)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """A request Django refuses before any view (an unknown Host header): JSON under /api/ too."""
    if request.path.startswith(API_PREFIX):
        return JsonResponse({"detail": "Bad request."}, status=400)
    return defaults.bad_request(request, exception)
