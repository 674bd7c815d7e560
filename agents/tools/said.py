"""What the user said: small rules that tools check the model's arguments against.

A 135M model invents details ("200mg", three doses for "twice a day", the symptom
"weight loss" for "I want to lose weight"). Tools that store or schedule something
keep only what these rules find in the user's own words (``said_in_request``).

The rules are written by hand on purpose: spaCy is not installed, its trained
English pipelines are not on PyPI, and what they read here is a small
closed vocabulary (doses with units, "twice a day"/"BD"/"every 8 hours", clock
times, the symptom bank's clinical and lay words) that a few regular expressions
read deterministically and testably.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from functools import cache

from agents.knowledge import symptom_bank
from health.scheduler.times import default_times, every_hours

# --- words ---------------------------------------------------------------------------------

_NUMBER_WORDS = {
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
    "eleven": 11,
    "twelve": 12,
}
# Words that carry no complaint of their own ("I've been feeling very ...").
_FILLER = set(
    "a an and the with have has had having feel feels feeling felt some mild slight very been my me i i'm i've "
    "im ive is are was were be it it's its of in on at to for from by up out off all lot lots really so just "
    "keep keeps kept get gets got getting can can't cant cannot won't wont not no like this that there when "
    "what more much time times also even still too he she his her him he's she's has hasn't doesn't don't "
    "unexplained severe chronic persistent frequent recurrent recurring occasional sudden constant bad terrible "
    "new recent some any".split()
)


def words(text: str) -> list[str]:
    """Lower-case words and numbers of ``text`` ("Vitamin D3, 1000 IU" -> vitamin, d3, 1000, iu)."""
    return re.findall(r"[a-z0-9]+(?:'[a-z]+)?", str(text).lower())


def stem(word: str) -> str:
    """A crude common stem: "aches"/"aching"/"ached" -> "ach", "headaches" -> "headach"."""
    if word.endswith("ss"):
        return word
    for suffix in ("ing", "es", "ed", "s", "e", "y"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def content_words(text: str) -> list[str]:
    return [w for w in words(re.sub(r"\{\w+\}", " ", text)) if len(w) > 2 and w not in _FILLER]


# --- quantities (doses and strengths) --------------------------------------------------------

_UNITS = {
    "mg": "mg",
    "milligram": "mg",
    "milligrams": "mg",
    "g": "g",
    "gram": "g",
    "grams": "g",
    "mcg": "mcg",
    "µg": "mcg",
    "ug": "mcg",
    "microgram": "mcg",
    "micrograms": "mcg",
    "ml": "ml",
    "millilitre": "ml",
    "millilitres": "ml",
    "milliliter": "ml",
    "milliliters": "ml",
    "iu": "iu",
    "unit": "unit",
    "units": "unit",
    "tablet": "tablet",
    "tablets": "tablet",
    "tab": "tablet",
    "tabs": "tablet",
    "pill": "tablet",
    "pills": "tablet",
    "capsule": "capsule",
    "capsules": "capsule",
    "caps": "capsule",
    "drop": "drop",
    "drops": "drop",
    "puff": "puff",
    "puffs": "puff",
    "spoon": "teaspoon",
    "teaspoon": "teaspoon",
    "teaspoons": "teaspoon",
    "tsp": "teaspoon",
    "sachet": "sachet",
    "sachets": "sachet",
    "patch": "patch",
    "patches": "patch",
}
_NUMBER = r"(\d+(?:\.\d+)?|half\s+an?|half|one|two|three|four|five|six|seven|eight|nine|ten|a|an)"
_QUANTITY = re.compile(
    _NUMBER + r"\s*-?\s*(" + "|".join(sorted(map(re.escape, _UNITS), key=len, reverse=True)) + r")\b", re.IGNORECASE
)


def _number(text: str) -> str:
    text = text.lower()
    if text.startswith("half"):
        return "0.5"
    if text in ("a", "an"):
        return "1"
    value = float(_NUMBER_WORDS.get(text, text))
    return f"{value:g}"


def quantities(text: str) -> list[tuple[str, str]]:
    """Each number with its unit: "500 mg, 2 tablets" -> [("500", "mg"), ("2", "tablet")].

    "a tablet" counts as one; a bare "a" only in front of a dose form, never "a g"."""
    found = []
    for match in _QUANTITY.finditer(str(text)):
        number, unit = match.group(1), _UNITS[match.group(2).lower()]
        if number.lower() in ("a", "an") and unit in ("mg", "g", "mcg", "ml", "iu"):
            continue
        found.append((_number(number), unit))
    return found


def dose_said(dose: str | None, text: str) -> bool:
    """True when every quantity of ``dose`` is one the user said (and it has one)."""
    wanted = quantities(dose or "")
    said = set(quantities(text))
    return bool(wanted) and all(q in said for q in wanted)


# --- medicine names ------------------------------------------------------------------------

_FORM_WORDS = set(_UNITS) | {"reminder", "reminders", "medicine", "medication", "dose", "doses", "daily"}


def name_said(name: str, text: str) -> str:
    """``name`` with only the parts the user said: words the user wrote, and strengths they gave.

    "Metformin 200mg" for "remind me to take metformin" -> "Metformin". "" when no word of
    the name itself (not its strength or form) was said."""
    said_words = set(words(text))
    said_quantities = set(quantities(text))
    kept: list[str] = []
    named = False
    tokens = str(name).split()
    skip = 0
    for index, token in enumerate(tokens):
        if skip:
            skip -= 1
            continue
        pair = " ".join(tokens[index : index + 2])
        quantity = quantities(token) or (quantities(pair) if re.fullmatch(r"[\d.]+", token) else [])
        if quantity and re.match(r"[\d.]", token):
            if quantity[0] in said_quantities:
                kept.append(pair if not quantities(token) else token)
                skip = 0 if quantities(token) else 1
            else:
                skip = 0 if quantities(token) else 1
            continue
        parts = words(token)
        if parts and all(part in said_words for part in parts):
            kept.append(token)
            named = named or any(part not in _FORM_WORDS and not part.isdigit() for part in parts)
    return " ".join(kept).strip(" ,;:") if named else ""


# --- schedules -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Schedule:
    """When to take a medicine, as far as the user said.

    ``times`` are the reminder times; ``defaults`` says they are the app's default
    clock times for what the user said ("twice a day"), not times the user gave."""

    times: tuple[dt.time, ...]
    defaults: bool
    said: str  # the words it was read from, e.g. "twice a day"


class ScheduleConflict(ValueError):
    """The user's words give two different schedules (e.g. "three times a day at 8 and 20")."""


_COUNT = r"(once|twice|thrice|(?:\d{1,2}|one|two|three|four|five|six)\s*(?:times|x))"
_PER_DAY = r"(?:\s+(?:a|per|each|every|in\s+a)\s+day|\s+daily|\s*/\s*day|\s+a\s+-?\s*day)"
_ABBREVIATIONS = {"od": 1, "qd": 1, "bd": 2, "bid": 2, "tds": 3, "tid": 3, "qds": 4, "qid": 4}
_NAMED = (
    (r"\b(?:at\s+)?(?:bed\s*time|night\s*time)\b|\bbefore\s+(?:bed|sleep(?:ing)?)\b|\bat\s+night\b|\bnocte\b", "21:00"),
    (r"\b(?:every|each|in\s+the)\s+morning\b|\bmornings?\b|\bwith\s+breakfast\b", "08:00"),
    (r"\b(?:at\s+)?(?:noon|midday|lunch\s*time)\b", "12:00"),
    (r"\b(?:every|each|in\s+the)\s+evening\b|\bevenings?\b|\bwith\s+dinner\b", "20:00"),
)
_CLOCK = re.compile(r"\b([01]?\d|2[0-3])[:.h]([0-5]\d)\s*(am|pm|a\.m\.|p\.m\.)?(?![\d])", re.IGNORECASE)
_MERIDIEM = re.compile(r"\b(1[0-2]|0?[1-9])\s*(am|pm|a\.m\.|p\.m\.)(?![a-z])", re.IGNORECASE)
# "at 9 and 21", "at 7, 13 and 19": bare hours only in a list after "at".
_AT_LIST = re.compile(
    r"\bat\s+((?:[01]?\d|2[0-3])(?:\s*(?:,|and|&)\s*(?:[01]?\d|2[0-3]))*)(?!\s*[:.\d]|\s*(?:am|pm|a\.m|p\.m|%|[a-z]))",
    re.IGNORECASE,
)


def _hhmm(value: str) -> dt.time:
    return dt.time.fromisoformat(value)


def _spread(count: int) -> tuple[dt.time, ...]:
    # The app's one table of default times: "twice a day" here and "BD" on a prescription agree.
    return tuple(_hhmm(t) for t in default_times(count))


def _clock_times(text: str) -> list[dt.time]:
    found: set[dt.time] = set()
    for hour, minute, meridiem in _CLOCK.findall(text):
        found.add(_meridiem(int(hour), int(minute), meridiem))
    for hour, meridiem in _MERIDIEM.findall(text):
        found.add(_meridiem(int(hour), 0, meridiem))
    for listed in _AT_LIST.findall(text):
        found.update(dt.time(int(hour)) for hour in re.findall(r"\d+", listed))
    if re.search(r"\bmidnight\b", text, re.IGNORECASE):
        found.add(dt.time(0))
    return sorted(found)


def _meridiem(hour: int, minute: int, meridiem: str) -> dt.time:
    meridiem = meridiem.lower().replace(".", "")
    if meridiem == "pm" and hour < 12:
        hour += 12
    elif meridiem == "am" and hour == 12:
        hour = 0
    return dt.time(hour % 24, minute)


def _count(text: str) -> tuple[int, str] | None:
    """Doses a day the user named, and the words that said it."""
    lower = text.lower()
    match = re.search(r"\bevery\s+(\d{1,2}|one|two|three|four|six|eight|twelve)\s*(?:hours|hrs|hr|h)\b", lower)
    if match is None:
        match = re.search(r"\bq\s*(\d{1,2})\s*h\b", lower)
    if match:
        hours = int(_NUMBER_WORDS.get(match.group(1), match.group(1)))
        if 2 <= hours <= 24 and 24 % hours == 0:
            return 24 // hours, match.group(0)
    match = re.search(r"\b" + _COUNT + r"(" + _PER_DAY + r")?", lower)
    if match and (match.group(2) or not re.match(r"\s+(?:a|per|each|every)\s+(?:week|month)", lower[match.end() :])):
        word = match.group(1).split()[0].rstrip("x")
        count = {"once": 1, "twice": 2, "thrice": 3}.get(word) or int(_NUMBER_WORDS.get(word, word or 0))
        if 1 <= count <= 12:
            return count, match.group(0)
    compact = re.sub(r"(?<=\b[a-z])\.(?=[a-z]\b)|(?<=\b[a-z])\.(?=\s|$)", "", lower)
    for token in re.findall(r"[a-z]+", compact):
        if token in _ABBREVIATIONS:
            return _ABBREVIATIONS[token], token
    if re.search(r"\b(?:daily|every\s+day|each\s+day|a\s+day|per\s+day)\b", lower):
        return 1, "daily"
    return None


def schedule(text: str) -> Schedule | None:
    """The schedule in the user's words, or None when they said nothing about when.

    Clock times the user gave win ("at 9 and 21"); otherwise times of day they named
    ("at bedtime") or a count ("twice a day", "BD", "every 8 hours") get default times."""
    count = _count(text)
    clock = _clock_times(text)
    if clock:
        if count and count[0] != len(clock) and not (count[1] == "daily" and len(clock) > 1):
            raise ScheduleConflict(
                f"the user said {count[1]!r} but gave {len(clock)} time(s) ({', '.join(f'{t:%H:%M}' for t in clock)})"
            )
        return Schedule(tuple(clock), defaults=False, said=", ".join(f"{t:%H:%M}" for t in clock))
    named = []
    said = []
    for pattern, clock_time in _NAMED:
        match = re.search(pattern, text, re.IGNORECASE)
        if match and _hhmm(clock_time) not in named:
            named.append(_hhmm(clock_time))
            said.append(match.group(0).strip())
    if named and (count is None or count[0] == len(named) or count[1] == "daily"):
        return Schedule(tuple(sorted(named)), defaults=True, said=" and ".join(said))
    if count:
        if count[1].startswith(("every", "q")):
            return Schedule(tuple(_hhmm(t) for t in every_hours(24 // count[0]) or ()), True, count[1])
        return Schedule(_spread(count[0]), defaults=True, said=count[1])
    return None


def duration_days(text: str) -> int | None:
    """ "for 7 days" -> 7, "for two weeks" -> 14, "for a month" -> 30; None when not said."""
    match = re.search(
        r"\bfor\s+(?:the\s+next\s+)?(\d{1,4}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|twelve)\s+"
        r"(days?|weeks?|months?)\b",
        text.lower(),
    )
    if match is None:
        return None
    number = 1 if match.group(1) in ("a", "an") else int(_NUMBER_WORDS.get(match.group(1), match.group(1)))
    return number * {"d": 1, "w": 7, "m": 30}[match.group(2)[0]]


def food_timing(text: str) -> str | None:
    """ "after meals" -> "after", "before food"/"on an empty stomach" -> "before", "with food" -> "with"."""
    meal = r"(?:food|meals?|eating|breakfast|lunch|dinner|supper|a\s+meal)"
    lower = text.lower()
    for timing in ("before", "after", "with"):
        if re.search(rf"\b{timing}\s+{meal}\b", lower):
            return timing
    if "empty stomach" in lower:
        return "before"
    return None


def segment_about(name: str, text: str) -> str:
    """The clause of ``text`` that is about the medicine ``name`` (a prescription may list several,
    separated by ';', new lines or sentences); the whole text when no clause names it."""
    name_words = [w for w in words(name) if not w.isdigit() and w not in _FORM_WORDS]
    for part in re.split(r";|\n|(?<![\d])\.(?!\d)", text):
        if name_words and any(w in words(part) for w in name_words):
            return part
    return text


# --- symptoms ------------------------------------------------------------------------------


@cache
def _bank_phrasings() -> dict[str, tuple[tuple[str, ...], ...]]:
    """Clinical term (lower case) -> the content words of each way the symptom bank says it."""
    bank = symptom_bank()
    phrasings: dict[str, list[tuple[str, ...]]] = {}
    for symptom in bank.symptoms.values():
        ways = [symptom.clinical, *symptom.lay, *bank.child_lay.get(symptom.key, ())]
        phrasings.setdefault(symptom.clinical.lower(), []).extend(
            tuple(content_words(way)) for way in ways if content_words(way)
        )
    return {key: tuple(value) for key, value in phrasings.items()}


def _typo(a: str, b: str) -> int:
    """Edit distance with adjacent transpositions ("ftaigue" -> "fatigue" is 1), capped at 3."""
    if abs(len(a) - len(b)) > 2:
        return 3
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, char in enumerate(a, 1):
        row = [i]
        for j, other in enumerate(b, 1):
            cost = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (char != other))
            if i > 1 and j > 1 and char == b[j - 2] and a[i - 2] == other:
                cost = min(cost, previous2[j - 2] + 1)
            row.append(cost)
        previous2, previous = previous, row
    return min(previous[-1], 3)


class _Said:
    """The user's content words, matched on a crude stem or with a typo in a long word
    ("jont pain", "ftaigue": people type fast; short words must match exactly, so that
    "lose" never reads as "loss")."""

    def __init__(self, text: str) -> None:
        self.words = set(content_words(text))
        self.stems = {stem(w) for w in self.words}
        self._memo: dict[str, bool] = {}

    def has(self, word: str) -> bool:
        if word not in self._memo:
            allowed = 2 if len(word) >= 8 else 1 if len(word) >= 5 else 0
            self._memo[word] = stem(word) in self.stems or (
                allowed > 0 and any(_typo(word, other) <= allowed for other in self.words if len(other) >= 4)
            )
        return self._memo[word]

    def all(self, needed: list[str] | tuple[str, ...]) -> bool:
        return bool(needed) and all(self.has(word) for word in needed)


def symptom_said(symptom: str, text: str | _Said) -> bool:
    """True when the user's words name ``symptom``: all its words (on a crude stem, a typo allowed
    in a long word), or all the content words of one of the symptom bank's phrasings of it
    ("I've been burning up" for fever)."""
    said = text if isinstance(text, _Said) else _Said(text)
    if said.all(content_words(symptom)):
        return True
    return any(said.all(way) for way in _bank_phrasings().get(symptom.strip().lower(), ()))


# Words that report how one feels: a message with none of these and no symptom of the bank
# is a question or a request ("How were my vitals today?", "I want to lose weight").
_COMPLAINT = re.compile(
    r"\b(hurts?|hurting|aches?|aching|achy|pains?|painful|sore|swollen|swelling|itch(?:y|ing)?|bleeding|"
    r"dizzy|nause(?:a|ous|ated)|vomit(?:ing|ed)?|throwing\s+up|feverish|fever|tired|exhausted|weak|faint|"
    r"cough(?:ing)?|sneez(?:e|ing)|rash|numb|tingl(?:e|ing)|burning|cramps?|shaking|breathless|"
    r"(?:feel|feeling|felt)\s+(?:sick|ill|unwell|awful|terrible|bad|off|low|down|hot|cold|weird|strange)|"
    r"not\s+(?:feeling\s+)?(?:well|good|great|right)|symptoms?\s+(?:are|is|include))\b",
    re.IGNORECASE,
)


def names_a_complaint(text: str) -> bool:
    """Whether the user's words report a complaint at all (rather than ask or request something)."""
    if _COMPLAINT.search(text.replace("\u2019", "'")):
        return True
    said = _Said(text)
    return any(said.all(way) for ways in _bank_phrasings().values() for way in ways)
