"""Response headers that keep health data in the browser that asked for it.

Django 5.2 has no Content-Security-Policy of its own (it arrives in 6.0), and the policy this app
needs is one fixed header, so a small middleware sets it instead of another dependency.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

# Scripts only from this origin's static files: no inline script, no eval, so text injected into
# a page (a name, an OCR line, a model's answer) can never run. Inline styles stay allowed because
# Django's admin, Swagger UI and the server-drawn SVG charts use them, and a style cannot run code.
# Images may be data: or blob: URLs (Swagger UI's icons, a photo previewed before upload).
# 'self' in connect-src covers the same-origin websocket in current browsers (CSP level 3).
CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data: blob:",
        "connect-src 'self'",
        "font-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)


# One exception, by path and by hash. django-celery-beat's periodic-task form (admin add and change
# pages) carries one inline script (<script id="periodic-task-overrides">, in its template
# admin/djcelery/change_periodictask_form.html) that shows a crontab's schedule in words beside the
# field. Only the script with exactly this content may run, only on those pages: a hash, not
# 'unsafe-inline' and not a nonce (a nonce would need the third-party template copied to add it).
# The hash is of the script as django-celery-beat 2.9.0 renders it in English; if an upgrade changes
# it, tests/security/test_admin_csp.py fails with the new hash (and the browser would only lose the
# crontab hint, the form still saves).
PERIODIC_TASK_FORM = re.compile(r"^/admin/django_celery_beat/periodictask/(add|\d+/change)/$")
PERIODIC_TASK_SCRIPT_SHA256 = "QE3U2xYF7B4J2ro1/9oxiKhaWCGW39gB7ocQ/xlD0bE="
PERIODIC_TASK_FORM_POLICY = CONTENT_SECURITY_POLICY.replace(
    "script-src 'self'", f"script-src 'self' 'sha256-{PERIODIC_TASK_SCRIPT_SHA256}'"
)


def policy_for(path: str) -> str:
    """The Content-Security-Policy of the page at ``path``."""
    return PERIODIC_TASK_FORM_POLICY if PERIODIC_TASK_FORM.match(path) else CONTENT_SECURITY_POLICY


class ContentSecurityPolicyMiddleware:
    """Adds the policy above to every response that does not bring its own."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", policy_for(request.path))
        return response


class NoStoreWhenSignedInMiddleware:
    """``Cache-Control: no-store`` on every response to a signed-in user or a device.

    Such a response may carry health data: no browser cache, shared computer's disk or proxy
    should keep a copy after the session ends. Static files are served earlier by WhiteNoise
    and stay cacheable.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        # DRF sets request.user on the Django request too, so a device token counts here.
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            response.headers["Cache-Control"] = "no-store"
        return response
