"""The page a locked-out sign-in gets (django-axes calls ``locked_out``; see AXES_* in settings)."""

from __future__ import annotations

import math

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from health.sos.delivery import emergency_number


def locked_out(request: HttpRequest, original_response: HttpResponse | None, credentials: dict | None) -> HttpResponse:
    """429 with the login page's look: how long to wait, and what to do in an emergency meanwhile."""
    minutes = math.ceil(settings.AXES_COOLOFF_TIME.total_seconds() / 60)
    context = {
        "failure_limit": settings.AXES_FAILURE_LIMIT,
        "minutes": minutes,
        "emergency_number": emergency_number(),
    }
    return render(request, "registration/locked_out.html", context, status=settings.AXES_HTTP_RESPONSE_CODE)
