"""The words a patient calls their medicines by ("my pills", "the tablets", "his meds"), shared by
the medicines desk (agents.medicine_desk: a dose taken, today's doses) and the help-now guard
(agents.help_now: a child who got into the medicines, an overdose). Each adds the words only it needs.
"""

from __future__ import annotations

PILL_WORDS = (
    "pill", "pills", "tablet", "tablets", "tabs", "capsule", "capsules", "caps", "meds", "medicine", "medicines",
    "medication", "medications", "painkiller", "painkillers", "vitamin", "vitamins", "supplement", "supplements",
    "antibiotics", "iron",
)  # fmt: skip
# The words as a pattern, longest first so that "medications" is not read as "medication" and an "s".
PILLS = "(?:" + "|".join(sorted(PILL_WORDS, key=len, reverse=True)) + ")"
