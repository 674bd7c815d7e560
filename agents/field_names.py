"""The short forms of the directory's specializations that clinics and patients use ("a derm appt",
"neuro on friday", "cancel my cardio appointment"): read by the booking desk (which field to book)
and by the appointments desk (which appointment is meant).

Written out, not derived: a prefix alone is ambiguous ("endo" is not "end"), and these are the
clippings in common use. They are not typo targets (agents.appointment_desk.directory_words): a
four-letter clipping would bend ordinary words into a field ("dear" into "derm").
"""

from __future__ import annotations

import re

CLIPPED = {
    "orthopedist": ("ortho", "orthopaedics", "orthopedics"),
    "psychiatrist": ("psych", "psychiatry"),
    "neurologist": ("neuro",),
    "gastroenterologist": ("gastro",),
    "endocrinologist": ("endo",),
    "gynecologist": ("gyno", "gynae", "obgyn", "ob-gyn", "ob/gyn", "obs and gynae"),
    "urologist": ("uro",),
    "rheumatologist": ("rheum", "rheumy"),
    "nephrologist": ("nephro", "renal"),
    "pulmonologist": ("pulmo", "respiratory"),
    "ophthalmologist": ("ophtho", "eye clinic"),
    "dermatologist": ("derm", "derma", "skin clinic"),
    "cardiologist": ("cardio",),
    "oncologist": ("onc", "onco"),
    "pediatrician": ("peds", "paeds", "paediatrics", "pediatrics"),
}
# The clipping must name the field, not a part of the body or a word: "neuro" followed by a noun of its
# own ("neuro symptoms") still names the field in a booking, so only words that would make it a
# complaint are excluded here.
_CLIP_NOT = r"(?!\s+(?:symptoms?|problems?|issues?|pain)\b)"


def clipped_spans(specialization: str, low: str) -> list[tuple[int, int]]:
    """Where ``low`` (lower case) says one of ``specialization``'s short forms, as (start, end) spans."""
    return [
        found.span()
        for clipped in CLIPPED.get(specialization, ())
        for found in re.finditer(rf"(?<![\w-]){re.escape(clipped)}s?(?![\w-]){_CLIP_NOT}", low)
    ]
