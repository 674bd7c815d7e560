"""Page views: authorise and render; data comes from the domain models."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import connection
from django.db.models import Q
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from health.models import Alert, Appointment, DoseEvent, InvalidTransition, Notification, Reminder, SlotUnavailable
from health.models.appointments import format_when, patient_zone
from health.scheduler import ahead
from health.simulator.feed import scenarios
from health.sos.delivery import emergency_number
from health.sos.soft import soft_sos_notice


@login_required
def home(request: HttpRequest) -> HttpResponse:
    user = request.user
    tz = patient_zone(user)
    now_local = timezone.now().astimezone(tz)
    reminders = Reminder.objects.filter(medication__user=user, medication__active=True, enabled=True).select_related(
        "medication"
    )
    next_up = ahead.next_dose(user, now_local, tz)
    context = {
        "time_zone": tz,
        "doses_waiting": DoseEvent.objects.filter(user=user, state__in=DoseEvent.OPEN_STATES)
        .select_related("reminder__medication")
        .order_by("due_at")[:5],
        "next_reminder": next_up.reminder if next_up is not None else None,
        "next_is_tomorrow": next_up is not None and next_up.tomorrow,
        "any_reminder": reminders.exists(),
        "upcoming": Appointment.objects.filter(
            user=user, state__in=Appointment.ACTIVE_STATES, slot__starts_at__gte=timezone.now()
        )
        .select_related("specialist__specialization", "slot", "user__profile")
        .order_by("slot__starts_at")[:5],
        "open_alerts": [
            (alert, soft_sos_notice(alert).title if alert.kind == Alert.Kind.SOFT else "Emergency SOS")
            for alert in Alert.objects.filter(user=user, state__in=Alert.ACTIVE_STATES)[:5]
        ],
        "notifications": Notification.objects.filter(user=user)[:5],
    }
    return render(request, "frontend/home.html", context)


@login_required
def appointments(request: HttpRequest) -> HttpResponse:
    """The patient's appointments: upcoming (held or confirmed, not yet over) and past."""
    mine = Appointment.objects.filter(user=request.user).select_related(
        "slot", "specialist__specialization", "user__profile"
    )
    ahead = Q(state__in=Appointment.ACTIVE_STATES, slot__ends_at__gt=timezone.now())
    context = {
        "upcoming": mine.filter(ahead).order_by("slot__starts_at"),
        "past": mine.exclude(ahead).order_by("-slot__starts_at")[:50],
        "time_zone": patient_zone(request.user),
    }
    return render(request, "frontend/appointments.html", context)


@login_required
def appointment_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """One appointment, with confirm, cancel and reschedule (another free slot of the same specialist)."""
    appointment = get_object_or_404(
        Appointment.objects.select_related("slot", "specialist__specialization", "user__profile"),
        pk=pk,
        user=request.user,
    )
    tz = appointment.time_zone
    free = appointment.free_slots() if appointment.is_active else []
    context = {
        "appointment": appointment,
        "free_slots": [{"pk": slot.pk, "when": format_when(slot.starts_at, slot.ends_at, tz)} for slot in free],
        "time_zone": tz,
    }
    return render(request, "frontend/appointment_detail.html", context)


@login_required
@require_POST
def appointment_action(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    """Confirm, cancel or reschedule one of the patient's appointments; the model decides what is allowed."""
    appointment = get_object_or_404(Appointment, pk=pk, user=request.user)
    try:
        if action == "reschedule":
            slot_id = request.POST.get("slot", "")
            if not slot_id.isdigit():
                raise SlotUnavailable("Choose a new time first.")
            appointment.reschedule(int(slot_id))
        elif action in ("confirm", "cancel"):
            getattr(appointment, action)()
        else:
            return redirect("appointment-page", pk=pk)
    except (SlotUnavailable, InvalidTransition) as exc:
        messages.error(request, str(exc))
    else:
        appointment.refresh_from_db()
        done = {
            "confirm": f"Confirmed: your appointment on {appointment.when_text()} is booked.",
            "cancel": f"Cancelled: your appointment on {appointment.when_text()}. The time is free for others again.",
            "reschedule": f"Moved to {appointment.when_text()}. It is {appointment.get_state_display().lower()}.",
        }
        messages.success(request, done[action])
    return redirect("appointment-page", pk=pk)


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
    return render(request, "frontend/sos.html", {"emergency_number": emergency_number()})


@login_required
def watch(request: HttpRequest) -> HttpResponse:
    """Live vitals from the watch, and the simulated watch driven by /api/watch/simulator/."""
    return render(request, "frontend/watch.html", {"scenarios": scenarios()})


def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness for compose/orchestrators: the database answers."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"status": "ok"})
