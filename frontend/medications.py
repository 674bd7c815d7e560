"""The Medications pages: today's doses, the schedule, adherence, prescriptions (upload -> review ->
confirm) and the list for a doctor (CSV and a printable page).

Views authorise, call the Scheduler and render; every state change is the models' or the
Scheduler's (``health.scheduler``), and every figure shown is read from the stored rows.
"""

from __future__ import annotations

import csv
import datetime as dt

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from health.models import DoseEvent, InvalidTransition, Medication, Prescription, Reminder
from health.models.appointments import patient_zone
from health.scheduler import ahead, images, review
from health.scheduler.adherence import adherence
from health.scheduler.forms import MedicationReviewFormSet, StartForm, initial_from_item
from health.scheduler.schedule import ScheduleError, update_times

READING_STATES = (Prescription.ParseStatus.PENDING, Prescription.ParseStatus.PROCESSING)


def _today(request: HttpRequest) -> tuple[dt.date, dt.tzinfo]:
    tz = patient_zone(request.user)
    return timezone.now().astimezone(tz).date(), tz


@login_required
def medications(request: HttpRequest) -> HttpResponse:
    today, tz = _today(request)
    mine = Medication.objects.filter(user=request.user).prefetch_related("reminders")
    doses = (
        DoseEvent.objects.filter(user=request.user, due_on=today)
        .select_related("reminder__medication")
        .order_by("due_at")
    )
    context = {
        "today": today,
        "time_zone": tz,
        "doses": doses,
        "later": ahead.upcoming(request.user, timezone.now(), tz),
        "early_minutes": ahead.early_minutes(),
        "snooze_choices": DoseEvent.SNOOZE_MINUTES,
        "current": [m for m in mine if m.active and (m.end_date is None or m.end_date >= today)],
        "finished": [m for m in mine if not (m.active and (m.end_date is None or m.end_date >= today))],
        "week": adherence(request.user, days=7, today=today),
        "month": adherence(request.user, days=30, today=today),
        "prescriptions": Prescription.objects.filter(user=request.user)[:20],
        "max_mb": settings.PRESCRIPTION_MAX_MB,
    }
    return render(request, "frontend/medications.html", context)


@login_required
@require_POST
def upload_prescription(request: HttpRequest) -> HttpResponse:
    upload = request.FILES.get("image")
    if upload is None:
        messages.error(request, "Choose a photo or PDF of the prescription first.")
        return redirect("medications")
    if upload.size > images.max_bytes():
        messages.error(request, images.too_large(upload.size))
        return redirect("medications")
    try:
        prescription = review.receive_upload(request.user, upload.read())
    except images.RejectedUpload as exc:
        messages.error(request, str(exc))
        return redirect("medications")
    return redirect("prescription-page", pk=prescription.pk)


@login_required
def prescription_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """One prescription: the photo, the text read and, once read, the medications to check and confirm."""
    prescription = get_object_or_404(Prescription, pk=pk, user=request.user)
    items = prescription.extracted or []
    formset = start = None
    if prescription.parse_status == Prescription.ParseStatus.NEEDS_REVIEW:
        today, _ = _today(request)
        if request.method == "POST":
            formset = MedicationReviewFormSet(request.POST)
            start = StartForm(request.POST, today=today)
            if formset.is_valid() and start.is_valid():
                chosen = [form.schedule_fields() for form in formset if form.cleaned_data.get("include")]
                try:
                    scheduled = review.confirm(prescription, chosen, start.cleaned_data["start_date"])
                except (review.ReviewError, InvalidTransition) as exc:
                    messages.error(request, str(exc))
                else:
                    names = ", ".join(str(m) for m in scheduled)
                    messages.success(request, f"Scheduled: {names}. Reminders go off at the times shown below.")
                    return redirect("medications")
        else:
            formset = MedicationReviewFormSet(initial=[initial_from_item(item) for item in items])
            start = StartForm(today=today)
    rows = list(zip(formset.forms, items, strict=False)) if formset is not None else []
    context = {
        "prescription": prescription,
        "reading": prescription.parse_status in READING_STATES,
        "formset": formset,
        "start": start,
        "rows": rows,
        "scheduled": prescription.medications.all(),
    }
    return render(request, "frontend/prescription.html", context)


@login_required
def prescription_image(request: HttpRequest, pk: int) -> FileResponse:
    prescription = get_object_or_404(Prescription, pk=pk, user=request.user)
    if not prescription.image:
        raise Http404("No photo")
    response = FileResponse(prescription.image.open("rb"), content_type="image/jpeg")
    response["Cache-Control"] = "private, no-store"
    return response


@login_required
@require_POST
def prescription_retry(request: HttpRequest, pk: int) -> HttpResponse:
    prescription = get_object_or_404(Prescription, pk=pk, user=request.user)
    try:
        review.retry(prescription)
    except InvalidTransition as exc:
        messages.error(request, str(exc))
    return redirect("prescription-page", pk=pk)


@login_required
@require_POST
def prescription_delete(request: HttpRequest, pk: int) -> HttpResponse:
    prescription = get_object_or_404(Prescription, pk=pk, user=request.user)
    review.delete(prescription)
    messages.success(request, "The prescription and its photo were deleted. Medicines already scheduled from it stay.")
    return redirect("medications")


@login_required
@require_POST
def dose_action(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    """Taken, snoozed (10, 30 or 60 minutes) or skipped; the dose's model decides what is allowed."""
    dose = get_object_or_404(DoseEvent.objects.select_related("reminder__medication"), pk=pk, user=request.user)
    name = dose.reminder.medication
    try:
        if action == "taken":
            dose.take()
            messages.success(request, f"Recorded: {name} taken.")
        elif action == "skip":
            dose.skip()
            messages.success(request, f"Recorded: {name} skipped.")
        elif action == "snooze":
            minutes = request.POST.get("minutes", "")
            if not minutes.isdigit() or int(minutes) not in DoseEvent.SNOOZE_MINUTES:
                raise InvalidTransition("Snooze for 10, 30 or 60 minutes.")
            dose.snooze(int(minutes))
            until = dose.snoozed_until.astimezone(patient_zone(request.user))
            messages.success(request, f"Snoozed: {name} will remind you again at {until:%H:%M}.")
    except (InvalidTransition, ValueError) as exc:
        messages.error(request, str(exc))
    return redirect(request.POST.get("next") if request.POST.get("next") == "home" else "medications")


@login_required
@require_POST
def take_early(request: HttpRequest, pk: int) -> HttpResponse:
    """Today's dose of reminder ``pk`` taken before it went off (health.scheduler.ahead says how early)."""
    reminder = get_object_or_404(Reminder, pk=pk, medication__user=request.user)
    try:
        dose = ahead.take_early(request.user, reminder.pk, timezone.now())
    except InvalidTransition as exc:
        messages.error(request, str(exc))
    else:
        due = dose.due_at.astimezone(patient_zone(request.user))
        messages.success(
            request, f"Recorded: {dose.reminder.medication} taken. The {due:%H:%M} reminder will not go off."
        )
    return redirect(request.POST.get("next") if request.POST.get("next") == "home" else "medications")


@login_required
@require_POST
def medication_times(request: HttpRequest, pk: int) -> HttpResponse:
    medication = get_object_or_404(Medication, pk=pk, user=request.user)
    try:
        update_times(medication, request.POST.get("times", ""))
    except ScheduleError as exc:
        messages.error(request, f"{medication}: {exc}")
    else:
        times = ", ".join(medication.clock_times) or "none (as needed)"
        messages.success(request, f"{medication}: reminders now at {times}.")
    return redirect("medications")


@login_required
@require_POST
def medication_stop(request: HttpRequest, pk: int) -> HttpResponse:
    medication = get_object_or_404(Medication, pk=pk, user=request.user)
    medication.stop()
    messages.success(request, f"{medication} stopped: no more reminders for it. Its dose history is kept.")
    return redirect("medications")


def _medication_rows(request: HttpRequest) -> list[Medication]:
    today, _ = _today(request)
    return [
        m
        for m in Medication.objects.filter(user=request.user, active=True).prefetch_related("reminders")
        if m.end_date is None or m.end_date >= today
    ]


@login_required
def export_csv(request: HttpRequest) -> HttpResponse:
    """The current medication list as CSV, for a doctor or a spreadsheet."""
    today, _ = _today(request)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="medications-{today:%Y-%m-%d}.csv"'
    writer = csv.writer(response)
    writer.writerow(["Medicine", "Strength", "Dose", "Times", "With food", "From", "Until", "Instructions"])
    for m in _medication_rows(request):
        writer.writerow(
            [
                _cell(m.name),
                _cell(m.strength),
                _cell(m.dose),
                " ".join(m.clock_times) or "as needed",
                m.get_food_timing_display(),
                m.start_date.isoformat(),
                m.end_date.isoformat() if m.end_date else "",
                _cell(m.instructions),
            ]
        )
    return response


def _cell(value: str) -> str:
    # A cell starting with = + - @ is run as a formula by spreadsheet programs (CSV injection).
    return "'" + value if value[:1] in ("=", "+", "-", "@") else value


@login_required
def print_list(request: HttpRequest) -> HttpResponse:
    """The current medication list as a page to print or save as PDF for a doctor."""
    today, tz = _today(request)
    context = {"medications": _medication_rows(request), "today": today, "patient": request.user, "time_zone": tz}
    return render(request, "frontend/medications_print.html", context)
