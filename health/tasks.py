"""Celery tasks of the health app.

Tasks stay thin: they take ids (JSON only), call a service, and own nothing
but the retry policy. The services hold the rules.
"""

from __future__ import annotations

import datetime as dt

from celery import shared_task
from django.contrib.auth import get_user_model

from health import sos
from health.messaging import delivery
from health.messaging.transports import TransportError
from health.reports import due as reports_due
from health.reports import generate
from health.scheduler import dispatch, review
from health.sos import flows
from health.sos.flows import sos_flows

# Retry policy for SMS delivery. The countdown grows 10 s, 20 s, 40 s ... up to
# 3 minutes, with full jitter so a provider outage does not end in a burst of
# synchronised retries; eight retries span roughly a quarter of an hour at most.
# The cap stays below the sweep's STALE_AFTER so the sweep does not pick up a
# message whose retry is merely waiting.
DELIVERY_MAX_RETRIES = 8
WAIT_FOR_EARLIER_SECONDS = 1


@shared_task(
    bind=True,
    acks_late=True,
    # Only transient errors reach here: deliver() settles permanent ones.
    autoretry_for=(TransportError,),
    retry_backoff=10,
    retry_backoff_max=180,
    retry_jitter=True,
    max_retries=DELIVERY_MAX_RETRIES,
)
def deliver_message(self, message_id: int) -> str:
    """Deliver one outbox message (see ``health.messaging.delivery.deliver``);
    after the last retry, mark it failed with the last error."""
    try:
        return delivery.deliver(message_id).value
    except delivery.WaitForEarlier as exc:
        # The SOS message before it to the same person is still on its way:
        # look again in a second (not on the provider-error backoff), and
        # never give up on it: the SOS sweep also watches the earlier one.
        if self.request.is_eager:
            return "waiting"  # inline (no worker): the sweep takes it up, no busy loop here
        raise self.retry(countdown=WAIT_FOR_EARLIER_SECONDS, max_retries=None) from exc
    except TransportError as exc:
        if self.request.retries >= self.max_retries:
            delivery.give_up(message_id, exc)
            return delivery.Outcome.FAILED.value
        raise


@shared_task(acks_late=True)
def redeliver_stale_messages() -> int:
    """Enqueue delivery again for every message left queued too long; return
    how many. Run periodically by beat (``health.messaging.schedule``)."""
    message_ids = delivery.stale_message_ids()
    for message_id in message_ids:
        deliver_message.delay(message_id)
    return len(message_ids)


# --- SOS and the vitals monitor ---------------------------------------------------------
# The end waits for a start flow still running in another worker: a second at
# first, never more than ten between tries, for up to about ten minutes.
END_MAX_RETRIES = 60


@shared_task(acks_late=True)
def hard_sos_countdown_elapsed(alert_id: int) -> bool:
    """Open a hard SOS whose countdown is over and run its start flow
    (``health.sos.open_after_countdown``); early or repeated runs do nothing."""
    return sos.open_after_countdown(alert_id)


@shared_task(acks_late=True)
def sweep_sos_countdowns() -> int:
    """Enqueue the countdown task for every overdue or stalled hard SOS, and the end task for every
    end nobody is running; return how many. Run periodically by beat (``health.monitor.schedule``)."""
    alert_ids = sos.overdue_alert_ids()
    for alert_id in alert_ids:
        hard_sos_countdown_elapsed.delay(alert_id)
    # Ends the patient asked for whose end flow nobody is running (its task was lost).
    ending = sos.stalled_end_alert_ids()
    for alert_id in ending:
        end_hard_sos.delay(alert_id)
    # SOS messages whose delivery nobody is working on (a worker died holding
    # one, a task was lost): every few seconds, not on the minute-long sweep.
    message_ids = delivery.stalled_sos_message_ids()
    for message_id in message_ids:
        deliver_message.delay(message_id)
    return len(alert_ids) + len(ending) + len(message_ids)


@shared_task(
    acks_late=True,
    autoretry_for=(sos.StartInProgress,),
    retry_backoff=1,
    retry_backoff_max=10,
    retry_jitter=False,
    max_retries=END_MAX_RETRIES,
)
def end_hard_sos(alert_id: int) -> bool:
    """Run the end flow, release the ambulance and resolve (``health.sos.finish_end``)."""
    return sos.finish_end(alert_id)


@shared_task(acks_late=True)
def soft_sos(alert_id: int) -> int:
    """Run the Action Manager's soft SOS flow for an alert the monitor raised."""
    return sos_flows().run(alert_id, flows.SOFT_SOS).conversation_id


# --- the Scheduler ----------------------------------------------------------------------------
@shared_task(acks_late=True)
def read_prescription(prescription_id: int) -> str:
    """Read an uploaded prescription with EasyOCR and keep the medications found for the patient
    to check (``health.scheduler.review.read``). Routed to the ``ocr`` queue (``CELERY_TASK_ROUTES``),
    its own worker process, so a reading never holds up an SOS message."""
    return review.read(prescription_id)


@shared_task(acks_late=True)
def requeue_stalled_readings() -> int:
    """Queue again the readings the broker or a dead worker lost (``review.requeue_stalled_readings``);
    run by beat (``health.scheduler.beat``)."""
    return review.requeue_stalled_readings()


@shared_task(acks_late=True)
def dispatch_due_doses() -> int:
    """Remind each dose that fell due, re-send snoozed ones, re-alert and mark missed
    (``health.scheduler.dispatch``); return how many steps it took. Run every minute by beat
    (``health.scheduler.beat``); the clock is read inside, so a late run acts on the present."""
    return dispatch.dispatch_due_doses().total


# --- the daily report -------------------------------------------------------------------------
@shared_task(acks_late=True)
def write_daily_reports() -> int:
    """Enqueue the report of every patient whose evening report is due now (``health.reports.due``);
    return how many. Run every five minutes by beat (``health.reports.beat``)."""
    due = reports_due.due_reports()
    for user_id, day in due:
        write_daily_report.delay(user_id, day.isoformat())
    return len(due)


@shared_task(acks_late=True)
def write_daily_report(user_id: int, day: str) -> int:
    """Build (or rebuild) one patient's evening report of one local day and tell them
    (``health.reports.generate``); idempotent, so a redelivered task rewrites the same row and
    notifies nobody twice. Returns the report's id."""
    user = get_user_model().objects.select_related("profile").get(pk=user_id)
    return generate.build(user, dt.date.fromisoformat(day), announce=True).pk
