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
