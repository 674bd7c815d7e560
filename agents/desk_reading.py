"""How the chat desks read a message before their patterns: greeting and filler off the front, the
typos of their own words read as the words.

Shared by the appointments, booking, health and medicines desks (agents/*_desk.py). Each desk passes
its vocabulary, the words its patterns are written with.
"""

from __future__ import annotations

import re
from functools import cache

from agents.slips import only, undoubled, unswapped

# "Hello, am I booked in…", "ok so when is…": what comes before the request itself.
_OPENING = re.compile(
    # a bare "morning" or "evening" greets only with a mark after it: "morning meds?" asks for them
    r"^\W*(?:(?:hi|hello|hey|hiya|there|(?:morning|evening)(?=\s*[,.!:;-]|\s+(?:all|there|again)\b)|"
    r"good (?:morning|afternoon|evening)|ok(?:ay)?|um+|uh+|so|"
    r"sorry(?: to (?:bother|trouble) you)?(?: but)?|excuse me|yes|yeah|right|quick question|question|please|pls)\b"
    r"[\s,.!:;-]*)+",
    re.I,
)

# Contractions typed without the apostrophe: never "corrected" ("cant" is not a typo of "can": it
# says the opposite).
_KEPT = frozenset(
    "cant dont wont didnt isnt doesnt havent hasnt shouldnt couldnt wouldnt arent wasnt werent aint im ive id "
    "youre theyre thats whats wheres whens hows lets".split()
)


# Texting shorthand: short forms no typo distance reaches (one or two letters of a three-letter word
# is no "typo"), some of them English words of their own ("wat", "r"), so the typo reading keeps them.
# Whole words only, and only forms that mean one thing in a patient's message to a health assistant.
SHORTHAND = {
    "u": "you",
    "ur": "your",
    "r": "are",
    "wat": "what",
    "wot": "what",
    "wht": "what",
    "hav": "have",
    "fr": "for",
    "wen": "when",
    "whn": "when",
    "hw": "how",
    "nxt": "next",
    "abt": "about",
    "tmrw": "tomorrow",
    "tmrrw": "tomorrow",
    "tmr": "tomorrow",
    "tmw": "tomorrow",
    "2moro": "tomorrow",
    "2morrow": "tomorrow",
    "tdy": "today",
    "tday": "today",
    "2day": "today",
    "tnite": "tonight",
    "tonite": "tonight",
    "2nite": "tonight",
    "wk": "week",
    "b4": "before",
    "pls": "please",
    "plz": "please",
    "wanna": "want to",
    "apt": "appointment",
    "dr": "doctor",
    # weekdays cut short ("sat" and "sun" are words of their own, left alone)
    "mon": "monday",
    "tue": "tuesday",
    "tues": "tuesday",
    "wed": "wednesday",
    "weds": "wednesday",
    "thu": "thursday",
    "thur": "thursday",
    "thurs": "thursday",
    "fri": "friday",
    # specialists cut short ("gastro" is also the illness, "endo" endometriosis, "psych" either kind:
    # those are left to the model)
    "cardio": "cardiologist",
    "derm": "dermatologist",
    "neuro": "neurologist",
    "gynae": "gynaecologist",
    "gyno": "gynaecologist",
    "rheum": "rheumatologist",
    "ortho": "orthopaedist",
}
_SHORTHAND = re.compile(r"(?<![\w'])(" + "|".join(sorted(SHORTHAND, key=len, reverse=True)) + r")(?![\w'])", re.I)


_DR_DOT = re.compile(r"(?<![\w'])(dr)\.(?=\s)", re.I)


def shorthand_read(text: str) -> str:
    """``text`` with texting shorthand written out ("wat pills do i take 2day" -> "what pills do i take
    today")."""
    text = _DR_DOT.sub(r"\1", text)  # "Dr. Chen" is "doctor Chen": the dot ends no sentence
    return _SHORTHAND.sub(lambda match: SHORTHAND[match.group(1).lower()], text)


def without_opening(text: str) -> str:
    """``text`` without the greeting or filler in front of the request ("Hi there. how did I sleep",
    "sorry to bother you but when is my next dose"): the desks' questions are read from their start."""
    return _OPENING.sub("", text)


# Words patients write that no word list has and that a slip rule would "mend" into another word.
_ABBREVIATIONS = frozenset(
    {"appt", "appts", "ent", "gp", "gps", "obgyn", "ecg", "ekg", "bpm", "mcg", "tds", "qds", "prn"}
)
# Three-letter words a swap may give ("teh" -> "the").
_COMMON_SHORT = frozenset(
    "the and but for day you how who now not can did was has any one two get see had her his she are our out "
    "why may its".split()
)


@cache
def _spelled_right() -> frozenset[str]:
    """The English word list, with the symptom lexicon's words ("my eyelids droop" must not become
    "drop"): built once per process, not on every message."""
    from agents.tools.said import _english, _lexicon

    return _english() | frozenset(_lexicon())


def typos_read(text: str, vocabulary: tuple[str, ...]) -> str:
    """``text`` with each typo of a word of ``vocabulary`` replaced by the word. A word that is
    spelled right (agents.tools.said's English word list) is kept: "cone" stays "cone", not "come".
    rapidfuzz's optimal string alignment counts a swap of two letters as one edit, the commonest
    phone typo."""
    from rapidfuzz import process
    from rapidfuzz.distance import OSA

    english = _spelled_right()

    def read_word(match: re.Match) -> str:
        word = match.group(0)
        low = word.lower()
        if len(low) < 2 or low in english or low in vocabulary or low in _KEPT:
            return word
        # The two commonest slips, read into an English word: a letter typed twice ("ddid", "foor",
        # "cliniic") and two letters swapped ("wiht", "daet"; in three letters only into a common word:
        # "teh", "btu", "dya", not "ent" into "net"); only a non-word becomes a word.
        if low not in _ABBREVIATIONS:
            swaps = unswapped(low)
            read_as = undoubled(low) | (swaps if len(low) >= 4 else swaps & _COMMON_SHORT)
            meant = only({slip for slip in read_as if len(slip) >= 2 and (slip in english or slip in vocabulary)})
            if meant is not None:
                return meant
        found = process.extractOne(low, vocabulary, scorer=OSA.distance, score_cutoff=1 if len(low) < 7 else 2)
        return found[0] if found else word

    return re.sub(r"[A-Za-z]+", read_word, text)


# The opening's own words, read through typos too ("Good mornimg", "sorry to bother yuo but").
_OPENING_WORDS = ("hello", "hey", "there", "morning", "evening", "sorry", "bother", "trouble", "excuse", "you")


def prepared(message: str, vocabulary: tuple[str, ...]) -> str:
    """``message`` as a desk reads it: one space between words, shorthand written out, typos read, the
    opening taken off."""
    text = shorthand_read(" ".join(str(message).split()))
    return without_opening(typos_read(text, vocabulary + _OPENING_WORDS))
