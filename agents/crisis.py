"""Thoughts of suicide or self-harm: a caring answer at once, with where to get help now.

"I want to kill myself" reached the model, which was trained to book specialists. A message that
speaks of suicide or self-harm is answered before anything else the chat does (after the help-now
guard, which starts the hard SOS for "I took all my pills" or "he's not breathing"), without the
model, with ``agents/templates/agents/crisis.txt``: the emergency number, the SOS button, crisis
lines, and that saying "start the SOS" starts it. Nothing is stored or sent.

Hand-written patterns on purpose, like agents.help_now: a missed message is the costly error, so
they err toward answering; the answer is supportive and harmless when it was not needed ("my
friend's suicide last year" gets it too).
"""

from __future__ import annotations

import re

from agents.help_now import render_reply

_CRISIS = re.compile(
    r"\b(?:kill\w*|hurt\w*|harm\w*|cut\w*|hang\w*|shoot\w*|poison\w*|drown\w*|burn\w*|starv\w*)\s+"
    r"(?:my ?self|meself)\b"
    # an accident says how it happened: "I cut myself shaving", "burned myself on the oven"
    r"(?!\s+(?:shaving|cooking|chopping|gardening|on (?:a|an|the|some|my)|by accident|accidentally|slightly|a little|"
    r"with (?:a|the) (?:knife|razor|scissors) (?:while|when|cooking|chopping)|while|when|at work|in the kitchen))"
    r"|\bsuicid\w*|\bself[- ]?harm\w*"
    r"|\b(?:end|take)\s+(?:my|my own)\s+life\b|\bend it all\b"
    # "I'm going to end it tonight" (not "end it with him")
    r"|\b(?:going to|gonna|want to|wanna|ready to|about to)\s+end it\b(?!\s+(?:with|off|between|for|early))"
    r"|\b(?:want|wanna|going|gonna|ready|plan(?:ning)?)\s+(?:to\s+)?die\b"
    r"|\bwish\s+(?:i\s+)?(?:was|were|had)\s+(?:dead|never been born)\b|\bbetter off (?:dead|without me)\b"
    r"|\bno (?:reason|point) (?:to|in) (?:live|living|go on|going on)\b"
    r"|\b(?:don'?t|do not|dont)\s+want\s+to\s+(?:live|be alive|be here|wake up)(?:\s+any\s*more)?\b",
    re.IGNORECASE,
)


def crisis(message: str) -> bool:
    """Whether ``message`` speaks of suicide or self-harm."""
    return bool(_CRISIS.search(" ".join(str(message).split())))


def reply() -> str:
    """The answer (agents/crisis.txt), on one line."""
    return render_reply("crisis.txt")
