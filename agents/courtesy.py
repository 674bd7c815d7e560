"""Courtesies said as the whole message: "hi", "thanks", "ok bye", "help", "what can you do?".

Patients greet the assistant, thank it after an answer and ask what it does. The model was trained
on requests, and a courtesy gave it nothing to act on: it asked for symptoms or searched for a
specialist. Such a message gets a short answer at once, without the model, from
``agents/templates/agents/courtesy_<kind>.txt``: what the assistant can do, and how to start the
SOS. Nothing is booked, stored or sent. Only the whole message counts ("thanks, and cancel my
appointment" is a request), and a cry for help is the help-now guard's before this one is asked
("help!", "help me now").
"""

from __future__ import annotations

import re

from agents.desk_reading import shorthand_read
from agents.help_now import render_reply

GREETING, THANKS, WHAT_I_DO = "greeting", "thanks", "what_i_do"

_THANKS = re.compile(
    r"^\W*(?:(?:ok(?:ay)?|great|perfect|lovely|brilliant|cool|good|fine|alright|all right|right|nice|wonderful|"
    r"thanks|thank you|thank u|thanks a lot|many thanks|thx|ty|cheers|ta|much appreciated|that'?s (?:all|it|great)|"
    r"that is all|nothing else|no(?:pe)?|bye|goodbye|bye bye|see you|good ?night|you'?re (?:great|a star)|"
    r"so much|very much|again|for (?:that|your help|the help|everything))(?:\W+|$))+$",
    re.I,
)
# Only a thanks or a goodbye makes the whole message one: "ok", "no" or "good" alone answer a question.
_SAYS_THANKS = re.compile(
    r"\b(?:thanks?|thank (?:you|u)|thx|ty|cheers|ta|appreciated|bye|goodbye|see you|good ?night)\b", re.I
)
# A greeting word first ("again?" or "there" alone greet nobody), then more of the same.
_GREETING = re.compile(
    r"^\W*(?:hi|hello|hey|hiya|howdy|good (?:morning|afternoon|evening)|morning|evening)\b"
    r"(?:\W+(?:hi|hello|hey|there|again|all|everyone|how are you(?: (?:doing|today))?|how'?s it going))*\W*$",
    re.I,
)
_WHAT_I_DO = re.compile(
    r"^\W*(?:(?:hi|hello|hey)\W+)?(?:help|menu|options|what can you do(?: for me)?|what do you do|"
    r"what are you(?: for)?|who are you|how does this (?:app )?work|how do i use (?:this|you|the app)|"
    r"what(?:'s| is) your name|who (?:made|built|created|programmed) you|are you (?:a|an) (?:real |actual )?"
    r"(?:person|human|robot|bot|ai|doctor|machine))\W*$",
    re.I,
)


def courtesy(message: str) -> str | None:
    """The courtesy ``message`` is, as the whole message (``GREETING``, ``THANKS``, ``WHAT_I_DO``), or None."""
    text = shorthand_read(" ".join(str(message).split()))
    if not text:
        return None
    if _WHAT_I_DO.search(text):
        return WHAT_I_DO
    if _THANKS.search(text) and _SAYS_THANKS.search(text):
        return THANKS
    if _GREETING.search(text):
        return GREETING
    return None


def reply(kind: str) -> str:
    """The answer for ``kind`` (agents/templates/agents/courtesy_<kind>.txt), on one line."""
    return render_reply(f"courtesy_{kind}.txt")
