"""The commonest phone slips, read back: a letter typed twice ("bluue", "ddid", "killl"), two
neighbouring letters swapped ("wiht", "oen", "daet"), a letter left out of a short word ("rsh") and a
key's neighbour hit instead of it ("paim" for "pain": m is next to n).

Shared by the desks' typo reading (agents.desk_reading) and the help-now guard's (agents.help_now),
each of which says which words a slip may be read into. Written by hand: rapidfuzz's edit distances
find every word one edit away, where these are the edits a thumb makes, which is what lets a short
word be read at all ("oen" is one edit from "one", "ten", "open", "den"...). The keyboard's rows are
written out below because no installed library carries a key layout.
"""

from __future__ import annotations

from string import ascii_lowercase

_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")


def _neighbours() -> dict[str, str]:
    """Each letter's neighbours on a QWERTY keyboard: beside it in its row, and the keys of the rows
    above and below that touch it (each row sits about half a key to the right of the one above)."""
    found: dict[str, str] = {}
    for row, line in enumerate(_ROWS):
        for col, key in enumerate(line):
            near = {line[i] for i in (col - 1, col + 1) if 0 <= i < len(line)}
            for other, shifts in ((row - 1, (0, 1)), (row + 1, (-1, 0))):
                if 0 <= other < len(_ROWS):
                    near |= {_ROWS[other][col + d] for d in shifts if 0 <= col + d < len(_ROWS[other])}
            found[key] = "".join(sorted(near))
    return found


_NEIGHBOURS = _neighbours()


def undoubled(word: str) -> set[str]:
    """``word`` with one letter of a doubled pair taken out: "bluue" -> {"blue"}."""
    return {word[:i] + word[i + 1 :] for i in range(1, len(word)) if word[i] == word[i - 1]}


def unswapped(word: str) -> set[str]:
    """``word`` with two neighbouring letters swapped back: "oen" -> {"eon", "one"}."""
    return {word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(len(word) - 1) if word[i] != word[i + 1]}


def restored(word: str) -> set[str]:
    """``word`` with a left-out letter put back: "rsh" -> {"rash", "rush", "rsha", ...}."""
    return {word[:i] + letter + word[i:] for i in range(len(word) + 1) for letter in ascii_lowercase}


def unslipped(word: str) -> set[str]:
    """``word`` with one letter replaced by a key next to it: "paim" -> {"pain", "paij", "paik", ...}."""
    return {word[:i] + near + word[i + 1 :] for i, key in enumerate(word) for near in _NEIGHBOURS.get(key, "")}


def only(candidates: set[str]) -> str | None:
    """The one word a slip can be read into, or None when there is none or more than one."""
    return next(iter(candidates)) if len(candidates) == 1 else None
