"""Prescriptions (uploaded photo + OCR), medications, reminders and dose events."""

from __future__ import annotations

import datetime as dt
import uuid

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import IntegrityError, models, transaction
from django.db.models import F, Q
from django.utils import timezone

from core.events import Event
from core.realtime import push_to_user
from health.models.appointments import InvalidTransition
from health.scheduler.lexicon import known_medicine


def prescription_upload_path(instance: Prescription, filename: str) -> str:
    # Random names: the original file name may carry the patient's name.
    suffix = filename.rsplit(".", 1)[-1].lower() if "." in filename else "bin"
    return f"prescriptions/{instance.user_id}/{uuid.uuid4().hex}.{suffix[:5]}"


class Prescription(models.Model):
    """An uploaded prescription: queued (pending) -> being read (processing) -> read, waiting for the
    patient to check the medications found (needs_review) -> confirmed (its medications are scheduled);
    a read that failed says why (``parse_error``) and can be tried again."""

    class ParseStatus(models.TextChoices):
        PENDING = "pending", "Waiting to be read"
        PROCESSING = "processing", "Being read"
        NEEDS_REVIEW = "needs_review", "Read: check the medicines"
        CONFIRMED = "confirmed", "Confirmed"
        FAILED = "failed", "Could not be read"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="prescriptions")
    image = models.FileField(upload_to=prescription_upload_path, blank=True)
    ocr_text = models.TextField(blank=True)
    parse_status = models.CharField(max_length=16, choices=ParseStatus.choices, default=ParseStatus.PENDING)
    parse_error = models.CharField(max_length=255, blank=True)
    content_type = models.CharField(max_length=40, blank=True, help_text="Detected from the file's content.")
    extracted = models.JSONField(
        default=list,
        blank=True,
        help_text="The medications read from the text, for the patient to check; nothing is scheduled "
        "from them until the patient confirms.",
    )
    read_seconds = models.FloatField(null=True, blank=True, help_text="Time the reading took.")
    confirmed_at = models.DateTimeField(null=True, blank=True)
    prescriber = models.CharField(max_length=120, blank=True)
    issued_on = models.DateField(null=True, blank=True)
    uploaded_at = models.DateTimeField(auto_now_add=True)
    parsed_at = models.DateTimeField(null=True, blank=True)
    status_changed_at = models.DateTimeField(
        default=timezone.now, help_text="When the reading last moved (queued, started, read, failed, confirmed)."
    )

    class Meta:
        ordering = ["-uploaded_at"]

    def __str__(self) -> str:
        return f"Prescription {self.pk} ({self.parse_status})"

    # The reading's steps. Each is a conditional update, so a task delivered twice (a worker died,
    # the broker redelivered) or a retry pressed in two tabs moves the row once.
    def start_reading(self) -> bool:
        """Waiting (or left half-read by a worker that died) -> being read; False if not waiting."""
        return self._advance(
            (self.ParseStatus.PENDING, self.ParseStatus.PROCESSING), self.ParseStatus.PROCESSING, parse_error=""
        )

    def record_reading(self, text: str, medications: list[dict], seconds: float) -> bool:
        """Being read -> read: the text and the medications found wait for the patient to check them."""
        return self._advance(
            (self.ParseStatus.PROCESSING,),
            self.ParseStatus.NEEDS_REVIEW,
            ocr_text=text,
            extracted=medications,
            read_seconds=round(seconds, 3),
            parsed_at=timezone.now(),
        )

    def record_failure(self, reason: str) -> bool:
        """Being read -> could not be read, with the reason the patient sees."""
        return self._advance((self.ParseStatus.PROCESSING,), self.ParseStatus.FAILED, parse_error=reason[:255])

    def retry(self) -> None:
        """A failed read is queued again; ``InvalidTransition`` from any other state."""
        if not self._advance((self.ParseStatus.FAILED,), self.ParseStatus.PENDING, parse_error=""):
            state = self.get_parse_status_display().lower()
            raise InvalidTransition(f"Only a prescription that could not be read can be read again; it is {state}.")

    def mark_confirmed(self) -> None:
        """Read -> confirmed, once the patient has checked its medications (they are scheduled by the
        caller in the same transaction); ``InvalidTransition`` if it was not waiting for that."""
        if not self._advance((self.ParseStatus.NEEDS_REVIEW,), self.ParseStatus.CONFIRMED, confirmed_at=timezone.now()):
            raise InvalidTransition(
                f"This prescription is {self.get_parse_status_display().lower()}: there is nothing to confirm."
            )

    def _advance(self, allowed: tuple[str, ...], target: str, **fields) -> bool:
        fields.setdefault("status_changed_at", timezone.now())
        moved = Prescription.objects.filter(pk=self.pk, parse_status__in=allowed).update(parse_status=target, **fields)
        if moved:
            self.parse_status = target
            for name, value in fields.items():
                setattr(self, name, value)
        return bool(moved)


class Medication(models.Model):
    class FoodTiming(models.TextChoices):
        ANY = "any", "With or without food"
        BEFORE = "before", "Before food"
        WITH = "with", "With food"
        AFTER = "after", "After food"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="medications")
    prescription = models.ForeignKey(
        Prescription, null=True, blank=True, on_delete=models.SET_NULL, related_name="medications"
    )
    name = models.CharField(max_length=120)
    strength = models.CharField(max_length=40, blank=True, help_text="e.g. 500 mg")
    dose = models.CharField(max_length=40, blank=True, help_text="e.g. 1 tablet")
    times_per_day = models.PositiveSmallIntegerField(
        default=1, validators=[MinValueValidator(1), MaxValueValidator(12)]
    )
    clock_times = models.JSONField(default=list, blank=True, help_text='Local times, e.g. ["08:00", "20:00"].')
    default_times = models.BooleanField(
        default=False,
        help_text='The clock times are the app\'s defaults for what the patient said ("twice a day"), '
        "not times the patient gave; cleared when the patient sets the times.",
    )
    food_timing = models.CharField(max_length=8, choices=FoodTiming.choices, default=FoodTiming.ANY)
    duration_days = models.PositiveSmallIntegerField(null=True, blank=True)
    start_date = models.DateField()
    end_date = models.DateField(null=True, blank=True)
    instructions = models.CharField(max_length=255, blank=True)
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=Q(times_per_day__gte=1, times_per_day__lte=12), name="medication_times_per_day_range"
            ),
            models.CheckConstraint(
                condition=Q(end_date__isnull=True) | Q(end_date__gte=F("start_date")),
                name="medication_end_after_start",
            ),
        ]

    def __str__(self) -> str:
        return " ".join(part for part in (self.name, self.strength) if part)

    def save(self, *args, **kwargs) -> None:
        # A medication switched back on resumes from now: the days it was off are not missed doses.
        resuming = self.pk is not None and self.active and Medication.objects.filter(pk=self.pk, active=False).exists()
        super().save(*args, **kwargs)
        if resuming:
            self.reminders.update(checked_until=timezone.now())

    @property
    def in_lexicon(self) -> bool:
        """Whether the name is a medicine the medicines lexicon knows (a typo of one included). Any
        other name was stored because the patient typed it (the API) or confirmed it (the chat): the
        page and the API flag it for them to check with their pharmacist."""
        return known_medicine(self.name) is not None

    def set_times(self, clock_times: list[str]) -> None:
        """The patient chose these local times ("HH:MM", sorted; none: as needed): they are no longer
        the app's defaults, and the reminders follow them."""
        with transaction.atomic():
            self.clock_times = list(clock_times)
            self.times_per_day = max(1, len(clock_times))
            self.default_times = False
            self.save(update_fields=["clock_times", "times_per_day", "default_times"])
            self.sync_reminders()

    def stop(self) -> None:
        """The patient stopped taking it: no more reminders; its dose history stays."""
        if self.active:
            self.active = False
            self.save(update_fields=["active"])

    def sync_reminders(self) -> None:
        """Make the enabled reminders the medication's clock times: one per time, others switched off
        (kept, with their dose history)."""
        times = [dt.time.fromisoformat(value) for value in self.clock_times]
        for moment in times:
            Reminder.objects.update_or_create(medication=self, time_of_day=moment, defaults={"enabled": True})
        self.reminders.exclude(time_of_day__in=times).update(enabled=False)


def current_time() -> dt.datetime:
    """``timezone.now()`` looked up when called (a field default bound to the function itself would
    escape a clock that tests or a replay set)."""
    return timezone.now()


class Reminder(models.Model):
    medication = models.ForeignKey(Medication, on_delete=models.CASCADE, related_name="reminders")
    time_of_day = models.TimeField(help_text="In the patient's time zone.")
    enabled = models.BooleanField(default=True)
    checked_until = models.DateTimeField(
        default=current_time,
        help_text="Every dose due up to this moment has its dose event (the dispatcher's mark). A new or "
        "re-enabled reminder starts here: no dose is owed from before it was on.",
    )

    class Meta:
        ordering = ["time_of_day"]
        constraints = [
            models.UniqueConstraint(fields=["medication", "time_of_day"], name="reminder_unique_time"),
        ]

    def __str__(self) -> str:
        return f"{self.medication} at {self.time_of_day:%H:%M}"

    def save(self, *args, **kwargs) -> None:
        # Switched back on: the time it was off owes no doses (and sends no late reminders).
        if self.pk is not None and self.enabled and Reminder.objects.filter(pk=self.pk, enabled=False).exists():
            self.checked_until = timezone.now()
            if kwargs.get("update_fields") is not None:
                kwargs["update_fields"] = {*kwargs["update_fields"], "checked_until"}
        super().save(*args, **kwargs)


class DoseEvent(models.Model):
    """One dose of one reminder on one of the patient's days, and what became of it.

    due -> sent (the reminder went out; ``late`` when it went out well after the due time, after the
    app was not running) -> taken / skipped (the patient said so) or snoozed (re-sent at
    ``snoozed_until``, once per snooze) or missed (not acted on: re-alerted once first, see
    ``health.scheduler.dispatch``). A dose found overdue beyond the catch-up horizon is recorded
    missed without ever being sent (``sent_at`` stays empty). Taken and skipped stay possible after
    missed: the record says what the patient did.
    """

    class State(models.TextChoices):
        DUE = "due", "Due"
        SENT = "sent", "Reminder sent"
        TAKEN = "taken", "Taken"
        SNOOZED = "snoozed", "Snoozed"
        SKIPPED = "skipped", "Skipped"
        MISSED = "missed", "Missed"

    # Taken also late, after it was marked missed or skipped by mistake: the record should say what happened.
    TAKEABLE_STATES = (State.DUE, State.SENT, State.SNOOZED, State.MISSED, State.SKIPPED)
    SKIPPABLE_STATES = (State.DUE, State.SENT, State.SNOOZED, State.MISSED)
    SNOOZABLE_STATES = (State.DUE, State.SENT, State.SNOOZED)
    # Still waiting for the patient: the dispatcher may remind, re-alert or mark missed.
    OPEN_STATES = (State.DUE, State.SENT, State.SNOOZED)
    SNOOZE_MINUTES = (10, 30, 60)

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="dose_events")
    reminder = models.ForeignKey(Reminder, on_delete=models.CASCADE, related_name="dose_events")
    due_at = models.DateTimeField()
    due_on = models.DateField(
        null=True,
        blank=True,
        help_text="The patient's local date of the dose: one dose per reminder and day, also when the "
        "patient's time zone changes.",
    )
    state = models.CharField(max_length=8, choices=State.choices, default=State.DUE)
    sent_at = models.DateTimeField(null=True, blank=True, help_text="When the latest reminder for it went out.")
    late = models.BooleanField(
        default=False, help_text="The first reminder went out well after the due time (the app was not running)."
    )
    acted_at = models.DateTimeField(null=True, blank=True)
    snoozed_until = models.DateTimeField(null=True, blank=True)
    realerted_at = models.DateTimeField(null=True, blank=True, help_text='When "still not taken" went out.')
    missed_at = models.DateTimeField(null=True, blank=True)
    carer_notified_at = models.DateTimeField(
        null=True, blank=True, help_text="When the carers were messaged about this missed dose."
    )

    class Meta:
        ordering = ["-due_at"]
        constraints = [
            models.UniqueConstraint(fields=["reminder", "due_at"], name="dose_unique_per_reminder_time"),
            models.UniqueConstraint(fields=["reminder", "due_on"], name="dose_unique_per_reminder_day"),
        ]
        indexes = [models.Index(fields=["state", "due_at"])]

    def __str__(self) -> str:
        return f"{self.reminder.medication} due {self.due_at:%Y-%m-%d %H:%M} ({self.state})"

    # --- what the patient does -----------------------------------------------------------

    def take(self) -> DoseEvent:
        """Record that the patient took the dose (also late, after it was marked missed)."""
        return self._move(self.State.TAKEN, self.TAKEABLE_STATES, "This dose is already {state}.")

    def skip(self) -> DoseEvent:
        """Record that the patient chose not to take this dose."""
        return self._move(self.State.SKIPPED, self.SKIPPABLE_STATES, "Cannot skip a dose that is {state}.")

    def snooze(self, minutes: int) -> DoseEvent:
        """Record that the patient put off this dose (not taken or missed) for ``minutes`` (10, 30 or
        60): snoozed, with ``snoozed_until`` that far from now, when the reminder goes out again."""
        if minutes not in self.SNOOZE_MINUTES:
            raise ValueError(f"Snooze for {', '.join(map(str, self.SNOOZE_MINUTES))} minutes, not {minutes}.")
        return self._move(
            self.State.SNOOZED,
            self.SNOOZABLE_STATES,
            "Cannot snooze a dose that is {state}.",
            snooze=dt.timedelta(minutes=minutes),
        )

    @classmethod
    def take_ahead(cls, reminder: Reminder, day: dt.date, due_at: dt.datetime) -> DoseEvent:
        """Record the dose of ``reminder`` on the patient's local ``day`` (due at ``due_at``) as taken
        before its reminder went off: its row is made now, already taken. The dispatcher makes each
        dose once per reminder and day, so it finds this one made and never reminds it. When the row
        exists already (the reminder went off meanwhile), that dose is taken as usual, or refused
        when it is taken or skipped. Whether the dose may be taken this early is the caller's rule
        (``health.scheduler.ahead``)."""
        try:
            with transaction.atomic():
                dose = cls.objects.create(
                    user_id=reminder.medication.user_id,
                    reminder=reminder,
                    due_at=due_at,
                    due_on=day,
                    state=cls.State.TAKEN,
                    acted_at=timezone.now(),
                )
                payload = {
                    "id": dose.pk,
                    "medication": reminder.medication_id,
                    "state": dose.state,
                    "due_at": dose.due_at.isoformat(),
                }
                transaction.on_commit(lambda: push_to_user(dose.user_id, Event.DOSE, payload), robust=True)
        except IntegrityError:
            existing = cls.objects.filter(Q(due_on=day) | Q(due_at=due_at), reminder=reminder).first()
            if existing is None:
                raise
            return existing.take()
        return dose

    def _move(
        self, target: str, allowed: tuple[str, ...], refusal: str, snooze: dt.timedelta | None = None
    ) -> DoseEvent:
        """Lock the row; from a state not ``allowed`` refuse with ``refusal``
        (``InvalidTransition``), else move to ``target``, acted on now."""
        with transaction.atomic():
            locked = DoseEvent.objects.select_for_update().get(pk=self.pk)
            if locked.state not in allowed:
                raise InvalidTransition(refusal.format(state=locked.state))
            now = timezone.now()
            locked.state, locked.acted_at = target, now
            locked.snoozed_until = None if snooze is None else now + snooze
            locked.save(update_fields=["state", "acted_at", "snoozed_until"])
            payload = {
                "id": locked.pk,
                "medication": locked.reminder.medication_id,
                "state": locked.state,
                "due_at": locked.due_at.isoformat(),
            }
            user_id = locked.user_id
            # The patient's other open pages (home, medications) show the dose's new state.
            transaction.on_commit(lambda: push_to_user(user_id, Event.DOSE, payload), robust=True)
        self.state, self.acted_at, self.snoozed_until = locked.state, locked.acted_at, locked.snoozed_until
        return self

    # --- what the dispatcher does ---------------------------------------------------------
    # Each is one conditional UPDATE that returns whether this call made the change: of two
    # dispatchers running the same tick (or a tick racing the patient's tap) exactly one wins, and
    # only the winner sends anything. Call them inside the transaction that records what is sent.

    def mark_sent(self, now: dt.datetime, *, late: bool) -> bool:
        """due -> sent: the first reminder goes out now."""
        return self._claim(Q(state=self.State.DUE), state=self.State.SENT, sent_at=now, late=late)

    def mark_resent(self, now: dt.datetime) -> bool:
        """snoozed -> sent once the snooze is over: the reminder goes out again (once per snooze)."""
        return self._claim(Q(state=self.State.SNOOZED, snoozed_until__lte=now), state=self.State.SENT, sent_at=now)

    def mark_realerted(self, now: dt.datetime) -> bool:
        """Still sent, never re-alerted: the one "still not taken" goes out now."""
        return self._claim(Q(state=self.State.SENT, realerted_at__isnull=True), realerted_at=now)

    def mark_missed(self, now: dt.datetime) -> bool:
        """Not acted on (or found too late to remind): missed."""
        return self._claim(Q(state__in=self.OPEN_STATES), state=self.State.MISSED, missed_at=now)

    def mark_carer_notified(self, now: dt.datetime) -> bool:
        """The carers are told of this missed dose, once."""
        return self._claim(Q(state=self.State.MISSED, carer_notified_at__isnull=True), carer_notified_at=now)

    def _claim(self, condition: Q, **changes) -> bool:
        won = DoseEvent.objects.filter(condition, pk=self.pk).update(**changes) == 1
        if won:
            for field, value in changes.items():
                setattr(self, field, value)
        return won
