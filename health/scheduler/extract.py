"""Prescription text -> medications, with a spaCy blank English pipeline and rule patterns.

``extract_medications(text)`` returns one dict per medication, with exactly these keys::

    {"name": "paracetamol", "strength": "500 mg", "dose": 1, "times_per_day": 2,
     "times": ["08:00", "20:00"], "duration_days": 5, "with_food": "after"}

Pipeline (built once per process, lazily): ``spacy.blank("en")`` whose tokenizer first normalises the
text (see ``normalise``), an ``EntityRuler`` (drug names from ``lexicon.json`` as phrase patterns;
STRENGTH, DOSE, PATTERN, FREQ, DURATION, FOOD and TIME as token patterns) and ``rx_fuzzy_drugs``,
which names OCR-damaged drug words by edit distance to the lexicon (rapidfuzz).

Rules, documented here because they are choices:

- name: the lexicon's generic name (WHO INN: acetaminophen -> paracetamol). Drugs joined by "+", "&",
  "/" (or "and"/"with" when the lexicon knows the combination) are one medication: the lexicon's
  combination name when known ("amoxicillin-clavulanate"), else the generic names joined by " + ".
- strength: "<number> <unit>" with unit in mg, mcg, g, IU, %, units; a concentration keeps its volume
  ("250 mg/5 ml"); combination strengths are joined by " + ". A bare number right after a brand or
  generic name ("Dolo 650", "Pan 40") is read as mg.
- dose: units per intake (1 tablet -> 1, 1/2 tab -> 0.5, 2 caps -> 2); liquids in ml (5 ml -> 5,
  1 tsp -> 5, 1 tbsp -> 15). From "1-0-1" patterns: the first non-zero slot.
- times_per_day and times: OD/QD 08:00; BD/BID 08:00, 20:00; TDS/TID 08:00, 14:00, 20:00;
  QID/QDS 08:00, 12:00, 16:00, 20:00; every N hours: 24/N times, from 08:00 when N is 12 or 24,
  else from 06:00 (q8h 06:00, 14:00, 22:00; q6h 00:00, 06:00, 12:00, 18:00); the table is
  ``health.scheduler.times``, shared with scheduling and the chat's reminder tool.
  "1-0-1" slots are meals: morning 08:00, afternoon 14:00, night 20:00 (four slots: QID's times);
  bedtime / HS / "at night" is 21:00 and replaces the night slot when written ("0-0-1 HS" -> 21:00).
  Morning 08:00, noon 12:00, evening 20:00, breakfast 08:00, lunch 14:00, dinner 20:00.
  Clock times written in the text win. PRN/SOS: times_per_day null, no times; STAT: once, no time;
  alternate days / weekly: once on the days it is taken.
- duration_days: days; weeks x 7, months x 30, years x 365; "5/7" is 5 days, "2/52" 2 weeks, "1/12" 1 month.
- with_food: before (a.c., before food/meals, empty stomach), after (p.c., after food/meals),
  with (with food/meals, c.c.); "with or without food" -> null.

Text is data: a sentence that reads like an instruction to the assistant (ignore previous instructions,
text/call a number, a link) is dropped before parsing, so it yields nothing and changes nothing.
"""

from __future__ import annotations

import re
from functools import cache
from itertools import pairwise
from typing import Any

import spacy
from rapidfuzz import process
from rapidfuzz.distance import OSA
from spacy.language import Language
from spacy.tokens import Doc, Span

from health.scheduler.lexicon import load_lexicon
from health.scheduler.times import DEFAULT_TIMES, every_hours

MAX_TEXT_CHARS = 100_000  # longer text is cut: the extractor's time stays bounded
MAX_LINE_CHARS = 2_000

# -- vocabulary -------------------------------------------------------------------------------------

MASS_UNITS = {
    "mg": "mg",
    "mgs": "mg",
    "milligram": "mg",
    "milligrams": "mg",
    "mcg": "mcg",
    "ug": "mcg",
    "microgram": "mcg",
    "micrograms": "mcg",
    "g": "g",
    "gm": "g",
    "gms": "g",
    "gram": "g",
    "grams": "g",
    "iu": "IU",
    "%": "%",
}
VOLUME_UNITS = {"ml", "mls", "millilitre", "millilitres", "milliliter", "milliliters", "cc"}
SPOONS = {"tsp": 5, "teaspoon": 5, "teaspoons": 5, "teaspoonful": 5, "tbsp": 15, "tablespoon": 15, "tablespoons": 15}
FORMS = {
    "tab",
    "tabs",
    "tablet",
    "tablets",
    "cap",
    "caps",
    "capsule",
    "capsules",
    "pill",
    "pills",
    "puff",
    "puffs",
    "drop",
    "drops",
    "sachet",
    "sachets",
    "unit",
    "units",
    "u",
    "spray",
    "sprays",
    "patch",
    "patches",
    "suppository",
    "suppositories",
    "lozenge",
    "lozenges",
    "inhalation",
    "inhalations",
    "vial",
    "vials",
    "ampoule",
    "amp",
    "application",
    "applications",
    "scoop",
    "scoops",
    "spoon",
    "spoons",
    "spoonful",
    "packet",
    "packets",
    "injection",
    "inj",
    *SPOONS,
}
WORD_NUMBERS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "fourteen": 14,
    "twenty": 20,
    "thirty": 30,
    "half": 0.5,
    "a": 1,
    "an": 1,
    "single": 1,
}
DURATION_UNITS = {
    "d": 1,
    "day": 1,
    "days": 1,
    "dys": 1,
    "w": 7,
    "wk": 7,
    "wks": 7,
    "week": 7,
    "weeks": 7,
    "mo": 30,
    "mon": 30,
    "mth": 30,
    "mths": 30,
    "month": 30,
    "months": 30,
    "yr": 365,
    "yrs": 365,
    "year": 365,
    "years": 365,
}
MEALS = {"food", "meal", "meals", "eating", "breakfast", "lunch", "dinner", "supper", "food.", "foods"}
MEAL_TIMES = {"breakfast": "08:00", "lunch": "14:00", "dinner": "20:00", "supper": "20:00"}

# Frequency phrases -> code. Codes: numeric ("1".."6"), "Q<n>" every n hours, slots (MORNING, NOON,
# EVENING, NIGHT, BEDTIME), PRN, STAT, ALT (every other day), WEEKLY.
FREQ_PHRASES = {
    "1": [
        "od",
        "qd",
        "qday",
        "once daily",
        "once a day",
        "once per day",
        "once",
        "daily",
        "every day",
        "everyday",
        "once in a day",
        "1 time a day",
        "one time a day",
        "1 time daily",
        "one time daily",
        "1x daily",
        "1x a day",
    ],
    "2": ["bd", "bid", "twice daily", "twice a day", "twice per day", "twice", "two times a day", "2 times a day"],
    "3": ["tds", "tid", "thrice daily", "thrice a day", "thrice", "three times a day", "3 times a day"],
    "4": ["qid", "qds", "four times a day", "4 times a day"],
    "MORNING": ["morning", "in the morning", "every morning", "qam", "mane", "early morning"],
    "NOON": ["noon", "at noon", "afternoon", "in the afternoon", "midday"],
    "EVENING": ["evening", "in the evening", "every evening", "qpm"],
    "NIGHT": ["night", "at night", "every night", "nightly", "nocte", "at nite", "nite", "in the night"],
    "BEDTIME": ["hs", "qhs", "bedtime", "at bedtime", "at bed time", "bed time", "before sleep", "before bed"],
    "PRN": [
        "prn",
        "sos",
        "as needed",
        "as required",
        "when required",
        "when needed",
        "if needed",
        "if required",
        "when necessary",
        "as necessary",
        "if pain",
        "for pain",
        "if fever",
        "for fever",
    ],
    "STAT": ["stat", "immediately", "single dose", "one dose", "once only"],
    "ALT": ["every other day", "alternate day", "alternate days", "on alternate days", "qod", "eod", "every 2 days"],
    "WEEKLY": ["once a week", "once weekly", "weekly", "every week", "once in a week", "per week"],
}
SLOT_TIMES = {"MORNING": "08:00", "NOON": "12:00", "EVENING": "20:00", "NIGHT": "21:00", "BEDTIME": "21:00"}
PATTERN_SLOTS = {3: ["08:00", "14:00", "20:00"], 4: ["08:00", "12:00", "16:00", "20:00"]}

FOOD_PHRASES = {
    "before": [
        "ac",
        "a/c",
        "empty stomach",
        "on empty stomach",
        "on an empty stomach",
        "without food",
        "before food",
        "before meal",
        "before meals",
        "before eating",
        "before breakfast",
        "before lunch",
        "before dinner",
        "before supper",
        "bf",
        "bbf",
    ],
    "after": [
        "pc",
        "p/c",
        "after food",
        "after meal",
        "after meals",
        "after eating",
        "after breakfast",
        "after lunch",
        "after dinner",
        "after supper",
        "af",
    ],
    "with": [
        "cc",
        "with food",
        "with meal",
        "with meals",
        "with breakfast",
        "with lunch",
        "with dinner",
        "with supper",
        "along with food",
        "with milk",
        "during meals",
        "during meal",
    ],
    "any": ["with or without food", "with or without meals", "irrespective of food", "regardless of meals"],
}

# the frequencies among them whose dots OCR loses ("b.id", "td.s."): three letters, never a word
FREQUENCY_ABBREVIATIONS = {"bid", "tid", "tds", "qid", "qds", "qhs", "qod", "qam", "qpm"}

# dotted abbreviations collapsed by the normaliser ("b.i.d." -> "bid")
ABBREVIATIONS = {
    "ac",
    "pc",
    "cc",
    "od",
    "bd",
    "bid",
    "tid",
    "tds",
    "qid",
    "qds",
    "hs",
    "qhs",
    "po",
    "prn",
    "sos",
    "qd",
    "qod",
    "qam",
    "qpm",
    "bf",
    "af",
}

# Words the fuzzy drug matcher never tries (direction vocabulary and words common on prescriptions).
NOT_DRUGS = {
    *FORMS,
    *MEALS,
    *DURATION_UNITS,
    *WORD_NUMBERS,
    *(w for phrases in FREQ_PHRASES.values() for p in phrases for w in p.split()),
    *(w for phrases in FOOD_PHRASES.values() for p in phrases for w in p.split()),
    *"""take takes taking apply applied orally mouth by with water after before then continue continued review
    follow patient doctor hospital clinic name date address phone mobile diagnosis advice advised plenty fluids
    rest signature tablet syrup syp susp suspension cream ointment lotion drops solution powder gel inhaler
    nebulise nebulization refills refill dispense disp quantity total morning evening night every hours hourly
    minutes mins until till pain fever cough cold headache infection pressure sugar blood daily weekly monthly
    instructions medicine medicines medication medications dosage frequency duration strength route remarks
    sig note notes times timing before swallow whole chew dissolve under tongue avoid alcohol driving
    children adult adults years male female weight height other others please prescribed prescription
    ignore previous system message number""".split(),
}

INJECTION_PATTERNS = [
    re.compile(
        r"\b(ignore|disregard|forget|override|bypass)\b.{0,60}\b(instructions?|previous|above|prior|rules|prompts?|directions)\b",
        re.I,
    ),
    re.compile(r"\b(system prompt|you are now|as an ai|new instructions?|assistant\s*:|jailbreak)\b", re.I),
    re.compile(r"\b(text|sms|call|message|email|e-mail|send|forward|whatsapp|dial)\b.{0,40}\+?\d[\d\s().-]{6,}", re.I),
    re.compile(r"https?://|www\.|\S+@\S+\.\w+", re.I),
    re.compile(r"\+\d[\d\s-]{7,}"),
]
# Lines (without a drug) that are not directions: never attached to the medication above them.
ADMIN_LINE = re.compile(
    r"^\W*(patient|pt|name|age|sex|gender|date|dt|dr|doctor|address|ph|phone|tel|mob|mobile|reg|diagnosis|dx|"
    r"c/o|complaints?|review|follow|next visit|revisit|signature|sign|hospital|clinic|advice|investigations?|"
    r"refills?|disp|dispense|qty|quantity|substitution|dea|npi)\b",
    re.I,
)
# A line that records the patient's history, not what to take: a diagnosis ("Impression: iron
# deficiency" names iron), an allergy ("Allergy: amoxicillin" must never become a reminder to take it),
# complaints, known conditions and the medicines they are already on. Such a line yields no
# medication, unless it goes on to an "Rx" part, which is read from there.
NOT_TO_TAKE_LINE = re.compile(
    r"^\W*(?:(?:provisional\s+|final\s+|working\s+)?diagnosis|diag|dx|d/d|ddx|impression|imp|assessment|c/o|"
    r"chief\s+complaints?|complaints?|presenting\s+complaints?|h/o|hx|history|past\s+history|pmh|"
    r"family\s+history|k/c/o|kco|known\s+case|allerg(?:y|ies|ic)|drug\s+allerg(?:y|ies)|nkda|"
    r"current\s+medications?|on\s+treatment|investigations?|labs?)\b",
    re.I,
)
_RX_PART = re.compile(r"\b(?:rx|r/x|\u211e)\b\s*[:.-]?\s*", re.I)
# A line (without a known drug) that opens a new prescription item: a list number ("3.", "3)") or a
# dosage-form prefix ("Syp Ascoril ...", "Inj. ..."). It names a medicine the lexicon does not know:
# its dose and times belong to that medicine, never to the one above it.
NEW_ITEM_LINE = re.compile(
    r"^\W*(\d{1,2}\s*[.)]\s+\S|(tab|tabs|tablet|cap|caps|capsule|syp|syr|syrup|susp|suspension|inj|injection|"
    r"oint|ointment|cream|gel|lotion|drops?|gtt|inh|inhaler|neb|sachet|powder|spray|patch|lozenge|supp)\b\.?\s*[a-z])",
    re.I,
)
HEADER_ROLES = {
    "name": {"medicine", "medicines", "drug", "drugs", "medication", "medications", "name", "rx", "brand"},
    "dose": {"dose", "dosage", "qty", "quantity", "units", "amount"},
    "frequency": {"frequency", "freq", "times", "timing", "when", "schedule", "directions", "sig"},
    "duration": {"duration", "days", "period", "for", "course"},
}

# -- normaliser -------------------------------------------------------------------------------------

# The digit a handwritten or printed glyph is read for: an open 0 as "C", a 1 as "I", "l" or "|", a 5
# as "S"... One table, so every reader of a look-alike reads it as the same digit. Each reader takes
# only the letters that cannot be a word where it reads them (``lookalike_digits``): the decoder
# scores all of them against the strokes, a count before a duration unit takes more than a number
# glued to a unit does.
DIGIT_FOR_LOOKALIKE = {
    **dict.fromkeys("CcOoDQ", "0"),
    **dict.fromkeys("Iil|]!", "1"),
    **dict.fromkeys("Zz", "2"),
    **dict.fromkeys("Ss", "5"),
    **dict.fromkeys("Gb", "6"),
    "T": "7",
    "B": "8",
    **dict.fromkeys("gq", "9"),
}


def lookalike_digits(letters: str) -> dict[int, str]:
    """A ``str.translate`` table reading each of ``letters`` as the digit it looks like."""
    return str.maketrans({letter: DIGIT_FOR_LOOKALIKE[letter] for letter in letters})


_SLOT = r"(?:\d/\d|\d\.\d|[0-4])"
_DOSE_PATTERN = re.compile(
    rf"(?<![\d/.:-])({_SLOT})\s*[-+]\s*({_SLOT})\s*[-+]\s*({_SLOT})(?:\s*[-+]\s*({_SLOT}))?(?![\d/.:]|-\d)"
)
_DOTTED = re.compile(r"(?<![A-Za-z])((?:[A-Za-z]\.){1,3}[A-Za-z])\.?(?![A-Za-z])")
# A dotted abbreviation with one of its dots lost or read as a space: "b.id", "td.s.", "t.i d". Only
# collapsed when the letters are one of the abbreviations.
_DOT_LOST = re.compile(r"(?<![A-Za-z.])([A-Za-z]{1,2}\.\s?[A-Za-z]{1,2}(?:[.\s][A-Za-z])?)\.?(?![A-Za-z])")
_NUMERIC_WORD = re.compile(
    r"([(\[]?)([0-9OoIlS|Z]+(?:[.,/-][0-9OoIlS|Z]+)*)(mgs?|mcg|ml|g|gm|iu|units?|tabs?|caps?|d|days?|wks?|weeks?)?([).,;:\]]*)",
    re.I,
)
_UNIT_AFTER_NUMBER = re.compile(
    r"(?<![A-Za-z\d.])(\d+(?:\.\d+)?)(mg|mgs|mcg|ug|ml|mls|g|gm|gms|iu|units?|u|tabs?|tablets?|caps?|capsules?|d|days?|"
    r"dys|wks?|weeks?|w|months?|mths?|mo|yrs?|years?|am|pm|puffs?|drops?|tsp|tbsp|x|%)(?![A-Za-z])",
    re.I,
)
_EVERY_HOURS = re.compile(
    r"\b(?:q|every)\s*(\d{1,2})\s*(?:-\s*\d{1,2}\s*)?(?:h|hr|hrs|hours?|hourly)\b|\b(\d{1,2})\s*-?\s*(?:hourly|hrly)\b",
    re.I,
)
_CLOCK = re.compile(r"\b(\d{1,2})[.:](\d{2})\s*([ap])\.?\s*m\b\.?", re.I)
_HOUR_AMPM = re.compile(r"\b(\d{1,2})\s*([ap])\.?\s*m\b\.?", re.I)


# A frequency abbreviation in capitals with its last letter doubled: never a word of its own ("ODD"
# before "days" may mean odd days, and is left alone).
_DOUBLED_ABBREVIATION = re.compile(r"\b((?:OD|QD|BD|BID|TID|TDS|QID|QDS|HS|QHS)(?=[DSH]\b))[DSH](?!\s+days?\b)")
# "for | week", "fsr G wks", "x I month": before a duration unit, a lone look-alike is the count, and
# a three-letter word in "for"'s shape ("fsr", "tor", "f0r") is "for" (a duration needs its "for"
# or "x" where the unit is a bare "d").
_COUNT_LOOKALIKES = lookalike_digits("|Il]!GbSZ")
_DURATION_LOOKALIKE = re.compile(
    r"\b(x|for|[fFtTpP][a-zA-Z0-9][rR])\s+([|Il\]!GbSZ]|\d+)\s*(?=(?:d|days?|dys|wks?|weeks?|months?|mths?)\b)"
)


# "pOUR times a day", "thre times": before "times", a word one letter from a count is that count.
_TIMES_COUNT = re.compile(r"\b([A-Za-z]{3,5})(\s+times\b)")
_COUNT_WORDS = ("one", "two", "three", "four", "five", "six")
# "twice a dzy", "three times 2 doy": after a frequency word, "a" and "day" in any of their slips
# ("dry" is a word of its own and is left alone).
_A_DAY = re.compile(r"\b(times?|twice|thrice|once)\s+(?:[a-z0-9][,.]?|-)?\s*d(?!r)[a-z0-9]{1,2}y\b", re.I)


def _times_count(match: re.Match) -> str:
    word = match.group(1).lower()
    if word in _COUNT_WORDS or word in ("many", "some", "few", "more"):
        return match.group(0)
    hit = process.extractOne(word, _COUNT_WORDS, scorer=OSA.distance, score_cutoff=1)
    return match.group(0) if hit is None else hit[0] + match.group(2)


def _duration_count(match: re.Match) -> str:
    prefix = match.group(1) if match.group(1).lower() in ("x", "for") else "for"
    return f"{prefix} {match.group(2).translate(_COUNT_LOOKALIKES)} "


_NUMBER_LOOKALIKES = lookalike_digits("OoIlS|Z")


def _fix_numeric_word(match: re.Match) -> str:
    core = match.group(2)
    if not any(c.isdigit() for c in core) and not (core in ("S", "Z") and match.group(3)):
        return match.group(0)  # a word, except a lone S or Z glued to a unit: "x Sd", "Zmg" are 5d, 2mg
    if "S" in core and not match.group(3):
        return match.group(0)  # an S read for a 5 only where a unit follows ("7Smg"): "5S" alone is not a number
    core = core.translate(_NUMBER_LOOKALIKES)
    return match.group(1) + core + (match.group(3) or "") + match.group(4)


# The words that carry the directions. One OCR slip in them ("Wth food", "aftr meals", "dailv") loses a
# whole field, and they are few and unlike one another, so a word one edit from one of them (same first
# letter, not itself a word of prescriptions or a medicine's name) is read as it.
DIRECTION_WORDS = (
    "with after before food meal meals daily days weeks month months tablet tablets capsule capsules "
    "morning night nightly bedtime twice thrice once hours hourly times"
).split()


# What a table's vertical rule is read as when it is glued to the word after it ("LGlimepiride").
RULE_LETTERS = "IlL"


# Two letters read for one, the classic slips of OCR on handwriting: "d" as "cl", "m" as "rn", "u" as
# "ii", "w" as "vv". Such a slip is two edits, beyond the one-edit reading of the direction words.
LETTER_PAIR_SLIPS = (("cl", "d"), ("rn", "m"), ("ii", "u"), ("vv", "w"))
_PAIR_SLIP_TARGETS = frozenset({*DIRECTION_WORDS, *MEALS, *FORMS, *(u for u in DURATION_UNITS if len(u) > 2)})
# An o left open reads as a c; the number words of a dose take that slip too ("cne tablet" is one).
_OPEN_O_TARGETS = _PAIR_SLIP_TARGETS | {w for w in WORD_NUMBERS if len(w) > 2}


def _repair_word(word: str) -> str:
    core = word.rstrip(".,;:)")
    if core != word and core:
        return _repair_word(core) + word[len(core) :]  # "a clay." is read as "a day."
    glued_rule = len(word) > 5 and word[0] in RULE_LETTERS + "|" and word[1].isupper()
    if glued_rule and word[1:].lower() in load_lexicon().names:
        return word[1:]  # "LGlimepiride": a table's rule read as a letter glued to the name
    lower = word.lower()
    if "0" in lower and re.fullmatch(r"[a-z0]*[a-z][a-z0]*", lower):
        if lower.replace("0", "o") in _PAIR_SLIP_TARGETS:
            return lower.replace("0", "o")  # "f00d", "m0rning": an o read as a zero inside a word
        lower = lower.replace("0", "o")  # and another slip besides: "p0Od" is "pood", then food
    if len(lower) < 3 or not lower.isalpha() or lower in NOT_DRUGS or lower in DIRECTION_WORDS:
        return word
    if lower in load_lexicon().names:
        return word
    for glyphs, letter in LETTER_PAIR_SLIPS:
        mended = lower.replace(glyphs, letter)
        if mended != lower and mended in _PAIR_SLIP_TARGETS:
            return mended  # "clay" -> "day", "rneals" -> "meals": two edits, one slip of the pen
        if mended != lower and mended.replace("c", "o") in _OPEN_O_TARGETS:
            return mended.replace("c", "o")  # "fcccl": both slips, "food"
        if mended != lower and len(mended) >= 5:
            lower = mended  # "becltine" -> "bedtine", then one edit from "bedtime"
    if "c" in lower and lower.replace("c", "o") in _OPEN_O_TARGETS:
        return lower.replace("c", "o")  # "fccd", "mcrning", "cne": an o left open reads as a c
    hit = process.extractOne(lower, DIRECTION_WORDS, scorer=OSA.distance, score_cutoff=1)
    # The first letter must agree, except an m read as an n ("nonths", "neals": its last arch faint)
    # or an f read as a p ("pood": its cross-stroke missed); never the other way, or "might" would
    # become "night".
    if hit is None or (hit[0][0] != lower[0] and (lower[0], hit[0][0]) not in (("n", "m"), ("p", "f"))):
        return word
    return hit[0]


# A unit after a number with the look-alike slips of handwriting OCR: "m" read "n" or "rn" (its last arch
# faint), "g" read "q" or doubled, "l" read "I". After a number these are never words of their own.
UNIT_SLIPS = {
    "ng": "mg", "nq": "mg", "mq": "mg", "ngg": "mg", "mgg": "mg", "rng": "mg", "nng": "mg", "mng": "mg",
    "nl": "ml", "mI": "ml", "nI": "ml", "rnl": "ml", "nml": "ml", "ncg": "mcg", "rncg": "mcg",
}  # fmt: skip
UNITS = tuple(dict.fromkeys(UNIT_SLIPS.values()))  # the units a slip is read as: mg, ml, mcg
_SLIP_WORDS = "|".join(sorted(UNIT_SLIPS, key=len, reverse=True))
_GLUED_UNIT_SLIP = re.compile(rf"^(\d[\dOoIl.,]*)({_SLIP_WORDS})([).,;:]*)$")


def _repair_units(words: list[str]) -> list[str]:
    """Each word, and each part of a word split at "/" ("120 ng/5 nl"), read with the one before it."""
    out: list[str] = []
    previous = ""
    for word in words:
        parts = []
        for part in word.split("/"):
            glued = _GLUED_UNIT_SLIP.match(part)
            core = part.rstrip(".,;:)")
            if glued:
                part = glued.group(1) + UNIT_SLIPS[glued.group(2)] + glued.group(3)
            elif previous[-1:].isdigit() and core in UNIT_SLIPS:
                part = UNIT_SLIPS[core] + part[len(core) :]
            parts.append(part)
            previous = part
        out.append("/".join(parts))
    return out


def _collapse_dotted(match: re.Match) -> str:
    collapsed = re.sub(r"[.\s]", "", match.group(1)).lower()
    return f" {collapsed} " if collapsed in ABBREVIATIONS else match.group(0)


def _collapse_dot_lost(match: re.Match) -> str:
    # Only the three-letter frequencies: "b.id" is bid, while "a.m" or "p.c" are read by _DOTTED.
    collapsed = re.sub(r"[.\s]", "", match.group(1)).lower()
    if collapsed[:1] == "g" and "q" + collapsed[1:] in FREQUENCY_ABBREVIATIONS:
        collapsed = "q" + collapsed[1:]  # "G.i.d.": a q whose tail curled is read as a G
    if collapsed not in FREQUENCY_ABBREVIATIONS:
        return match.group(0)
    return f" {collapsed} "


def _join_pattern(match: re.Match) -> str:
    return " " + "-".join(g for g in match.groups() if g is not None) + " "


FRACTION_SIGNS = {"½": "1/2", "¼": "1/4", "¾": "3/4"}


def with_fractions_written(text: str, pad: str = "") -> str:
    """ "½ tab" -> "1/2 tab": a fraction sign in the digits the extractor reads."""
    for sign, written in FRACTION_SIGNS.items():
        text = text.replace(sign, f"{pad}{written}{pad}")
    return text


def normalise(text: str) -> str:
    """One line of prescription text -> space-separated tokens (regexes: OCR digit/letter swaps and
    glued units are character-level fixes that spaCy's tokenizer exceptions cannot express)."""
    s = with_fractions_written(text, " ")
    s = s.replace("\u20ac", "c")  # OCR reads a small "c" as a euro sign ("a.\u20ac.")
    s = s.replace("~", " ")  # a speck or a rule read as a tilde ("x 30 ~days")
    # a unit glued to a dotted abbreviation: "5 mlb.d." -> "5 ml b.d."
    s = re.sub(r"(?<=\d)\s*(ml|mg|mcg|tabs?|caps?)(?=[a-z]\.[a-z]\.?)", r" \1 ", s, flags=re.I)
    s = s.replace("\u00d7", " x ").replace("\u00b5", "mc").replace("\u03bc", "mc")  # multiplication sign, micro signs
    s = re.sub("[\u2010\u2013\u2014\u2212]", "-", s)  # hyphen, en and em dash, minus sign
    s = re.sub(r"^\s*(?:\d{1,2}\s*[.)]|[-*•#])\s+(?=\D)", " ", s)  # list numbering "1. ", "2) ", "- "
    s = re.sub(r"\b0D\b", "OD", s)
    s = re.sub(r"(?<![A-Za-z])[xX](?=\d[\dOo]*\b)", "x ", s)  # "X1O DAYS": the count read on its own
    # A count glued to "d" is days ("15d" in a table's days column, "x 5d"); a lone "1d" is left alone.
    s = re.sub(r"(?<![\w./-])([2-9]|[1-9]\d{1,2})d\b", r"\1 days", s)
    s = _DOUBLED_ABBREVIATION.sub(lambda m: m.group(1), s)  # "QDD", "BIDD": the last stroke read twice
    s = _DURATION_LOOKALIKE.sub(_duration_count, s)
    s = re.sub(r"\b9(4|6|8|12)\s*h\b", r"q\1h", s)  # "98h": a q read as a 9 ("96 hours" is no direction)
    s = re.sub(r"\b([qQ])[lI|]([2-9])\s*([hH])\b", r"\g<1>1\2\3", s)  # "ql2h": a 1 read as an l
    s = re.sub(r"\b([BTQbtq])[1lI|]([Dd])\b", r"\1I\2", s)
    # A 1 read as "l", "I" or a bracket: before the form after a word ("TAKE ) CAPSULE"; at a line's start
    # a bracket may close a list number, and the dose is left for the patient), or as a dose pattern's
    # last slot ("0-0-)", unless a bracket opened before it: "(1-0-)" may have lost its slot).
    s = re.sub(r"(?:\b[lI]|(?<=\w\s)[)\]])(?=\s+(?i:tabs?|tablets?|caps?|capsules?)\b)", "1", s)
    s = re.sub(r"(?<![\d(\[-])(?<![(\[]\s)([0-4]\s*-\s*[0-4]\s*-\s*)[)\]](?=\s|$)", r"\g<1>1", s)
    s = re.sub(r"(?<!\S)[I|\[(](ac|pc|cc|od|bd|tds|tid|qid|hs|sos)\b", r"\1", s)  # a table's rule read before it
    s = _TIMES_COUNT.sub(_times_count, s)  # before "HOUR" can be read as "hours"
    words = _repair_units(s.split())
    s = " ".join(_fix_numeric_word(m) if (m := _NUMERIC_WORD.fullmatch(w)) else _repair_word(w) for w in words)
    # after the words' own slips are read: "three tines 6 doy" is "three times a day"
    s = _TIMES_COUNT.sub(_times_count, s)
    s = _A_DAY.sub(lambda m: f"{m.group(1)} a day", s)
    s = _CLOCK.sub(lambda m: f" {int(m.group(1))}:{m.group(2)} {m.group(3).lower()}m ", s)
    s = _HOUR_AMPM.sub(lambda m: f" {int(m.group(1))} {m.group(2).lower()}m ", s)
    s = _EVERY_HOURS.sub(lambda m: f" q{int(m.group(1) or m.group(2))}h ", s)
    s = _DOTTED.sub(_collapse_dotted, s)
    s = _DOT_LOST.sub(_collapse_dot_lost, s)
    s = _DOSE_PATTERN.sub(_join_pattern, s)
    s = re.sub(r"(\d),(\d{3})(?!\d)", r"\1\2", s)  # 1,000 mg
    s = re.sub(r"\bx(?=\d)", "x ", s, flags=re.I)
    s = re.sub(r"([A-Za-z]{4,})(?=\d+(?:\.\d+)?(?:mg|mcg|ml|g|iu)?\b)", r"\1 ", s)
    s = _UNIT_AFTER_NUMBER.sub(r"\1 \2", s)
    s = re.sub(r"(?<=[A-Za-z])-(?=[A-Za-z])", " ", s)
    s = re.sub(r"(?<![ap])/(?![c]\b)|(?<=\d)/(?=\D)|(?<=\D)/(?=\d)", " / ", s)
    s = re.sub(r"(?<=\d) / (?=\d)", "/", s)
    s = re.sub(r"[,;()\[\]|{}+&]", lambda m: f" {m.group(0)} ", s)
    s = re.sub(r":(?!\d{2})", " : ", s)
    s = re.sub(r"(?<=[A-Za-z)])\.|\.(?!\d)", " . ", s)
    s = re.sub(r"(?<=\d)(?=%)", " ", s)
    return " ".join(s.split())


class _RxTokenizer:
    """Normalise, then split on whitespace (the normaliser already placed every token boundary)."""

    def __init__(self, vocab):
        self.vocab = vocab

    def __call__(self, text: str) -> Doc:
        return Doc(self.vocab, words=normalise(text).split() or [""])


# -- patterns ---------------------------------------------------------------------------------------

NUM = {"TEXT": {"REGEX": r"^\d+(?:\.\d+)?$"}}
FRAC = {"TEXT": {"REGEX": r"^\d/\d$"}}
NUMLIKE = {"LOWER": {"REGEX": r"^(?:\d+(?:\.\d+)?|\d/\d|" + "|".join(WORD_NUMBERS) + ")$"}}
COUNT = {
    "LOWER": {"REGEX": r"^(?:\d+(?:\.\d+)?|" + "|".join(w for w in WORD_NUMBERS if w not in ("a", "an", "half")) + ")$"}
}


def _phrase(text: str) -> list[dict]:
    return [{"LOWER": w} for w in normalise(text).lower().split()]


def _rule_patterns() -> list[dict]:
    pats: list[dict] = []

    def add(label: str, pattern: list[dict], pid: str = "") -> None:
        pats.append({"label": label, "pattern": pattern, "id": pid} if pid else {"label": label, "pattern": pattern})

    mass, vol = {"IN": list(MASS_UNITS)}, {"IN": sorted(VOLUME_UNITS)}
    add("STRENGTH", [NUM, {"LOWER": mass}, {"ORTH": "/"}, {**NUM, "OP": "?"}, {"LOWER": vol}])
    add("STRENGTH", [NUM, {"ORTH": "/"}, NUM, {"LOWER": mass}])
    add("STRENGTH", [{"TEXT": {"REGEX": r"^\d+(?:\.\d+)?/\d+(?:\.\d+)?$"}}, {"LOWER": mass}])
    add("STRENGTH", [NUM, {"LOWER": mass}])
    add("STRENGTH", [NUM, {"LOWER": {"IN": ["units", "iu"]}}, {"ORTH": "/"}, {"LOWER": vol}])
    add("DOSE", [NUMLIKE, {**FRAC, "OP": "?"}, {"LOWER": {"IN": sorted(FORMS)}}])
    add(
        "DOSE",
        [NUMLIKE, {"LOWER": {"IN": ["and", "&"]}}, {"LOWER": "a"}, {"LOWER": "half"}, {"LOWER": {"IN": sorted(FORMS)}}],
    )
    add("DOSE", [{"LOWER": "half"}, {"LOWER": "a"}, {"LOWER": {"IN": sorted(FORMS)}}])
    add("DOSE", [NUMLIKE, {**FRAC, "OP": "?"}, {"LOWER": vol}])
    add("PATTERN", [{"TEXT": {"REGEX": rf"^{_SLOT}(?:-{_SLOT}){{2,3}}$"}}])
    add("FREQ", [{"LOWER": {"REGEX": r"^q\d{1,2}h$"}}], "Q")
    add(
        "FREQ",
        [
            NUMLIKE,
            {"LOWER": {"IN": ["times", "time", "x"]}},
            {"LOWER": {"IN": ["a", "per", "/", "in"]}, "OP": "?"},
            {"LOWER": {"IN": ["a"]}, "OP": "?"},
            {"LOWER": {"IN": ["day", "daily", "d"]}},
        ],
        "N",
    )
    for code, phrases in FREQ_PHRASES.items():
        for p in phrases:
            add("FREQ", _phrase(p), code)
    for code, phrases in FOOD_PHRASES.items():
        for p in phrases:
            pattern = _phrase(p)
            add("FOOD", pattern, code)
            if len(pattern) == 2 and pattern[0]["LOWER"] in ("before", "after", "with", "during"):
                # "after a meal", "with the food", "before each meal"
                # a lone letter there is the "a" misread ("after z meal")
                article = {"LOWER": {"REGEX": r"^(?:the|your|each|every|[a-z])$"}}
                add("FOOD", [pattern[0], article, pattern[1]], code)
    for pre in ("x", "for"):
        pat = [{"LOWER": pre}, {"LOWER": {"IN": ["the", "next"]}, "OP": "*"}]
        add("DURATION", [*pat, NUMLIKE, {"LOWER": {"IN": list(DURATION_UNITS)}}])
        # a speck between the count and the unit ("x 14; days")
        add("DURATION", [*pat, NUM, {"ORTH": {"IN": [";", ",", ":"]}}, {"LOWER": {"IN": list(DURATION_UNITS)}}])
        add("DURATION", [*pat, {"TEXT": {"REGEX": r"^\d+/(?:7|52|12)$"}}])
    add("DURATION", [COUNT, {"LOWER": {"IN": [u for u in DURATION_UNITS if len(u) > 1]}}])
    add("DURATION", [{"TEXT": {"REGEX": r"^\d+/52$"}}])
    add("TIME", [{"TEXT": {"REGEX": r"^\d{1,2}(?::\d{2})?$"}}, {"LOWER": {"IN": ["am", "pm"]}}])
    add("TIME", [{"TEXT": {"REGEX": r"^(?:[01]?\d|2[0-3]):[0-5]\d$"}}])
    add("TIME", [{"LOWER": {"IN": ["at", "@"]}}, {"TEXT": {"REGEX": r"^(?:[01]?\d|2[0-3]):[0-5]\d$"}}])
    return pats


@Language.component("rx_fuzzy_drugs")
def fuzzy_drugs(doc: Doc) -> Doc:
    """Names OCR-damaged drug words ("Paracetmol", "Amoxicilin", "Metforrnin") by edit distance."""
    names = _fuzzy_choices()
    taken = {i for ent in doc.ents for i in range(ent.start, ent.end)}
    new = []
    for tok in doc:
        if tok.i in taken or len(tok.text) < 5:
            continue
        word = tok.lower_.translate(str.maketrans("0135", "oles"))
        if not word.isalpha() or word in NOT_DRUGS:
            continue
        max_dist = 1 if len(word) < 8 else 2 if len(word) < 12 else 3
        hit = process.extractOne(word, names, scorer=OSA.distance, score_cutoff=max_dist)
        if hit is None or (hit[1] > 1 and hit[0][0] != word[0]):
            continue
        generic = load_lexicon().names[hit[0]]
        new.append(Span(doc, tok.i, tok.i + 1, label="DRUG", span_id=generic))
    if new:
        doc.ents = [*doc.ents, *new]
        doc.user_data["fuzzy"] = {span.start for span in new}
    return doc


# What says a line is about a medicine to take: its amount, when, for how long, or its dosage form.
_CUE_LABELS = {"STRENGTH", "DOSE", "PATTERN", "FREQ", "DURATION", "FOOD", "TIME"}


def _drop_uncorroborated_guesses(doc: Doc, line: str) -> None:
    """A name guessed by edit distance stays only on a line that reads like a prescription item.

    Near-misses are everywhere in a page's header: "Sharma" is one edit from the brand "Serta"
    (sertraline), "Internal" two from "Inderal" (propranolol). An exact name needs no corroboration; a
    guess needs a list number, a dose, strength, frequency, duration, food timing or dosage form on its
    line, and never stands on an administrative line (patient, doctor, address...)."""
    fuzzy = doc.user_data.get("fuzzy")
    if not fuzzy:
        return
    cued = not ADMIN_LINE.match(line) and (
        bool(NEW_ITEM_LINE.match(line))  # "2. Albendvzole ..." opens an item of the list
        or any(e.label_ in _CUE_LABELS for e in doc.ents)
        or any(t.lower_ in _FORM_WORDS for t in doc)
    )
    if not cued:
        doc.ents = [e for e in doc.ents if not (e.label_ == "DRUG" and e.start in fuzzy)]


@cache
def _fuzzy_choices() -> list[str]:
    return sorted(n for n in load_lexicon().names if " " not in n and len(n) >= 5 and n.isalpha())


@cache
def get_nlp() -> Language:
    """The pipeline, built once per process: spacy.blank("en") + EntityRuler + fuzzy drug names."""
    nlp = spacy.blank("en")
    nlp.tokenizer = _RxTokenizer(nlp.vocab)
    ruler = nlp.add_pipe("entity_ruler", config={"phrase_matcher_attr": "LOWER", "overwrite_ents": True})
    lexicon = load_lexicon()
    drug_patterns = [{"label": "DRUG", "pattern": name, "id": generic} for name, generic in lexicon.names.items()]
    ruler.add_patterns(_rule_patterns() + drug_patterns)
    nlp.add_pipe("rx_fuzzy_drugs", after="entity_ruler")
    return nlp


# -- interpretation ---------------------------------------------------------------------------------


def _number(word: str) -> float | None:
    word = word.lower()
    if word in WORD_NUMBERS:
        return float(WORD_NUMBERS[word])
    if re.fullmatch(r"\d/\d", word):
        num, den = word.split("/")
        return int(num) / int(den) if int(den) else None
    try:
        return float(word)
    except ValueError:
        return None


def _fmt(value: float) -> int | float:
    return int(value) if float(value).is_integer() else round(value, 3)


def _strength(span: Span) -> str:
    words = [t.lower_ for t in span]
    if len(words) >= 4 and words[2] == "/":  # 250 mg / 5 ml
        vol = words[3] if len(words) == 5 else "1"
        return f"{_fmt(float(words[0]))} {MASS_UNITS.get(words[1], words[1])}/{_fmt(float(vol))} ml"
    if len(words) == 4 and words[1] == "/":  # 500 / 125 mg
        unit = MASS_UNITS[words[3]]
        return f"{_fmt(float(words[0]))} {unit} + {_fmt(float(words[2]))} {unit}"
    if "/" in words[0]:  # 500/125 mg
        unit = MASS_UNITS[words[1]]
        return " + ".join(f"{_fmt(float(n))} {unit}" for n in words[0].split("/"))
    return f"{_fmt(float(words[0]))} {MASS_UNITS.get(words[1], words[1])}"


def _dose(span: Span) -> float | None:
    words = [t.lower_ for t in span]
    if words[:2] == ["half", "a"]:
        return 0.5
    value = _number(words[0])
    if value is None:
        return None
    if len(words) >= 3 and re.fullmatch(r"\d/\d", words[1]):
        value += _number(words[1]) or 0
    if "half" in words[1:]:
        value += 0.5
    value *= SPOONS.get(words[-1], 1)
    # More than this at one time is no dose anyone takes: a misread ("151 tablet" for "1 tablet") is left
    # empty for the patient rather than shown.
    return value if value <= _dose_limit(words[-1]) else None


MAX_DOSE_UNITS = 10  # tablets, capsules, puffs, sachets... at one time
MAX_DOSE_ML = 60  # and drops: oral drops are counted in tens
MAX_DOSE_INSULIN_UNITS = 300  # "units" of insulin: tens at a time are usual


def _dose_limit(unit: str) -> float:
    if unit in VOLUME_UNITS or unit in SPOONS or unit in ("drop", "drops"):
        return MAX_DOSE_ML
    return MAX_DOSE_INSULIN_UNITS if unit in ("unit", "units", "u", "iu") else MAX_DOSE_UNITS


def _duration(span: Span) -> int | None:
    words = [t.lower_ for t in span if t.lower_ not in ("x", "for", "the", "next")]
    if len(words) == 1 and "/" in words[0]:
        num, den = words[0].split("/")
        return int(num) * {"7": 1, "52": 7, "12": 30}[den]
    value = _number(words[0])
    return None if value is None else round(value * DURATION_UNITS[words[-1]])


def _clock(span: Span) -> str | None:
    words = [t.lower_ for t in span if t.lower_ not in ("at", "@")]
    hour, _, minute = words[0].partition(":")
    h, m = int(hour), int(minute or 0)
    if len(words) > 1:
        if h > 12:
            return None
        h = h % 12 + (12 if words[1] == "pm" else 0)
    return f"{h:02d}:{m:02d}" if h < 24 and m < 60 else None


def _every_hours(n: int) -> tuple[int, list[str]] | None:
    times = every_hours(n)
    return (len(times), times) if times else None


class _Entry:
    def __init__(self, names: list[str], strengths: list[str]):
        self.names = names
        self.strengths = strengths
        self.dose: float | None = None
        self.freq: list[tuple[str, Span]] = []
        self.pattern: list[float] | None = None
        self.duration: int | None = None
        self.food: str | None = None
        self.meal_times: list[str] = []
        self.clock: list[str] = []

    def absorb(self, ents: list[Span], fill_only: bool = False) -> None:
        for ent in ents:
            label = ent.label_
            if label == "STRENGTH" and len(self.strengths) < len(self.names):
                self.strengths.append(_strength(ent))
            elif label == "DOSE" and self.dose is None:
                self.dose = _dose(ent)
            elif label == "PATTERN" and self.pattern is None:
                self.pattern = [_number(p) or 0.0 for p in ent.text.split("-")]
            elif label == "FREQ" and not (fill_only and self.freq):
                self.freq.append((ent.ent_id_, ent))
            elif label == "DURATION" and self.duration is None:
                self.duration = _duration(ent)
            elif label == "FOOD":
                if self.food is None:
                    self.food = ent.ent_id_
                meal = ent[-1].lower_
                if meal in MEAL_TIMES and MEAL_TIMES[meal] not in self.meal_times:
                    self.meal_times.append(MEAL_TIMES[meal])
            elif label == "TIME":
                clock = _clock(ent)
                if clock and clock not in self.clock:
                    self.clock.append(clock)

    def result(self) -> dict[str, Any]:
        lexicon = load_lexicon()
        unique = list(dict.fromkeys(self.names))
        name = unique[0] if len(unique) == 1 else lexicon.combinations.get(frozenset(unique), " + ".join(unique))
        tpd, times = self._schedule()
        food = self.food if self.food in ("before", "after", "with") else None
        return {
            "name": name,
            "strength": " + ".join(self.strengths) if self.strengths else None,
            "dose": _fmt(self.dose) if self.dose is not None else None,
            "times_per_day": tpd,
            "times": times,
            "duration_days": self.duration,
            "with_food": food,
        }

    def _schedule(self) -> tuple[int | None, list[str]]:
        codes = [code for code, _ in self.freq]
        slots = [SLOT_TIMES[c] for c in dict.fromkeys(codes) if c in SLOT_TIMES]
        bedtime = "BEDTIME" in codes or "NIGHT" in codes
        count: int | None = None
        times: list[str] = []
        for code, span in self.freq:
            if code in ("1", "2", "3", "4"):
                count, times = int(code), list(DEFAULT_TIMES[int(code)])
            elif code == "N":
                n = _number(span[0].text)
                if n and n.is_integer() and 1 <= n <= 6:
                    count = int(n)
                    every = _every_hours(24 // count)
                    times = DEFAULT_TIMES.get(count) or (every[1] if every and every[0] == count else [])
            elif code == "Q":
                every = _every_hours(int(span.text.lower()[1:-1]))
                if every:
                    count, times = every
            if count:
                break
        if "PRN" in codes and not (self.pattern and any(self.pattern)):
            return None, sorted(self.clock)  # as needed: no fixed schedule, whatever interval is written
        if self.pattern and any(self.pattern):
            slot_times = PATTERN_SLOTS.get(len(self.pattern), PATTERN_SLOTS[3])
            times = [t for t, v in zip(slot_times, self.pattern, strict=False) if v]
            if bedtime and self.pattern[-1] and len(self.pattern) == 3:
                times[-1] = "21:00"
            count = len(times)
            if self.dose is None:
                self.dose = next(v for v in self.pattern if v)
        elif count is None and slots:
            count, times = len(slots), slots
        elif count is None and self.meal_times:
            count, times = len(self.meal_times), list(self.meal_times)
        elif count is not None and slots and len(slots) == count:
            times = slots
        elif count is not None and self.meal_times and len(self.meal_times) == count:
            times = list(self.meal_times)
        if count is None:
            if "STAT" in codes:
                return 1, sorted(self.clock)
            if "ALT" in codes or "WEEKLY" in codes:
                count, times = 1, ["08:00"]
        if self.clock:
            times = sorted(self.clock)
            count = count or len(times)
        return count, sorted(times)


# -- segmentation -----------------------------------------------------------------------------------

_SEPARATORS = {";", ",", ".", "then", "and", "|", "also"}
_PREFIX_WORDS = {
    "tab",
    "tabs",
    "tablet",
    "cap",
    "caps",
    "capsule",
    "syp",
    "syr",
    "syrup",
    "inj",
    "injection",
    "susp",
    "oint",
    "ointment",
    "cream",
    "gel",
    "drops",
    "drop",
    "sachet",
    "lotion",
    "inh",
    "inhaler",
    "t",
    "c",
    "rx",
    "take",
    "of",
    ".",
    "-",
    ":",
    "x",
}
# The dosage forms among them: a line naming one is about a medicine (a guessed name may stand on it).
_FORM_WORDS = {w for w in _PREFIX_WORDS if len(w) >= 3 and w.isalpha() and w not in ("take",)}


def _clean_sentences(line: str) -> str:
    """Drops the sentences that read like instructions to the assistant (text is data)."""
    if not any(p.search(line) for p in INJECTION_PATTERNS):
        return line
    parts = re.split(r"(?<=[.;!?])\s+|\s+(?=(?:ignore|disregard|forget|override|please|now)\b)", line, flags=re.I)
    return " ".join(p for p in parts if not any(pat.search(p) for pat in INJECTION_PATTERNS))


def _drug_groups(doc: Doc) -> list[list[Span]]:
    lexicon = load_lexicon()
    groups: list[list[Span]] = []
    for ent in (e for e in doc.ents if e.label_ == "DRUG"):
        if groups:
            prev = groups[-1][-1]
            gap = doc[prev.end : ent.start]
            between = [t.lower_ for t in gap if t.ent_type_ != "STRENGTH"]
            parts = frozenset(e.ent_id_ for e in [*groups[-1], ent])
            joined = between in (["+"], ["&"], ["/"], ["plus"]) or len(gap) == 0
            known = between in (["and"], ["with"], ["-"]) and parts in lexicon.combinations
            if joined or known:
                groups[-1].append(ent)
                continue
        groups.append([ent])
    return groups


def _segment_start(doc: Doc, prev_end: int, start: int) -> int:
    """Where the text of a medication starts: after the last separator between it and the one before,
    else at its dose/form words just before the name."""
    for i in range(start - 1, prev_end - 1, -1):
        if doc[i].lower_ in _SEPARATORS and not doc[i].ent_type_:
            return i + 1
    i = start
    while i > prev_end and (doc[i - 1].lower_ in _PREFIX_WORDS or doc[i - 1].ent_type_ == "DOSE"):
        i -= 1
    return i


def _opens_item(doc: Doc, line: str) -> bool:
    """Does a line without a known drug open a new item (NEW_ITEM_LINE)? Not when its dosage form is
    followed by directions: "Tablet QID on an empty stomach", "1 tab twice daily" are the last
    medicine's directions (a dose whose number was lost, or written without one), not a medicine
    called "QID"."""
    match = NEW_ITEM_LINE.match(line)
    if match is None or match.group(2) is None:
        return match is not None
    form = next((t for t in doc if t.lower_.rstrip(".") == match.group(2).lower()), None)
    after = next((t for t in doc[form.i + 1 :] if t.text != "."), None) if form is not None else None
    return after is None or after.ent_type_ not in _CUE_LABELS


def _table_roles(cells: list[str]) -> dict[int, str] | None:
    roles = {}
    for i, cell in enumerate(cells):
        words = set(re.findall(r"[a-z]+", cell.lower()))
        for role, keys in HEADER_ROLES.items():
            if words & keys and i not in roles:
                roles[i] = role
    return roles if "name" in roles.values() and len(roles) >= 2 else None


def _bare_numbers(doc: Doc, entry: _Entry, start: int, end: int, drug_end: int, roles: dict[int, str] | None) -> None:
    """Numbers outside any entity: a table's dose/frequency/duration column, "Dolo 650" (mg), "1 BD" (dose)."""
    cell = sum(1 for t in doc[:start] if t.text == "|")
    for tok in doc[start:end]:
        if tok.text == "|":
            cell += 1
            continue
        if tok.ent_type_ or not re.fullmatch(r"\d+(?:\.\d+)?|\d/\d", tok.text):
            continue
        value = _number(tok.text)
        role = (roles or {}).get(cell)
        nxt = doc[tok.i + 1] if tok.i + 1 < len(doc) else None
        if role == "dose" and entry.dose is None:
            entry.dose = value
        elif role == "frequency" and value and value.is_integer() and not entry.freq and entry.pattern is None:
            entry.freq.append(("N", doc[tok.i : tok.i + 1]))
        elif role == "duration" and entry.duration is None and value:
            unit = 7 if "week" in (roles or {}).get(-1, "") else 1
            entry.duration = round(value * unit)
        elif tok.i == drug_end and value and value >= 5 and value.is_integer() and not entry.strengths:
            entry.strengths.append(f"{_fmt(value)} mg")
        elif nxt is not None and nxt.ent_type_ in ("FREQ", "PATTERN") and entry.dose is None and value and value <= 4:
            entry.dose = value


def extract_medications(text: str) -> list[dict[str, Any]]:
    """Prescription text -> one dict per medication (see the module docstring); [] when there is none."""
    if not isinstance(text, str) or not text.strip():
        return []
    nlp = get_nlp()
    entries: list[_Entry] = []
    roles: dict[int, str] | None = None
    last_attachable: _Entry | None = None
    for raw in text[:MAX_TEXT_CHARS].splitlines():
        line = _clean_sentences(raw[:MAX_LINE_CHARS]).strip()
        if NOT_TO_TAKE_LINE.match(line):
            rx = _RX_PART.search(line)
            line = line[rx.end() :].strip() if rx else ""
            last_attachable = None
        if not line or not re.search(r"[A-Za-z0-9]", line):
            continue
        is_table = "|" in line or "\t" in line
        if is_table:
            cells = [c.strip() for c in re.split(r"\||\t", line.strip().strip("|"))]
            line = " | ".join(cells)
        doc = nlp(line)
        _drop_uncorroborated_guesses(doc, line)
        groups = _drug_groups(doc)
        if not groups:
            header = _table_roles(cells) if is_table else None
            if header:
                roles = header
                roles[-1] = line.lower()  # type: ignore[assignment]
                continue
            if last_attachable is not None and not ADMIN_LINE.match(line) and not _opens_item(doc, line):
                last_attachable.absorb([e for e in doc.ents], fill_only=True)
            else:
                last_attachable = None
            continue
        bounds = [0]
        for prev, group in pairwise(groups):
            bounds.append(_segment_start(doc, prev[-1].end, group[0].start))
        bounds.append(len(doc))
        for k, group in enumerate(groups):
            start, end = bounds[k], bounds[k + 1]
            entry = _Entry([e.ent_id_ for e in group], [])
            entry.absorb([e for e in doc.ents if start <= e.start < end and e.label_ != "DRUG"])
            _bare_numbers(doc, entry, start, end, group[-1].end, roles if is_table else None)
            entries.append(entry)
        last_attachable = entries[-1]
    return [entry.result() for entry in entries]
