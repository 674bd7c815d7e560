"""SOS: the whole story, hard and soft, in one place.

**Soft SOS** (seed paper D.4). The vitals monitor (``health.monitor.check``) watches each user's
readings; a run of abnormal ones raises a soft SOS alert (``health.sos.soft.raise_soft_sos``):
one open alert per condition and episode, one notification worded from the alert as recorded
(``soft_sos_notice``, templates ``health/sos/soft_*.txt``: SpO₂ %, BP mmHg, HR bpm), and the
Action Manager's soft SOS flow. The patient acknowledges it (the banner closes), escalates it to
a hard SOS, or it is resolved when the readings recover (``clear_episode``).

**Hard SOS** (D.5, D.6), ``health.sos.hard``::

    press / escalate -> COUNTDOWN (cancel: nothing is sent)
        -> OPEN: the start flow (notify, locate, nearest ambulance, SMS to it and to every contact)
        -> end, saying why (help arrived / safe / false alarm): the end flow tells everyone that,
           once, never before the alarm it stands down; the ambulance is released -> RESOLVED

The countdown is a task enqueued with that delay (beat's sweep is the safety net; without a
worker a timer in the web process). A start flow whose worker died is resumed by the sweep.

**Delivery**: every SMS goes through the outbox (``health.messaging``). What the patient reads
about an SOS, on the SOS page and in the assistant's closing message, is
``health.sos.delivery``: "sent" only once the provider accepted the message; "not sent" or
"failed" with the reason, and "call the emergency number now" (``EMERGENCY_NUMBER``).

**The agent flows and their guard.** The start, end and soft flows are the Action Manager's:
the Health Manager starts them through ``health.sos.flows`` (it never imports ``agents``), and
``agents.sos`` registers them: ``agents.sos.flows`` runs them, ``agents.sos.guard`` makes them
complete whatever the model does and writes every step's words from the records
(``agents/templates/agents/sos/``). The tools they call are ``agents.tools.emergency``.

**Entry points**: the API (``health.api.sos``: press, end with a reason, escalate;
``health.api.alerts``: read, acknowledge, cancel), the Celery tasks (``health.tasks``), the SOS
page (``frontend/templates/frontend/sos.html``) and the banners (``soft-sos.js``).
"""

from __future__ import annotations

from health.sos.hard import (
    START_KIND,
    EndReasonMissing,
    SosRateLimited,
    SosRefused,
    StartInProgress,
    active_hard_sos,
    cancel,
    cancel_countdown_timers,
    countdown_seconds,
    ended_as_false_alarm,
    escalate,
    finish_end,
    max_per_hour,
    open_after_countdown,
    overdue_alert_ids,
    pending_countdown_timer,
    press,
    push_alert,
    request_end,
    stalled_end_alert_ids,
    stalled_run_after,
)

__all__ = [
    "START_KIND",
    "EndReasonMissing",
    "SosRateLimited",
    "SosRefused",
    "StartInProgress",
    "active_hard_sos",
    "cancel",
    "cancel_countdown_timers",
    "countdown_seconds",
    "ended_as_false_alarm",
    "escalate",
    "finish_end",
    "max_per_hour",
    "open_after_countdown",
    "overdue_alert_ids",
    "pending_countdown_timer",
    "press",
    "push_alert",
    "request_end",
    "stalled_end_alert_ids",
    "stalled_run_after",
]
