"""Cancelling a hard SOS from the chat: "cancel the SOS", "false alarm", "I'm OK now, cancel it".

The help-now guard starts the hard SOS with the button's countdown, and its reply says the SOS can be
cancelled on the SOS page. Patients answer in the chat instead, and "cancel it" went to the
appointments desk or the model while the countdown ran on. A message that asks to stop the SOS now
cancels it with the button's own service (``health.sos.cancel``: only while the countdown runs,
so nothing was sent), and the reply says what the alert's record holds.

Two kinds of wording: one that names the SOS ("cancel the ambulance", "stop the SOS", "don't send
anyone") always means it; a short one ("cancel it", "false alarm", "I'm fine now") only right after
this chat started the SOS, when nothing else can be meant. A message that also asks for help ("cancel
that, he's not breathing") is the help-now guard's. Hand-written patterns, as in agents.help_now:
there are few ways to say it, and each is tested with its near misses.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from agents import help_now
from health import sos
from health.models import Alert, AlertEvent

log = logging.getLogger(__name__)

_STOP = r"(?:cancel\w*|stop|abort|call off|call it off|undo|turn off|switch off|end)"
# the SOS itself, not "the emergency contact", "the alarm for my pills" or "the SOS settings"
_THE_SOS = (
    r"(?:sos|ambulance|paramedics|emergency|alert|alarm|countdown)"
    r"(?!\s+(?:reminders?|appointments?|numbers?|contacts?|settings?|page|button|history|for\s+my))"
)
# Names the SOS: "cancel the SOS", "stop the ambulance", "don't send the ambulance", "no ambulance needed".
_NAMED = re.compile(
    # the SOS right after the verb, a word or two between ("stop the bleeding, it's an emergency" is none)
    rf"\b{_STOP}\s+(?:(?:the|my|this|that|our|his|her|an?|whole)\s+)?(?:\w+\s+)?{_THE_SOS}\b"
    rf"|\b(?:don'?t|do not|dont|no need to)\s+(?:send|call)\s+(?:an?\s+|the\s+)?(?:{_THE_SOS}|anyone|anybody|help)\b"
    rf"|\b(?:no|don'?t need (?:an?|the))\s+(?:{_THE_SOS})\s*(?:needed|please|thanks)?\b"
    rf"|\b{_THE_SOS}\s+(?:\w+\s+){{0,2}}?(?:by mistake|by accident|not needed|isn'?t needed|was a mistake)\b",
    re.I,
)
# "I'm fine", "I feel better now", "he's OK"
_BETTER = (
    r"(?:(?:i'?m|i am|we'?re|we are|he'?s|she'?s|they'?re)\s+(?:ok(?:ay)?|fine|safe|alright|all right|good)(?:\s+now)?"
    r"|(?:i\s+)?feel(?:ing)?\s+(?:better|fine|ok(?:ay)?|alright)(?:\s+now)?"
    r"|(?:it'?s|it is|all)\s+(?:ok(?:ay)?|fine|alright|all right|good)(?:\s+now)?)"
)
# Said right after the chat started it: the whole message stands the SOS down.
_SHORT = re.compile(
    rf"^\W*(?:(?:no|nope|sorry|oops|wait|ok(?:ay)?|please|pls)\W+)*"
    rf"(?:cancel(?:\s+(?:it|that|this|please|pls))*|stop(?:\s+(?:it|that))?|false alarm|"
    rf"(?:it|that|this)\s+was\s+(?:a\s+)?(?:mistake|an accident|by (?:mistake|accident))|by (?:mistake|accident)|"
    rf"(?:pressed|sent|typed)\s+(?:it|that)\s+by\s+(?:mistake|accident)|never ?mind|not an emergency|"
    rf"i\s+(?:don'?t|do not)\s+need\s+(?:it|help|an ambulance)|{_BETTER})"
    rf"(?:\W+(?:now|please|pls|thanks|thank you|cancel(?:\s+(?:it|that))?|false alarm|{_BETTER}))*\W*$",
    re.I,
)


def asks_to_cancel(message: str, *, just_started: bool) -> bool:
    """Whether ``message`` asks to stop the SOS (a short wording only when ``just_started``), and asks
    for no help besides."""
    text = help_now.normalised(message)
    if not (_NAMED.search(text) or (just_started and _SHORT.search(text))):
        return False
    rest = _SHORT.sub(" ", _NAMED.sub(" ", text))
    return help_now.emergency(rest) is None


@dataclass(frozen=True)
class Cancelled:
    alert: Alert | None  # the hard SOS the message was about (None: there was none)
    reply: str
    summary: str  # for the trajectory: what happened, in a line


def cancel_sos(user, conversation_id: int | None = None) -> Cancelled:
    """Cancel the user's hard SOS in its countdown with the button's service, or say why not; never
    raises, so the user is always told what the record holds."""
    alert = sos.active_hard_sos(user)
    if alert is None:
        return Cancelled(None, help_now.render_reply("help_now_cancel_none.txt"), "no SOS under way: nothing to cancel")
    try:
        alert = sos.cancel(alert)
    except sos.SosRefused:
        alert.refresh_from_db()
        return Cancelled(
            alert, help_now.render_reply("help_now_cancel_too_late.txt"), f"hard SOS #{alert.pk} already went out"
        )
    except Exception as exc:  # noqa: BLE001  (the user must still be told the SOS may go out)
        log.error("help-now guard: cancelling the hard SOS failed (%s)", type(exc).__name__)
        alert.refresh_from_db()
        return Cancelled(
            alert, help_now.render_reply("help_now_cancel_failed.txt"), f"hard SOS #{alert.pk}: cancelling failed"
        )
    AlertEvent.objects.create(
        alert=alert,
        kind="chat_cancel",
        message="Cancelled in the assistant chat.",
        data={"conversation": conversation_id},
    )
    return Cancelled(
        alert, help_now.render_reply("help_now_cancelled.txt"), f"hard SOS #{alert.pk} cancelled in its countdown"
    )
