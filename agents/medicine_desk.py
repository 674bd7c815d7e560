"""The medicines desk: "what doses do I have today?", "I took my morning pill", "can I upload a photo of
my prescription?".

A patient's questions about the medicines they already take are answered from the records, before
the model runs, like the appointments desk (agents.appointment_desk) and the other chat guards
(agents/runtime.py). The desk reads the request (:func:`read`, no database) and uses the tools of
agents.tools.my_medicines, whose steps are written into the trajectory like any other:

- doses_today: ``get_todays_doses``; its message (rendered from the dose records and reminders) is
  the answer;
- dose_taken: the one dose of today the words name (by medicine, brand or typo of it, and by part of
  the day or clock time) that the Medications page would let the patient mark, then
  ``mark_dose_taken``, which asks "Mark your 08:00 … dose as taken?" and marks it only on a clear
  yes (a dose later today from the early window on, health.scheduler.ahead, so that its reminder
  stays quiet); more than one could be meant: ``get_input_from_user`` asks which (numbered; the answer is read
  by the desk, not the model); none: the user is told why (taken already, not due yet, no such
  dose) with today's doses;
- photo: where to upload a prescription photo and what happens next (a template); nothing is stored.

Setting a reminder ("remind me to take metformin twice a day") stays with the model and
``set_medication_reminder``; so does anything about how to take a medicine, a complaint, or a
request to prescribe (agents.scope answers that first). Hand-written rules on purpose, like
agents.appointment_desk, rather than an intent classifier or a parsing library: the desk must never
answer a message that needs the model or a person ("I took too many pills", "I took my metformin and
feel dizzy"), and a wrong "taken" is a false record, so each pattern is narrow and its cases are
listed in the tests; a message that is not plainly the desk's goes on to the model as before. The
libraries that do fit are used: rapidfuzz for typos and the medicines lexicon for names.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from django.template.loader import render_to_string
from rapidfuzz.distance import OSA

from agents import desk_steps
from agents.desk_reading import prepared
from agents.medicine_words import PILL_WORDS, PILLS
from agents.models import Conversation
from agents.tools.health_data import split_strength
from agents.tools.my_medicines import NOT_RECORDED, UPCOMING, TodaysDose, listing, photo_help, todays_doses
from agents.tools.transcript import QUESTION_TOOLS, request_parts
from health.scheduler import ahead
from health.scheduler.lexicon import NOT_NAME_WORDS, known_medicine

if TYPE_CHECKING:
    from agents.runtime import Runtime

log = logging.getLogger(__name__)

DOSES_TODAY, DOSE_TAKEN, PHOTO, REMINDER = "doses_today", "dose_taken", "photo", "reminder"
DESK = "Medicines desk:"  # how the desk's planner steps begin (the chat page shows its words as written)

# Words for a medicine without its name: "my pills", "the evening tablets", "my meds" (the shared
# words), and the desk's own: a dose, insulin, an inhaler.
_PILL = rf"(?:{PILLS}|doses?|insulin|inhalers?)"
_PILL_WORDS = frozenset(PILL_WORDS) | frozenset("dose doses insulin inhaler inhalers".split())
# Parts of the day a dose is named by, as local hours [from, to) (wrapping past midnight for night).
PARTS = {
    "morning": (4, 12),
    "breakfast": (5, 11),
    "lunch": (11, 15),
    "lunchtime": (11, 15),
    "midday": (11, 15),
    "noon": (11, 15),
    "afternoon": (12, 17),
    "evening": (16, 23),
    "dinner": (16, 22),
    "supper": (16, 22),
    "night": (19, 4),
    "nighttime": (19, 4),
    "tonight": (16, 4),
    "bedtime": (19, 4),
    "bed": (19, 4),
}
_PART = r"(?:" + "|".join(sorted(PARTS, key=len, reverse=True)) + r")"

# Not the desk's, whatever else the message says: too much or the wrong medicine (a person or the
# model must answer), how to take one, a complaint, a change to the prescription.
_NOT_MINE = re.compile(
    r"\b(?:too many|too much|double|extra|overdos\w*|two doses|twice|again|wrong|by mistake|mistakenly|accident\w*|"
    # "I took a lot of pills for my cold": more than a dose, for a person or the model to answer
    rf"(?:a lot of|lots of|loads of|a handful of|a bunch of|a whole (?:pack|box|bottle|strip) of)\s+(?:\w+\s+)?{_PILL}|"
    r"someone else'?s|(?:his|her|their|husband'?s|wife'?s|mum'?s|mom'?s|dad'?s|son'?s|daughter'?s)\s+(?:\w+\s+)?"
    + _PILL
    + r"|instead of|expired|side[- ]effects?|allerg\w*|reaction|interact\w*|alcohol|safe|"
    r"sick|vomit\w*|threw up|throw up|dizzy|rash|pregnan\w*|breastfeed\w*|increase\w*|decrease\w*|reduce\w*|"
    r"change\w*|stop(?:ped|ping)?|switch\w*|refill|renew\w*|run(?:ning)? out|ran out|prescribe\w*|why)\b",
    re.I,
)
# Setting, changing or stopping a reminder is the model's (set_medication_reminder).
_SET_REMINDER = re.compile(
    r"\bremind\s+(?:me|him|her|us)\b(?!\s+(?:what|which|when)\b)|\b(?:set|add|create|make|put|schedule|change|move|cancel|delete|remove|"
    r"turn off|switch off|stop|snooze)\s+(?:\w+\s+){0,3}?(?:reminders?|alarms?|alerts?)\b"
    r"|\breminders?\s+(?:for|to|at)\b",
    re.I,
)
_NEGATED = re.compile(
    r"\b(?:not|n't|never|no|forgot|forget|forgotten|missed|skipped|without|couldn'?t|can'?t|cannot|won'?t|"
    r"didn'?t|haven'?t|hasn'?t|wasn'?t|isn'?t|aren'?t)\b|n't\b",
    re.I,
)

# --- photo: "I have a photo of my prescription", "can I upload my prescription" -------------
_PRESCRIPTION = (
    r"(?:prescriptions?|script|rx|pharmacy label|(?:printed|written) list of (?:my |the )?"
    r"(?:medicines|medications|meds|tablets|pills)|(?:medication|medicine|meds|pill|tablet) list)"
)
_PHOTO = re.compile(
    rf"\b(?:photos?|pictures?|pics?|images?|scans?|scanned|snaps?|snapped|snapshot|photograph\w*|camera|upload\w*|"
    rf"attach\w*)\b[^.?!]*\b{_PRESCRIPTION}\b"
    rf"|\b{_PRESCRIPTION}\b[^.?!]*\b(?:photos?|pictures?|pics?|images?|scans?|scanned|snap|photograph\w*|upload\w*|"
    rf"attach\w*)\b"
    rf"|\b(?:add|enter|put in|type in|send you|give you|show you)\s+(?:a|my|the|this|new|a new)\s+{_PRESCRIPTION}\b"
    # "set up my reminders from my prescription", "can you read my prescription": what the photo page does
    rf"|\b(?:reminders?|alarms?|doses?|schedule)\s+(?:\w+\s+){{0,2}}?(?:from|off|using|based on)\s+"
    rf"(?:my|the|this|a|his|her)\s+(?:new\s+)?{_PRESCRIPTION}\b"
    rf"|\bread\s+(?:my|the|this|a|his|her)\s+(?:new\s+)?{_PRESCRIPTION}\b"
    # "I got a prescription from my doctor, can you read it?"
    rf"|\b{_PRESCRIPTION}\b[^.?!]*\b(?:read|scan|go through|type up)\s+it\b"
    # "my prescription changed, here's the new one", "I have the prescription slip with me, what now"
    rf"|\b{_PRESCRIPTION}\b[^.?!]*\b(?:here'?s|here is|i'?ve got|i have|i got)\s+(?:the|a|my)\s+new\s+one\b"
    rf"|\b(?:have|got)\s+(?:the|my|a|this)\s+(?:new\s+)?{_PRESCRIPTION}(?:\s+slip)?\s+"
    r"(?:with me|here|in (?:my )?hand)\b"
    # "can you scan the label on my tablets": the pharmacy's label is a prescription's words
    r"|\b(?:scan\w*|read|photo\w*|picture)\s+(?:of\s+)?(?:the|my|this)\s+(?:pharmacy\s+)?label\b"
    # "can I add my medicines by taking a photo": the list comes from a photographed prescription
    r"|\b(?:add|enter|put in|set up|load)\s+(?:all\s+)?(?:my|the)\s+(?:medicines?|medications?|meds|pills|tablets)\b"
    r"[^.?!]*\b(?:photos?|pictures?|pics?|snaps?|camera|scan\w*)\b"
    # "there's a prescription slip here, can you add the medicines from it"
    rf"|\b{_PRESCRIPTION}\b[^.?!]*\b(?:add|enter|set up|put in|load)\s+(?:all\s+)?(?:the|my)\s+"
    r"(?:medicines?|medications?|meds|pills|tablets)\s+(?:from|on|off)\b"
    # "a photo of the doctor's note with my meds on it": a photographed paper that lists them
    r"|\b(?:photos?|pictures?|pics?|scans?|snaps?|photograph\w*)\b[^.?!]*\b(?:with|of|listing)\s+(?:all\s+)?"
    r"(?:my|the)\s+(?:medicines?|medications?|meds|pills|tablets)\s+on\s+it\b"
    # "where can I upload a photo of the doctor's note with my meds": a paper that lists them, to upload
    r"|\b(?:upload|send|share|attach|give)\w*\b[^.?!]*\b(?:photos?|pictures?|pics?|scans?|snaps?|photograph\w*)\b"
    r"[^.?!]*\b(?:note|letter|list|sheet|paper|slip|label)\b[^.?!]*\b(?:with|of|listing|showing)\s+(?:all\s+)?"
    r"(?:my|the)\s+(?:medicines?|medications?|meds|pills|tablets)\b"
    # "I've got a new prescription, how do I add it", "how do I put my prescription in the app"
    rf"|\b{_PRESCRIPTION}\b[^.?!]*\b(?:how|where)\s+(?:do|can|should)\s+i\s+(?:add|enter|put|upload|send|give)\b"
    rf"|\b(?:how|where)\s+(?:do|can|should)\s+i\s+(?:add|enter|put|upload|send|give)\s+(?:in\s+)?"
    rf"(?:my|the|a|this|new|a new)\s+(?:new\s+)?{_PRESCRIPTION}\b",
    re.I,
)
# "The doctor gave me a prescription, can you set it up", "I got a script from the GP, can you put it in":
# the paper handed over, unless the message itself says which medicine (then it is dictated: a reminder).
_PRESCRIPTION_HANDED = re.compile(
    rf"\b{_PRESCRIPTION}\b[^.?!]*\b(?:set|put|add|load|enter)\s+(?:it|them|that|this)(?:\s+(?:up|in|on))?\b", re.I
)
# Sending a prescription elsewhere (a pharmacy, a doctor) is not an upload to the app.
_ELSEWHERE = re.compile(r"\bto\s+(?:the|my|a)?\s*(?:pharmacy|pharmacist|chemist|doctor|gp|clinic|hospital)\b", re.I)

# --- dose_taken: "I took my morning pill", "just took my metformin", "evening meds done" ---------
# Not "finished": "I finished my antibiotics" is the end of a course, not a dose.
# "my husband gave me my 6pm tablets": given by a carer, taken all the same
_TOOK = re.compile(r"\b(?:took|taken|had|swallowed|done|used|(?:gave|given)\s+(?:me|him|her))\b", re.I)
# "Did I take…", "have I taken…", "can't remember if I took…": a question about the records.
_DID_I = re.compile(
    r"\b(?:did|have|had|has)\s+(?:i|we|she|he)\s+(?:already\s+|actually\s+)?(?:take|taken|took|had|have)\b"
    r"|\b(?:was|were|is|are|has|have)\s+(?:my|the|this|today'?s|tonight'?s)\s+(?:\w+\s+){0,3}?(?:been\s+)?"
    r"(?:taken|had|done)\b"
    r"|\b(?:remember|recall|know|sure|check|tell me)\s+(?:if|whether)\s+i\s+(?:took|taken|have taken|had|'ve taken)\b"
    # "have I got all my meds done for today", "are my tablets all done"
    rf"|\b(?:have|has)\s+(?:i|we|he|she)\s+got\s+(?:all\s+)?(?:my|his|her|the|today'?s)\s+(?:\w+\s+)?{_PILL}\s+"
    r"(?:done|taken|in)\b"
    rf"|\b(?:are|is)\s+(?:all\s+)?(?:my|his|her|the|today'?s)\s+(?:\w+\s+)?{_PILL}\s+(?:all\s+)?done\b",
    re.I,
)
_MARK = re.compile(r"\b(?:mark|record|log|tick)\b", re.I)
# "taken", "took it", "all taken!": the answer to a reminder, typed as the whole message (the dose due).
_BARE_TAKEN = re.compile(
    r"^\W*(?:(?:ok|okay|yes|yep|done)\W+)?(?:(?:i'?ve|i have|i)\s+)?(?:just\s+)?(?:all\s+)?"
    r"(?:taken|took (?:it|them)|taken (?:it|them))(?:\s+(?:now|just now|already))?\W*$",
    re.I,
)
# "Have I taken everything today": every dose, without a pill word.
_EVERYTHING = re.compile(r"\b(?:everything|all (?:my|of them|today'?s)|all\s*$)\b", re.I)
# "How many tablets do I have today": a count of the day's doses, not how much of a medicine to take.
_HOW_MANY_TODAY = re.compile(
    rf"\bhow\s+many\s+(?:\w+\s+)?{_PILL}\s+(?:do\s+i\s+(?:have|take|need)|have\s+i\s+got|are\s+(?:left|due)|"
    r"left|to take)\b[^.?!]*\b(?:today|tonight|left|now|this (?:morning|afternoon|evening))\b"
    # "how many pills today?": the count and the day alone
    rf"|^\W*how\s+many\s+(?:\w+\s+)?{_PILL}\s+(?:for\s+)?(?:today|tonight)\W*$",
    re.I,
)
# "Tick off my warfarin", "cross off the evening tablets": marked done without the word "taken".
_TICK_OFF = re.compile(r"\b(?:tick|check|cross)\s+(?:\w+\s+){0,3}?off\b|\b(?:tick|check|cross)\s+off\b", re.I)
_JUST_NOW = re.compile(
    r"^\s*(?:them|it|those|these)\s+(?:just now|now|already|earlier|a (?:minute|moment|few minutes) ago|"
    r"this (?:morning|afternoon|evening))\b",
    re.I,
)

# --- doses_today: "what doses do I have today?", "what's my medication schedule" ---------------
_QUESTION = re.compile(
    r"\?|^\W*(?:what|which|when|whats|what's|do|did|have|is|are|am|show|list|tell|check|any|anything|can you|"
    r"could you)\b"
    r"|\b(?:show|list|tell)\s+me\b|\bremind\s+me\s+(?:what|which|when)\b",
    re.I,
)
_TODAY_ASKS = (
    # "which pills have I got left to take today", "what medicines am I on", "what doses do I have today"
    re.compile(
        rf"\b(?:what|which|whats|what's|any)\s+(?:\w+\s+){{0,2}}?{_PILL}\b[^.?!]*\b(?:today|tonight|left|due|now|on|"
        rf"taking|take|have|got|next|scheduled|remaining|this (?:morning|afternoon|evening)|"
        r"(?:after|before|with)\s+(?:dinner|lunch|breakfast|tea|supper|food|meals?|bed))\b",
        re.I,
    ),
    # "what's my medication schedule", "my pill times"
    re.compile(
        rf"(?:\b(?:my|today'?s|the)\s+|^\W*)(?:{_PILL}|pill|medication|medicine|dose)\s+(?:schedule|list|times|timetable|"
        rf"plan|regimen|routine|chart)\b",
        re.I,
    ),
    # "when is my next dose", "what time do I take my metformin", "when should I take my pills" (the
    # words must name a dose: :func:`_asks_about_today`)
    re.compile(
        r"\b(?:when|what time)(?:\s+(?:is|are|do|does|should|must|will)|\s*'s|s)\s+"
        r"(?:i\s+(?:take|have|need to take)\s+)?"
        r"(?:my|the|next|today'?s|tonight'?s)\s+(?:next\s+)?(?:\w+\s+){0,2}\w+",
        re.I,
    ),
    # "show me my medicines", "list today's doses", "what are my meds"
    re.compile(
        rf"\b(?:show|list|tell|give|go through|run through|walk me through|read out|read me)\s+(?:me\s+)?(?:all\s+)?"
        rf"(?:my|today'?s|tonight'?s)\s+(?:\w+\s+)?{_PILL}\b"
        rf"|\bwhat(?:'s|s| is| are)\s+(?:my|today'?s)\s+(?:\w+\s+)?{_PILL}\b",
        re.I,
    ),
    # "what do I take today", "what have I got left to take", "anything due today?", "what's due now"
    re.compile(
        # ("what do I still have to take today", "what else do I need to take", "what have I still got to take")
        r"\bwhat\s+(?:else\s+)?(?:do|should|must|have|am)\s+i\s+(?:still\s+)?"
        r"(?:supposed to\s+|meant to\s+|got\s+|need to\s+|have to\s+)?"
        r"(?:left\s+)?(?:to\s+)?(?:take|swallow)\b"
        # "what should mum be taking tonight", "what does dad take this evening"
        r"|\bwhat\s+(?:should|must|does|is|do)\s+(?:my\s+)?[a-z]+\s+(?:be\s+taking|take|supposed to take|"
        r"meant to take|need to take|have to take)\b[^.?!]*\b(?:today|tonight|now|this (?:morning|afternoon|evening))\b"
        r"|\b(?:what(?:'s| is| have i got)|anything|something)\s+left\s+to\s+take\b"
        r"|\bremind\s+me\s+what\s+i\s+(?:take|have to take|need to take)\b"
        r"|\b(?:do|have)\s+i\s+(?:still\s+)?(?:got\s+)?(?:need|have|got)\s+to\s+take\s+(?:anything|something|any\w*)\b"
        r"|\b(?:what(?:'s|s| is)?|anything|is anything|something)\s+(?:left\s+)?due\s+(?:today|now|tonight|this|next|"
        r"later|soon|at\s+\d{1,2}(?:[:.]\d\d)?\s*(?:am|pm)?|at\s+(?:noon|midday|lunch(?:time)?|bedtime|night)|"
        r"in the (?:morning|afternoon|evening))\b"
        # "am I meant to take anything with breakfast", "is mum supposed to take something tonight"
        r"|\b(?:am|are|is)\s+(?:i|we|he|she|my\s+\w+|mum|mom|dad)\s+(?:meant|supposed)\s+to\s+take\s+"
        r"(?:anything|something|any\w*)\b",
        re.I,
    ),
    # "is there anything I need to take this evening", "do I have pills at 2pm", "is my insulin due soon",
    # "which pill is the 6pm one", "when do I take it today"
    re.compile(
        r"\b(?:is|are)\s+there\s+(?:anything|something|any\s+\w+)\s+(?:(?:i|we|he|she)\s+(?:need|have|must|should)\s+"
        r"to\s+take|to\s+take|due|left)\b"
        rf"|\b(?:do|have)\s+i\s+(?:got\s+|have\s+)?(?:any\s+)?{_PILL}\s+(?:at|this|tonight|today|due|later|left|now|"
        r"in the)\b"
        rf"|\b(?:which|what)\s+{_PILL}\s+(?:is|are|do i take)\s+(?:the|my|at)\s+(?:\d|{_PART})"
        r"|\bwhen\s+(?:do|should|must)\s+i\s+take\s+(?:it|them|those|these)\s+(?:today|tonight)\b",
        re.I,
    ),
    # "which reminders do I have today", "what are my reminders"
    re.compile(
        r"\b(?:what|which|whats|what's|show|list)\s+(?:me\s+)?(?:are\s+)?(?:my\s+)?(?:medication\s+|medicine\s+|pill\s+)?"
        r"reminders\b",
        re.I,
    ),
)
# Asking about a medicine rather than the schedule: the model's (or a pharmacist's) to answer.
_ABOUT_A_MEDICINE = re.compile(
    r"\b(?:can|could|should|may|must)\s+i\s+take\b"
    r"(?!\s+(?:(?:my|the)\s+(?:\w+\s+)?)?(?:now|today|tonight|this (?:morning|afternoon|evening))\b)"
    r"|\bwhat\s+(?:is|are|does|do)\s+(?!my\b|today)\w+\s+(?:for|do|used)\b|\bhow\s+(?:much|many|long|often)\b"
    rf"|\bfor\s+(?:a|an|my|the|his|her)\s+(?!day\b|rest\b|{_PART}\b)\w+|\bwhat (?:is|are) (?!my\b|today|due\b)\w+\b",
    re.I,
)


@dataclass(frozen=True)
class MedicineRequest:
    """What the desk reads in a message: the kind, and the words that say which dose (dose_taken)."""

    kind: str
    target: str = ""


# The words the desk's patterns are made of: a typo of one ("tabelts", "mornign", "prescripton") is
# read as the word (agents.desk_reading.typos_read, as that desk reads "apointment").
_VOCABULARY = (
    "take", "took", "taken", "swallowed", "tablet", "tablets", "pill", "pills", "capsule", "capsules", "medicine",
    "medicines", "medication", "medications", "meds", "dose", "doses", "schedule", "today", "tonight", "morning",
    "afternoon", "evening", "night", "bedtime", "breakfast", "dinner", "prescription", "photo", "picture",
    "upload", "which", "what", "left", "remind", "reminder", "reminders", "insulin", "inhaler", "antibiotics",
    "when", "time", "next", "due", "anything", "mark", "hello", "sorry", "done", "script", "now", "had",
    "supposed", "photograph", "add", "everything", "have", "got", "vitamin", "scan", "from", "with", "slip",
    "label", "there",
)  # fmt: skip


@cache
def _is_medicine(word: str) -> bool:
    """A medicine the lexicon knows (or a typo of one): "metformin", "glucophage", "metfromin". Short
    names ("pan", "ors") are left out: "I took my pan off the stove" is no dose."""
    return len(word) >= 4 and word not in _PILL_WORDS and known_medicine(word) is not None


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower())


def _names_a_dose(words: list[str]) -> bool:
    return any(w in _PILL_WORDS or _is_medicine(w) for w in words)


# "took the 8pm one", "finished my morning dose": a dose named by its time ("finished my antibiotics"
# alone ends a course, not a dose)
_TIMED_DOSE = re.compile(
    rf"\b(?:took|taken|had|done|finished)\s+(?:my|the)\s+(?:\d{{1,2}}(?::\d\d)?\s*(?:am|pm)?|{_PART})(?:'?s)?\s+"
    r"(?:one|ones|dose|doses|lot)\b"
    r"|\bfinished\s+(?:my|the)\s+(?:\w+\s+)?doses?\b",
    re.I,
)


def _took_a_dose(text: str) -> bool:
    """ "I took my morning pill", "just took my metformin", "evening meds done", "mark my 8am dose as taken":
    a taking verb with a pill word or a medicine's name within a few words of it, not denied."""
    timed = _TIMED_DOSE.search(text)
    if timed and not _NEGATED.search(text[: timed.start()][-40:]):
        return True
    for clause in re.split(r"[.!?;]|\bbut\b|\bthen\b", text):
        for verb in _TOOK.finditer(clause):
            before, after = clause[: verb.start()], clause[verb.end() :]
            if _NEGATED.search(before[-40:]):
                continue
            after_words, before_words = _words(after)[:5], _words(before)[-4:]
            # "Had" and "used" only with "my …" or a name ("I had my evening meds"; not "I had a pill
            # of something"), and a bare "done" or "taken" after the object ("metformin taken").
            verb_word = verb.group(0).lower()
            if verb_word in ("done", "taken") and _names_a_dose(before_words) and after_words[:1] != ["by"]:
                return True
            # "Done my evening tablets": "done" first, then the dose.
            if verb_word == "done" and not _words(before) and after_words[:1] in (["my"], ["the"], ["with"]):
                if _names_a_dose(after_words):
                    return True
            if verb_word == "done":
                continue
            # "Took them just now": the pills of the chat, said with a pronoun and a when.
            if verb_word == "took" and after_words[:1] in (["them"], ["it"], ["those"], ["these"]):
                if _JUST_NOW.search(after):
                    return True
            if _names_a_dose(after_words) and (
                not (verb_word in ("had", "used") or verb_word.startswith(("gave", "given")))
                or after_words[:1] in (["my"], ["the"])
            ):
                return True
    return False


# "is my insulin due soon": only when the words name a dose ("is the bus due" does not)
_IS_DUE = re.compile(r"\b(?:is|are)\s+(?:my|the|any)\s+(?:\w+\s+)?[a-z]+\s+due\b", re.I)


def _asks_about_today(text: str) -> bool:
    """One of the questions about today's doses, whose words name a dose or ask what is due."""
    for pattern in _TODAY_ASKS:
        match = pattern.search(text)
        if match and (_names_a_dose(_words(match.group(0))) or _ASKS_WHAT_IS_DUE.search(match.group(0))):
            return True
    match = _IS_DUE.search(text)
    return bool(match and _names_a_dose(_words(match.group(0))))


# "is it time for my pills", "is it time to take my metformin" (words that name a dose): the answer
# is the day's list.
_TIME_FOR = re.compile(
    r"^\W*is\s+it\s+time\s+(?:for|to\s+take)\s+(?:my|the)\s+\w+",
    re.I,
)
# "my meds for today?", "today's tablets please": the day's list asked for without a verb or a
# question word (a statement about them, "my pills for today are making me dizzy", is not one).
_BARE_TODAY = re.compile(
    # "morning meds?", "tonight's tablets"
    rf"^\W*(?:my\s+|the\s+)?(?:{_PART}|today|tonight)(?:'?s)?\s+{_PILL}\W*(?:please|pls|thanks)?\W*$|"
    rf"^\W*(?:(?:(?:my|all my)\s+(?:\w+\s+){{0,2}}?)?{_PILL}\s+(?:for\s+)?"
    r"(?:today|tonight|this (?:morning|afternoon|evening)|(?:for )?the rest of (?:the day|today|tonight)|later today)"
    rf"|(?:today'?s?|tonight'?s?)\s+(?:\w+\s+){{0,2}}?{_PILL})\W*(?:please|pls|thanks)?\W*$"
    # "whats due", "anything due now?": said alone in this app, the doses
    r"|^\W*(?:what'?s|whats|what is|anything|is anything)\s+due(?:\s+(?:now|soon|next|today|tonight))?\W*$"
    # "my pill schedule for today please", "medication plan for tonight"
    rf"|^\W*(?:my\s+|the\s+)?(?:{_PILL}|pill|medication|medicine|dose)\s+(?:schedule|list|times|timetable|plan|routine|"
    r"chart)(?:\s+(?:for\s+)?(?:today|tonight|this (?:morning|afternoon|evening)))?\W*(?:please|pls|thanks)?\W*$",
    re.I,
)


# The questions of _TODAY_ASKS that need no medicine word: "what do I take today", "what are my reminders".
_ASKS_WHAT_IS_DUE = re.compile(
    # what is due ("anything due today?"), not when something named is ("when is my baby due")
    r"^\W*(?:what\s+(?:else\s+)?(?:do|should|must|have|am)\s+i\b|.*\b(?:what|what's|whats|anything|something|which)\b.*\bdue\b|.*\breminders\b|.*\bleft\s+to\s+take\b|"
    r".*\b(?:anything|something)\s+(?:(?:i|we|he|she)\s+(?:need|have|must|should)\s+)?to\s+take\b|"
    r".*\btake\s+(?:it|them|those|these)\s+(?:today|tonight)\b|"
    r"what\s+(?:should|must|does|is|do)\s+(?:my\s+)?[a-z]+\s+(?:be\s+taking|take|supposed to take|meant to take|"
    r"need to take|have to take)\b|"
    r".*\bremind\s+me\s+what\b|"
    r".*\btake\s+(?:anything|something)\b)",
    re.I,
)


def read(message: str) -> MedicineRequest | None:
    """The desk request in ``message``, or None: everything else goes on to the model."""
    text = prepared(message, _VOCABULARY)
    if not text:
        return None
    kind = None
    # "I have a photo of my prescription, can you set up reminders?": the photo page sets them up.
    handed = _PRESCRIPTION_HANDED.search(text) and not any(_is_medicine(w) for w in _words(text))
    if (_PHOTO.search(text) or handed) and not _ELSEWHERE.search(text):
        kind = PHOTO
    elif _SET_REMINDER.search(text) or _NOT_MINE.search(text):
        # A new reminder for one medicine the lexicon knows, with a schedule the user said: proposed by
        # set_medication_reminder itself (it reads every field from the user's words and asks first).
        # Anything else about reminders (change, stop, snooze, several medicines, no schedule) is the model's.
        medicine = _new_reminder(text, str(message))
        return MedicineRequest(REMINDER, medicine) if medicine else None
    elif _DID_I.search(text) and (_names_a_dose(_words(text)) or _EVERYTHING.search(text)):
        kind = DOSES_TODAY
    elif (
        _BARE_TAKEN.search(text)
        or _took_a_dose(text)
        or (
            ((_MARK.search(text) and re.search(r"\btaken\b", text, re.I)) or _TICK_OFF.search(text))
            and _names_a_dose(_words(text))
        )
    ):
        kind = DOSE_TAKEN
    elif _QUESTION.search(text) and _asks_about_today(text) and not _ABOUT_A_MEDICINE.search(text):
        kind = DOSES_TODAY
    elif (
        _HOW_MANY_TODAY.search(text)
        or _BARE_TODAY.search(text)
        or (_TIME_FOR.search(text) and _names_a_dose(_words(text)))
    ):
        kind = DOSES_TODAY
    if kind is None:
        return None
    from agents.tools.said import symptoms_in  # the symptom lexicon (loads spaCy once)

    # "I took my metformin and my chest hurts": a complaint is the model's to handle.
    if symptoms_in(text):
        return None
    return MedicineRequest(kind, text if kind == DOSE_TAKEN else "")


# --- reminder: "remind me to take metformin twice a day" ---------------------------------------

_NEW_REMINDER = re.compile(
    r"\bremind\s+me\s+(?:to\s+take|about|of|for|when\s+to\s+take)\b"
    r"|\b(?:set|add|create|make|put|schedule)\s+(?:up\s+)?(?:me\s+)?(?:an?\s+|some\s+|my\s+)?(?:\w+\s+){0,2}?"
    r"(?:reminders?|alarms?|alerts?)\b"
    r"|\breminders?\s+(?:for|to\s+take|at)\b|\b(?:take|taking)\b[^.?!]*\bremind\s+me\b",
    re.I,
)
# Changing, stopping or moving one, a dose missed or doubled, someone else's, a question: the model's.
_NOT_A_NEW_REMINDER = re.compile(
    r"\b(?:change\w*|move\w*|cancel\w*|delete\w*|remove\w*|turn\w* off|switch\w* off|stop\w*|snooze\w*|"
    r"instead|missed|forgot|forgotten|skip\w*|extra|double|again|too many|too much|wrong|by mistake|"
    r"(?:his|her|their|[a-z]+'s)\s+(?:\w+\s+)?(?:medicines?|medications?|meds|pills?|tablets?)|"
    r"remind\s+(?:him|her|them|us|my)|should|can i|is it|why|how)\b",
    re.I,
)


def _new_reminder(text: str, message: str) -> str:
    """The one medicine a request for a new reminder names, as the user wrote it in ``message`` (``text``
    is the message as the desk reads it, its typos of the desk's words read), when the user also said
    when to take it; "" otherwise."""
    from agents.tools import said

    if not _NEW_REMINDER.search(text) or _NOT_A_NEW_REMINDER.search(text):
        return ""
    try:
        if said.schedule(text) is None:
            return ""
    except said.ScheduleConflict:
        return ""
    tokens = re.findall(r"[a-z0-9][\w/+.-]*", message.lower().replace("\u2019", "'"))
    tokens = [token.rstrip(".") for token in tokens]
    named: dict[str, str] = {}
    index = 0
    while index < len(tokens):
        # The longest run of up to three words the lexicon knows ("vitamin d3", "metformin"), typos included.
        if tokens[index] in NOT_NAME_WORDS:  # "my", "the", "tab": not the start of a name
            index += 1
            continue
        for width in (3, 2, 1):
            phrase = " ".join(tokens[index : index + width])
            if len(phrase) < 4 or phrase in _VOCABULARY or phrase in _NOT_A_MEDICINE:
                continue
            if re.search(r"\b(?:and|with|or)\b", phrase):  # "metformin and lisinopril" is two medicines
                continue
            following = tokens[index + width] if index + width < len(tokens) else ""
            if phrase.split()[-1].replace(".", "").isdigit() and following in _STRENGTH_UNITS:
                continue  # "metformin 500" of "metformin 500 mg" is a strength; "Dolo 650" is a brand's name
            found = known_medicine(phrase)
            # A typo is read in one word only: "vitamin at" must not become "vitamin a".
            if found is not None and (width == 1 or not found.corrected) and not phrase[0].isdigit():
                # As the user wrote it ("vitamin D3"), found again in their message.
                written = re.search(r"\s+".join(map(re.escape, phrase.split())), message, re.I)
                named.setdefault(found.generic, written.group(0) if written else phrase)
                index += width
                break
        else:
            index += 1
    return next(iter(named.values())) if len(named) == 1 else ""


_STRENGTH_UNITS = ("mg", "mcg", "g", "ml", "iu")


def _strength_and_dose(text: str) -> tuple[str, str | None]:
    """The strength ("500 mg") and the dose ("2 tablet") the user said, as the reminder tool checks
    them against the user's words; ("", None) for what was not said."""
    from agents.tools import said

    found = said.quantities(text)
    strength = next((f"{n} {u}" for n, u in found if u in _STRENGTH_UNITS), "")
    dose = next((f"{n} {u}{'' if n == '1' else 's'}" for n, u in found if u not in _STRENGTH_UNITS), None)
    return strength, dose


# Words of a reminder request that a typo match could take for a medicine's name.
_NOT_A_MEDICINE = frozenset(
    {"remind", "reminder", "reminders", "alarm", "alarms", "every", "daily", "night", "after", "before"}
)


# --- which dose ---------------------------------------------------------------------------

_CLOCK = re.compile(
    r"\b(?P<h>\d{1,2})(?:[:.](?P<m>\d{2}))?\s*(?P<x>a\.?m\.?|p\.?m\.?)(?=\W|$)|\b(?P<h2>\d{1,2}):(?P<m2>\d{2})\b", re.I
)
# The clock time that names a dose ("my 8am pill", "the 20:00 dose"), not the time it was taken
# ("I took it at 9"): it stands right before the medicine words.
_NAMING_CLOCK = re.compile(rf"({_CLOCK.pattern})\s+(?:\w+\s+)?(?:{_PILL}|[a-z]{{4,}})\b", re.I)
_NUMBER = re.compile(r"^\W*(?:number\s+|no\.?\s*|#)?(\d)\W*$|\b(first|second|third|fourth|fifth)\b", re.I)
_ORDINALS = ("first", "second", "third", "fourth", "fifth")


def _clock_named(words: str) -> dt.time | None:
    match = _NAMING_CLOCK.search(words)
    if match is None:
        return None
    clock = _CLOCK.search(match.group(1))
    hour = int(clock.group("h") or clock.group("h2"))
    minute = int(clock.group("m") or clock.group("m2") or 0)
    meridiem = (clock.group("x") or "").lower().replace(".", "")
    if meridiem == "pm" and hour < 12:
        hour += 12
    elif meridiem == "am" and hour == 12:
        hour = 0
    return dt.time(hour, minute) if hour < 24 and minute < 60 else None


def _in_part(part: str, at: dt.datetime) -> bool:
    start, end = PARTS[part]
    return start <= at.hour < end if start < end else (at.hour >= start or at.hour < end)


def _generic(name: str) -> str | None:
    found = known_medicine(split_strength(name)[0])
    return found.generic if found is not None else None


def _names_medication(words: list[str], medication) -> bool:
    """Whether the user's words name ``medication``: its name written (or one typo away, two for long
    names), or another name of the same medicine in the lexicon ("glucophage" for Metformin)."""
    name = medication.name.lower()
    if re.search(rf"\b{re.escape(name)}\b", " ".join(words)):
        return True
    parts = [p for p in re.findall(r"[a-z]+", name) if len(p) >= 4 and p not in _PILL_WORDS]
    generic = _generic(medication.name)
    for word in words:
        if len(word) < 4 or word in _PILL_WORDS:
            continue
        if any(OSA.distance(word, p) <= (1 if len(p) < 8 else 2) and word[0] == p[0] for p in parts):
            return True
        if generic is not None and _is_medicine(word) and _generic(word) == generic:
            return True
    return False


def choose(doses: list[TodaysDose], words: str) -> list[TodaysDose]:
    """The doses ``words`` may mean: by medicine named, by clock time or part of the day said; all of
    them when the words name none of these, none when they name a medicine the patient has no dose of."""
    tokens = _words(words)
    found = doses
    medicines = {d.medication.pk: d.medication for d in doses}
    named = [pk for pk, m in medicines.items() if _names_medication(tokens, m)]
    if named:
        found = [d for d in found if d.medication.pk in named]
    elif any(_is_medicine(w) for w in tokens):
        return []  # "I took my aspirin" with no aspirin today: not one of the others
    clock = _clock_named(words)
    if clock is not None:
        found = [d for d in found if abs(d.at.hour * 60 + d.at.minute - clock.hour * 60 - clock.minute) <= 60]
    parts = [p for p in PARTS if re.search(rf"\b{p}\b", words, re.I)]
    if parts:
        found = [d for d in found if any(_in_part(p, d.at) for p in parts)]
    return found


# --- in the runtime ---------------------------------------------------------------------------


_ROUTED = {"medicines_today": DOSES_TODAY, "medicines_taken": DOSE_TAKEN, "medicines_photo": PHOTO}


def request_for(message: str, use_case: str | None = None) -> MedicineRequest | None:
    """What the rules read in ``message``; else, when the first step's classifier routed it here
    (``use_case``, agents.first_step), the request of that kind with the message's own words."""
    found = read(message)
    if found is not None or use_case not in _ROUTED:
        return found
    kind = _ROUTED[use_case]
    text = prepared(message, _VOCABULARY)
    return MedicineRequest(kind, text if kind == DOSE_TAKEN else "")


def handle(runner: Runtime, use_case: str | None = None) -> bool:
    """Do the desk's part of the chat's unread message; True when the run needs nothing more now
    (answered, or waiting for the user), False when the model goes on (not the desk's).
    ``use_case``: the first step's classifier routed it here."""
    from agents import first_step  # the classifier, asked again on resume only when no rule reads it

    states = runner.states
    if not states:
        return False
    last = states[-1]
    if last["from"] == "user":
        request = request_for(str(last["value"]), use_case)
        if request is None:
            return False
        return _start_request(runner, request)
    asked = _desk_call(states)
    if asked is None or last["from"] != "observation":
        return False
    parts = request_parts(runner.conversation)
    request = (read(parts[0]) or request_for(parts[0], first_step.route(parts[0]))) if parts else None
    if request is None:
        return False
    if asked in QUESTION_TOOLS:
        call = states[-2]["value"]
        return _which_answered(runner, str(call.get("parameters", {}).get("questions", "")), _answer(last))
    # The question was answered: the tool's result says what the record now holds.
    return _finish(runner, "the user answered; the record says what happened.")


def _desk_call(states: list[dict[str, Any]]) -> str | None:
    return desk_steps.desk_tool(states, DESK)


def _answer(observation: dict[str, Any]) -> str:
    return desk_steps.users_answer(observation)


def _tz(runner: Runtime):
    return runner.context(len(runner.states)).tz


def _today(runner: Runtime) -> list[TodaysDose]:
    """Today's doses in the patient's time zone, as the runtime's clock has it."""
    return todays_doses(runner.conversation.user, runner.clock(), _tz(runner))


def _listing(runner: Runtime, doses: list[TodaysDose]) -> str:
    return listing(runner.conversation.user, runner.clock(), _tz(runner), doses)


def _start_request(runner: Runtime, request: MedicineRequest) -> bool:
    log.info("conversation %s: medicines desk: %s", runner.conversation.pk, request.kind)
    if request.kind == DOSES_TODAY:
        _plan(runner, "the user asks about today's doses.", "List the user's doses for today.")
        runner.execute_call({"tool": "get_todays_doses", "parameters": {"user_id": runner.user_ref}})
        return _finish(runner, "the user was told.")
    if request.kind == PHOTO:
        _tell(runner, "the user asks where to upload a prescription photo.", photo_help())
        return _finish(runner, "the user was told.")
    if request.kind == REMINDER:
        return _propose_reminder(runner, request.target)
    doses = _today(runner)
    meant = choose(doses, request.target)
    markable = [d for d in meant if d.markable]
    if len(markable) == 1:
        return _propose(runner, markable[0])
    if len(markable) > 1:
        _plan(runner, "more than one of today's doses could be the one taken.", "Ask the user which one.")
        runner.execute_call(
            {
                "tool": "get_input_from_user",
                "parameters": {
                    "user_id": runner.user_ref,
                    "questions": f"Which dose shall I mark as taken? {_numbered(markable)} Reply with its number.",
                },
            }
        )
        return True
    _tell(runner, "no dose of today that the user names can be marked taken.", _nothing_to_mark(runner, meant, doses))
    return _finish(runner, "the user was told.")


def _numbered(doses: list[TodaysDose]) -> str:
    return " ".join(f"{i}) {d.line}." for i, d in enumerate(doses, start=1))


def _nothing_to_mark(runner: Runtime, meant: list[TodaysDose], doses: list[TodaysDose]) -> str:
    context = {
        "taken": [d.describe() for d in meant if d.event is not None],
        "later": [d.describe() for d in meant if d.status == UPCOMING],
        "early_minutes": ahead.early_minutes(),
        "unrecorded": [d.describe() for d in meant if d.status == NOT_RECORDED],
        "listing": _listing(runner, doses),
    }
    return " ".join(render_to_string("agents/medicines/nothing_to_mark.txt", context).split())


def _which_answered(runner: Runtime, question: str, answer: str) -> bool:
    """The dose the answer picks among those the question listed (each found again by its line, so a
    dose that changed meanwhile is not mistaken for another)."""
    doses = _today(runner)
    listed = [(int(n), line) for n, line in re.findall(r"(\d+)\) (.*?)\.(?= \d+\) | Reply with)", question)]
    offered = [d for d in doses if d.markable and any(line == d.line for _n, line in listed)]
    number = _NUMBER.search(answer)
    if number is not None:
        position = int(number.group(1)) if number.group(1) else _ORDINALS.index(number.group(2).lower()) + 1
        lines = [line for n, line in listed if n == position]
        chosen = [d for d in offered if lines and d.line == lines[0]]
    else:
        chosen = choose(offered, answer) if offered else []
    if len(chosen) != 1:
        _plan(runner, "the answer does not say which dose.", "Tell the user nothing was marked.")
        _notify(runner, f"Nothing was marked: I could not tell which dose. {_listing(runner, doses)}")
        return _finish(runner, "the user was told.")
    return _propose(runner, chosen[0])


def _propose(runner: Runtime, dose: TodaysDose) -> bool:
    _plan(
        runner,
        f"the user says they took their {dose.time} {dose.medication} dose.",
        "Ask the user to confirm, then mark it taken.",
    )
    # A dose with no record yet (later today, within the early window) is named by its reminder.
    which = {"dose_id": str(dose.event.pk)} if dose.event is not None else {"reminder_id": str(dose.reminder.pk)}
    observation = runner.execute_call({"tool": "mark_dose_taken", "parameters": {"user_id": runner.user_ref, **which}})
    if runner.conversation.status == Conversation.Status.WAITING_INPUT:
        return True
    # Refused (the dose changed between reading and asking): say so from the tool's words, and end.
    error = observation.get("error", "") if isinstance(observation, dict) else ""
    _tell(runner, "the dose could not be marked.", f"Nothing was marked. {error}".strip())
    return _finish(runner, "the user was told.")


def _propose_reminder(runner: Runtime, medicine: str) -> bool:
    # The tool checks every field against the user's words again, and reads the times, days and food
    # from them: the desk only names the medicine, its strength and the dose as the user said them.
    strength, dose = _strength_and_dose(str(runner.states[-1]["value"]))  # the user's message
    _plan(runner, f"the user asks for a reminder for {medicine}.", "Propose the reminder; set it on a yes.")
    name = medicine[:1].upper() + medicine[1:]  # "metformin" typed, "Metformin" on the schedule
    parameters = {"user_id": runner.user_ref, "medicine_name": f"{name} {strength}".strip(), "times": []}
    if dose:
        parameters["dose"] = dose
    observation = runner.execute_call({"tool": "set_medication_reminder", "parameters": parameters})
    if runner.conversation.status == Conversation.Status.WAITING_INPUT:
        return True
    value = observation if isinstance(observation, dict) else {}
    result = value.get("result") if isinstance(value.get("result"), dict) else {}
    message = result.get("message") or f"No reminder was set. {value.get('error', '')}".strip()
    _tell(runner, "the reminder was already set, or could not be.", message)
    return _finish(runner, "the user was told.")


def _plan(runner: Runtime, why: str, action: str) -> None:
    desk_steps.plan(runner, DESK, why, action)


def _tell(runner: Runtime, why: str, message: str) -> None:
    desk_steps.tell(runner, DESK, why, message)


def _notify(runner: Runtime, message: str) -> None:
    desk_steps.answer(runner, message)


def _finish(runner: Runtime, why: str) -> bool:
    return desk_steps.end(runner, DESK, why)
