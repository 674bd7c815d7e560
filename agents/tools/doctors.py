"""A doctor the patient names ("Dr Chen", "doctor Sarah Chen", "dr. herrera"): the directory's
specialist of that name, or none when nobody of that name is in it.

Read from the patient's own words in the request, as the day and the part of the day are
(agents.tools.preferences), so that a search for the doctor's specialization offers that doctor's
times whether the booking desk or the model asked for it, and a name that is not in the directory
is said to be missing rather than silently replaced by another doctor.

Hand-written rather than a named-entity model: the only names that matter are the directory's own,
matched by surname (or first name and surname), accents and case aside, and a typo of a surname of
five letters or more (rapidfuzz's optimal string alignment, one edit).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from health.models import Specialist

# "Dr Chen", "dr. chen", "Doctor Sarah Chen"
_TITLED = re.compile(r"\b(dr\.?|doctor)\s+([A-Za-zÀ-ÿ][\w'-]*)(?:\s+([A-Za-zÀ-ÿ][\w'-]*))?", re.I)
# Words after "doctor" that are no name: "the doctor appointment", "a doctor on friday", "doctor said".
_NOT_A_NAME = frozenset(
    """appointment appointments appt appts visit visits slot slots on at in for to is was and or next this
    please pls plz thanks thank again instead today tonight tomorrow who that about said says told asked
    the a an my your his her our their available free asap soon visit check checkup up appointment's
    monday tuesday wednesday thursday friday saturday sunday morning afternoon evening week
    i i'm im me we you he she they it if but so do does did can could would should will need needs have has had
    be been not no yes ok okay just only also still as than then with by of from out off what which when where
    why how there here all any some""".split()
)
_HONORIFICS = frozenset({"dr", "mr", "mrs", "ms", "miss", "prof", "professor", "doctor"})


@dataclass(frozen=True)
class NamedDoctor:
    said: str  # the name as the patient wrote it, with its title ("Dr Patel")
    specialist: Specialist | None  # None: nobody of that name is in the directory


def _plain(word: str) -> str:
    """Lower case without accents: "Tomás" -> "tomas"."""
    return unicodedata.normalize("NFKD", word).encode("ascii", "ignore").decode().lower().strip(".'")


def _names(specialist: Specialist) -> tuple[str, str]:
    """The specialist's first name and surname, without the title ("Dr. Sarah Chen" -> sarah, chen)."""
    words = [_plain(w) for w in specialist.name.split() if _plain(w) not in _HONORIFICS]
    return (words[0] if len(words) > 1 else "", words[-1] if words else "")


def _matching(first: str, second: str, people: list[Specialist]) -> list[Specialist]:
    from rapidfuzz.distance import OSA

    names = {person.pk: _names(person) for person in people}
    exact = [
        p for p in people if names[p.pk][1] in (first, second) and (names[p.pk][1] == first or names[p.pk][0] == first)
    ]
    if exact:
        return exact
    return [
        p
        for p in people
        if len(names[p.pk][1]) >= 5
        and (OSA.distance(first, names[p.pk][1]) <= 1 or OSA.distance(second, names[p.pk][1]) <= 1)
    ]


def doctor_named(text: str) -> NamedDoctor | None:
    """The doctor ``text`` names with a title, or None when it names none. A name the directory lacks
    counts only after "Dr" or capitalised ("Doctor Patel"), so that "the doctor said" names nobody."""
    people = None
    for match in _TITLED.finditer(str(text)):
        title, first, second = match.group(1), match.group(2), match.group(3) or ""
        if _plain(first) in _NOT_A_NAME:
            continue
        if people is None:
            people = list(Specialist.objects.filter(active=True).select_related("specialization"))
        found = _matching(_plain(first), "" if _plain(second) in _NOT_A_NAME else _plain(second), people)
        if len(found) == 1:
            return NamedDoctor(f"{title} {first}", found[0])
        # A name nobody in the directory has: after "Dr", or written as a name ("Doctor Young"); "what
        # kind of doctor I need" names nobody.
        if not found and len(first) >= 2 and (title.lower().startswith("dr") or first[:1].isupper()):
            return NamedDoctor(f"Dr {first[:1].upper()}{first[1:]}", None)
    return None
