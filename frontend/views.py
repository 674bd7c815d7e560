"""Page views: authorise and render; data comes from the domain models."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone

from health.models import Alert, Appointment, Notification


@login_required
def home(request: HttpRequest) -> HttpResponse:
    user = request.user
    context = {
        "upcoming": Appointment.objects.filter(
            user=user, state__in=Appointment.ACTIVE_STATES, slot__starts_at__gte=timezone.now()
        ).select_related("specialist__specialization", "slot")[:5],
        "open_alerts": Alert.objects.filter(user=user, state__in=Alert.ACTIVE_STATES)[:5],
        "notifications": Notification.objects.filter(user=user)[:5],
    }
    return render(request, "frontend/home.html", context)


@login_required
def chat(request: HttpRequest) -> HttpResponse:
    """Chat with the assistant beside its live agent log; the page loads its data from /api/conversations/."""
    return render(request, "frontend/chat.html")


@login_required
def notifications(request: HttpRequest) -> HttpResponse:
    """The notification centre; the list comes from /api/notifications/."""
    return render(request, "frontend/notifications.html")


@login_required
def profile(request: HttpRequest) -> HttpResponse:
    """Profile and emergency contacts, edited through /api/profile/ and /api/emergency-contacts/."""
    return render(request, "frontend/profile.html")


@login_required
def sos(request: HttpRequest) -> HttpResponse:
    """The SOS button and the dispatch progress, driven by /api/sos/ and /api/alerts/."""
    return render(request, "frontend/sos.html")


@login_required
def watch(request: HttpRequest) -> HttpResponse:
    """Live vitals from the watch, and the simulated watch driven by /api/watch/simulator/."""
    from health.simulator.feed import scenarios

    return render(request, "frontend/watch.html", {"scenarios": scenarios()})


def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness for compose/orchestrators: the database answers."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"status": "ok"})
