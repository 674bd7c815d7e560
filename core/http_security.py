"""Response headers that keep health data in the browser that asked for it.

Django 5.2 has no Content-Security-Policy of its own (it arrives in 6.0), and the policy this app
needs is one fixed header, so a small middleware sets it instead of another dependency.
"""

from __future__ import annotations

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


class ContentSecurityPolicyMiddleware:
    """Adds the policy above to every response that does not bring its own."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
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
