"""Top-level URLs: UI pages, the admin, the REST API and its schema."""

from __future__ import annotations

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include("health.api.urls")),
    path("api/", include("agents.api.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves Swagger UI's start-up script as a file: the Content-Security-Policy
    # (core/http_security.py) allows no inline script.
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    path("", include("frontend.urls")),
]

# JSON for an unmatched /api/ URL, the usual page elsewhere (core/http_errors.py).
handler404 = "core.http_errors.not_found"
handler500 = "core.http_errors.server_error"
handler400 = "core.http_errors.bad_request"
