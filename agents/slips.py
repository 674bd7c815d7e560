"""The two commonest phone slips, read back: a letter typed twice ("bluue", "ddid", "killl") and two
neighbouring letters swapped ("wiht", "oen", "daet").

Shared by the desks' typo reading (agents.desk_reading) and the help-now guard's (agents.help_now),
each of which says which words a slip may be read into. Written by hand: rapidfuzz's edit distances
find every word one edit away, where these are the two edits a thumb makes, which is what lets a
short word be read at all ("oen" is one edit from "one", "ten", "open", "den"...).
"""

from __future__ import annotations


def undoubled(word: str) -> set[str]:
    """``word`` with one letter of a doubled pair taken out: "bluue" -> {"blue"}."""
    return {word[:i] + word[i + 1 :] for i in range(1, len(word)) if word[i] == word[i - 1]}


def unswapped(word: str) -> set[str]:
    """``word`` with two neighbouring letters swapped back: "oen" -> {"eon", "one"}."""
    return {word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(len(word) - 1) if word[i] != word[i + 1]}


def only(candidates: set[str]) -> str | None:
    """The one word a slip can be read into, or None when there is none or more than one."""
    return next(iter(candidates)) if len(candidates) == 1 else None
