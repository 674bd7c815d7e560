"""Whether a chat message asks for emergency help now (issue 22, "help now").

"Call an ambulance", "I'm having chest pain and can't breathe", "my husband collapsed and isn't
breathing": the runtime asks :func:`emergency` before the model sees a chat message (the first one
and every answer), and a message it finds starts the hard SOS exactly as the SOS button does
(``health.sos.press``: the same countdown, cancel and guard). A missed request is a failure of the
product, so this is a deterministic guard, not a model decision, and it errs toward the SOS for a
present-tense message that could be an emergency: the countdown lets the user cancel.

What counts (each group below has its patterns and the reason for them):

- an explicit request: call / send / get an ambulance, call 911 / 999 / 112 / 108, "this is an
  emergency", "SOS", "help, I'm dying", "help!" with an urgency word or an exclamation mark;
- an acute red flag said in the present, of the user or of someone with them: chest pain with
  breathlessness, sweating, arm / jaw pain or fainting (or crushing / severe chest pain), a heart
  attack, can't breathe / not breathing / choking, a stroke or its signs (face drooping, slurred
  speech, weakness on one side, sudden numbness of the face or a limb), the worst headache of
  one's life, unconscious / collapsed / a person who does not respond, bleeding that won't stop,
  a seizure now, an overdose or a poisoning, anaphylaxis (throat closing, swollen tongue), an
  injury that needs an ambulance (stabbed, hit by a car, fell from a roof, badly burned).
  Blood sugar, high or low, or a diabetic person, with confusion or drowsiness. Pregnant with the
  sight going wrong (pre-eclampsia). Suicide attempted now, a person found hanging, a jump
  threatened from a height.
  Two halves that make an emergency together are read across a comma ("he hit his head, he's
  bleeding and confused"; "I ate a peanut, my throat feels tight").

A message in another language (agents.language) is an emergency only when it cries for help or
for an ambulance ("socorro", "au secours", "bachao", "ambulancia"): it never reaches the
English-only reply.

The user who types "I passed out" or "I fainted" is awake again: that is a complaint for a
booking, while "my wife passed out" and "I collapsed and can't get up" are an SOS.

What does not (read per clause: up to a comma, a full stop, "but", "and now"; "now", "again",
"still", "right now", "I'm having" in the same clause always make it present again):

- negated: "no chest pain", "I don't need an ambulance", "it's not an emergency";
- past: "I had chest pain last month", "I had a stroke in 2019", "he fainted yesterday";
- a question about emergencies in general: "what are the signs of a stroke?", "what should I do
  if someone has a stroke?" (decided: information, not a request; the model answers it and the
  SOS button is always there). The same question about a person now ("what do I do, my husband
  is having a stroke", "how do I know if I'm having a heart attack?") is an SOS;
- lasting or occasional: "I get chest pain when I climb stairs", "short of breath for weeks",
  "stroke rehab";
- a symptom alone that is no red flag by itself: chest pain alone (without breathlessness,
  sweating, arm pain or a word of severity), "chest pain when I breathe", shortness of breath on
  exertion, "food poisoning", "heavy period bleeding", "I can't breathe through my nose",
  "emergency contact", a bare "help" (the chatbot's menu, not an SOS).

Negation is handled here, not with memory's NegEx scopes (agents.memory.text): there "can't",
"not" and "won't" negate what follows, but here they are the emergency ("can't breathe", "isn't
breathing", "bleeding won't stop"). A negation counts only in the few words before a match.

Typos: a word that is no English word (the sentence encoder's word list, as in
agents.tools.said) is read as the word of the patterns it is one or two edits from ("pian" ->
"pain", "ambulence", "unconcious", "siezure", "sygar"), a word with a letter typed twice ("bluue")
or a short one with two letters swapped ("oen") as the pattern word it is; the words are read from
the patterns themselves, so a pattern added is typo-tolerant at once. Contractions typed without
the apostrophe ("cant", "isnt", "im") are read with it.
"""

from __future__ import annotations

import logging
import math
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from django.template.loader import render_to_string
from django.utils import timezone

from agents import language, slips
from agents.desk_reading import without_opening
from agents.medicine_words import PILLS
from health import sos
from health.models import Alert, AlertEvent
from health.sos.delivery import emergency_number

log = logging.getLogger(__name__)

# Where the user cancels the countdown (frontend/urls.py names it "sos"; agents may not import the
# UI, so the path is written here).
SOS_PAGE = "/sos/"

# --- reading the message -----------------------------------------------------------------------

# Words the patterns below are written with: a typo of one of them is read as it.
_VOCABULARY = """
    ambulance emergency paramedics chest pain pains hurts hurting tightness pressure crushing heart
    attack cardiac arrest breathe breath breathing breathless suffocating choking gasping stroke
    drooping droopy slurred slurring speech paralysed paralyzed numbness unconscious unresponsive
    collapsed collapsing fainted conscious bleeding blood stopping seizure seizures seizing
    convulsing convulsion convulsions overdose overdosed poisoned poisoning swallowed tablets pills
    anaphylaxis anaphylactic allergic reaction throat swelling swollen tongue epipen sweating sweaty
    clammy dying unbearable severe terrible immediately urgently urgent breathing stairs wake waking
    accident injured confused swelling wheezing closing
""".split()

# Real words typed for an emergency word: the word list would keep them as they are.
_MISSPELT = {
    "hart": "heart",
    "stoke": "stroke",
    "stroak": "stroke",
    "dieing": "dying",
    "dyeing": "dying",
    "breth": "breath",
    "brethe": "breathe",
    "breath": "breath",
    "amblance": "ambulance",
    "alot": "a lot",
    "ambulanse": "ambulance",
    "ambulence": "ambulance",
    # what an ambulance is called in Australia and New Zealand
    "ambo": "ambulance",
    "ambos": "ambulances",
    # two letters swapped in short words the patterns need: "cna't breathe", "passed otu"
    "cna": "can",
    "cnat": "cant",
    "otu": "out",
    "uot": "out",
    # a letter doubled or swapped in a short word: "passed outt", "gte an ambulance"
    "outt": "out",
    "gte": "get",
    "wkae": "wake",
}

# Real words the sentence encoder's word list lacks that are one or two edits from a pattern word:
# "overdoing it at work" is not "overdosing".
_REAL_WORDS = frozenset({"overdoing", "overdid", "overdone"})

# Contractions typed without the apostrophe, or with a curly one, and their long forms.
_CONTRACTIONS = (
    (re.compile(r"\b(do|does|did|is|are|was|were|has|have|had|could|would|wo|ca)n[\u2019']?t\b"), r"\1n't"),
    (re.compile(r"\bcan ?not\b"), "can't"),
    # "can't" with a letter lost or swapped: "i cn't breathe", "I ca't breathe"
    (re.compile(r"\b(?:cn|ca|cna|cnn|acn)'t\b"), "can't"),
    # "took" with its last letter lost, before what is taken: "my sister too a whole bottle of pills"
    (
        re.compile(
            r"\btoo (?=(?:an? (?:whole|entire|full) |an? (?:bottle|pack|packet|box|strip|handful) of\b|"
            r"all (?:my|his|her|the|their|of)\b))"
        ),
        "took ",
    ),
    (re.compile(r"\bcant\b"), "can't"),
    (re.compile(r"\bi ?m\b|\bi am\b"), "i'm"),
    (re.compile(r"\b(he|she|it|that)s\b"), r"\1's"),
    (re.compile(r"\b(he|she|it|that) is\b"), r"\1's"),
    (re.compile(r"\bi ?ve\b"), "i've"),
    (re.compile(r"\b(they|we|you) ?re\b"), r"\1're"),
)


@cache
def _english() -> frozenset[str]:
    from agents.tools.said import _english as word_list  # the encoder's word list (loaded once)

    return word_list()


# How often an English text uses a word, under which a word of the encoder's list is more likely a
# typo than meant: its list holds surnames and fragments ("haas", "gey", "ger") that are one slip from
# a word of the patterns ("has", "get"). pyspellchecker's frequencies (a count per word over a large
# English corpus) tell the two apart; "sis" (1.3e-6), "pam" (5e-7) stay as typed only if no slip
# of them is a pattern word.
_RARE = 1e-6


@cache
def _frequencies() -> Any:
    from spellchecker import SpellChecker  # its English list, loaded once (0.3 s)

    return SpellChecker(language="en", distance=1)


def _known(word: str) -> bool:
    """Whether ``word`` is an English word a patient means: in the encoder's list and not rare."""
    return word in _english() and _frequencies().word_usage_frequency(word) >= _RARE


@cache
def _pattern_words() -> frozenset[str]:
    """Every word the patterns below are written with (three letters or more), read from their source:
    a typo of any of them ("sygar", "wakw", "respobd", "snaje") is read as the word, not only of the
    words listed in _VOCABULARY."""
    sources = [_CHEST, _CHEST_SEVERE.pattern, _ORGAN_SIGN.pattern, _PULSE_SIGN.pattern]
    groups = [REQUEST, _CHEST_WITH, *SYMPTOMS.values(), *ACROSS_CLAUSES.values(), *ONGOING.values()]
    sources += [pattern.pattern for group in groups for pattern in group]
    words: set[str] = set(_VOCABULARY)
    for source in sources:
        # a run of letters that a quantifier continues ("bacha+o+") or an apostrophe ("doesn't") is no word
        words.update(re.findall(r"(?<![a-z)\]'])[a-z]{3,}(?![a-z+*?{\['])", re.sub(r"\\[a-zA-Z]", " ", source)))
    return frozenset(words)


def _short_or_doubled(word: str) -> str | None:
    """A three-letter word typed with two letters swapped or one left out ("oen", "rsh"), a four-letter
    word with a neighbouring key hit ("paim"), or a word with a letter typed twice ("bluue", "killl"):
    the pattern word it is, if exactly one (agents/slips.py)."""
    words = _pattern_words()
    if len(word) == 3:
        # two letters swapped before one left out: "nto" is "not", though "into" and "onto" are a
        # letter away too
        return slips.only(slips.unswapped(word) & words) or slips.only(slips.restored(word) & words)
    if len(word) == 4:  # a longer word's slips are within the typo reading's edit distance
        return slips.only((slips.undoubled(word) | slips.unslipped(word)) & words)
    return slips.only(slips.undoubled(word) & words)


@lru_cache(maxsize=4096)
def _correct(word: str) -> str:
    """``word``, or the emergency word it is a typo of (the rules of agents.tools.said: two edits
    in a long word, one in a mid-length word, a four-letter word only with two letters swapped; a
    short word with two letters swapped; a letter typed twice)."""
    if word in _MISSPELT:
        return _MISSPELT[word]
    if len(word) < 3 or not word.isalpha() or word in _pattern_words() or word in _REAL_WORDS or _known(word):
        return word
    meant = _short_or_doubled(word)
    if meant is not None or len(word) < 4:
        return meant or word
    from rapidfuzz import process
    from rapidfuzz.distance import OSA

    from agents.tools.said import _allowed

    vocabulary = [w for w in _pattern_words() if len(w) >= 4]
    found = process.extract(word, vocabulary, scorer=OSA.distance, score_cutoff=2, limit=None)
    # Of words as near, a letter left out is the likeliest slip ("barly" is "barely" before "badly",
    # "burnd" "burned" before "burn").
    ranked = sorted(
        (distance, word not in {meant[:i] + meant[i + 1 :] for i in range(len(meant))}, meant)
        for meant, distance, _ in found
        if distance <= _allowed(word, meant)
    )
    if not ranked:
        return word
    # A typo can be near two words. "scurring" is one letter from "slurring" and a typo of
    # "scarring"; "blurring" is one letter from "slurring" and a word. When the symptom lexicon's
    # reader takes the word for a word of its own that no emergency pattern uses, the word stays
    # as typed: an acne complaint must not call an ambulance.
    from agents.tools.said import correct as lexicon_reading

    elsewhere = lexicon_reading(word)
    if elsewhere != word and elsewhere not in _pattern_words():
        return word
    return ranked[0][-1]


def normalised(text: str) -> str:
    """Lower case, straight apostrophes, contractions spelled out, typos of emergency words read."""
    said = _contracted(str(text).lower().replace("\u2019", "'").replace("\u2018", "'"))
    # Contractions first: "ive" is "i've", not a typo of "five".
    # A contraction's stem is no typo ("doesn't" is not "doesn", a rare word, and "t"); a typo inside
    # one still is ("iisn't").
    said = _contracted(
        re.sub(r"[a-z]+(?='t\b)", lambda m: m.group(0) if m.group(0) in _NEGATIONS else _correct(m.group(0)), said)
    )
    said = _contracted(re.sub(r"\b[a-z]+\b(?!'t\b)", lambda match: _correct(match.group(0)), said))
    return re.sub(r"\s+", " ", said).strip()


_NEGATIONS = frozenset(
    "don doesn didn isn aren wasn weren hasn haven hadn couldn wouldn shouldn won can mustn needn ain".split()
)


def _contracted(said: str) -> str:
    for pattern, replacement in _CONTRACTIONS:
        said = pattern.sub(replacement, said)
    return said


# A clause: what a negation, a time or a question reaches. A sentence ends it, and so do a comma,
# "but", "and now", "and then": "I had chest pain last week but now I can't breathe" is two clauses,
# and so is "my father, who had a stroke last year, collapsed" (the past is the stroke's).
_CLAUSE_END = re.compile(r"[.!?;,\n]+|\b(?:but|however|although|though)\b|\band (?:now|then)\b")
# A sentence: what the patterns read across clauses reach. A full stop ends one, not the one in
# "2.1" (agents.tools.said.sentences reads the same, but it loads the tool registry with it).
_SENTENCE_END = re.compile(r"(?:(?<!\d)\.|\.(?!\d)|[!?;\n])+")

# --- what is an emergency ------------------------------------------------------------------------

_S = r"[^.!?;]"  # any character within the sentence


def _r(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


# Explicit requests: the user asks for emergency help. Questions about them are still requests
# ("can you call an ambulance?"), only a negation stops them ("don't call an ambulance").
REQUEST = [
    # "call an ambulance", "send the ambulance", "we need an ambulance", "ring for an ambulance"
    _r(
        rf"\b(?:call|get|send|need|want|request|dispatch|ring|phone|bring|summon|order){_S}{{0,30}}\bambulance\b"
        r"(?!\s+(?:bills?|fees?|costs?|charges?|invoices?|insurance|cover|membership)\b)"
    ),
    _r(rf"\bambulance\b{_S}{{0,20}}\b(?:now|please|pls|plz|asap|quick|quickly|urgent|urgently|immediately|fast)\b"),
    _r(r"^\W*(?:an? |the )?ambulance\W*$"),
    # the number alone: "911 please", "999!!"
    _r(r"^\W*(?:911|999|112|108|000)\W*(?:please|pls|plz|now|asap|quick|help)?\W*$"),
    _r(r"\b(?:nearest|nearby|closest)\s+ambulance\b|\bambulance\s+(?:nearby|near me|near here|near us)\b"),
    # "call 911", "dial 999", "call emergency services", "get the paramedics"
    _r(
        r"\b(?:call|dial|ring|phone|contact|get|need|send)\s+(?:(?:me|us|him|her|them)\s+)?(?:an?\s+|the\s+|some\s+)?"
        r"(?:911|999|112|108|102|000|emergency services|emergency(?!\s*contact)|paramedics?)\b"
    ),
    # "this is an emergency", "medical emergency", "emergency!"; not the contact, the number or the
    # room, not "is this an emergency?" (a question of how bad something is: the model answers it)
    _r(
        r"(?<!is this an )(?<!is it an )(?<!was it an )(?<!non-)(?<!non )(?<!number for )(?<!number of )"
        r"(?<!number for the )(?<!number for an )\bemergency\b"
        # "the emergency is over" stands one down
        r"(?!\s*(?:(?:is|was|has)\s+(?:over|passed|finished|ended)|"
        r"contacts?|numbers?|room|department|dept|services? number|fund|kit|plan|appointment|"
        r"dentist|vet|care|ward|exit|brake|medication|medicine|supply|supplies|info|details|settings?|button|alerts?|page))"
    ),
    # "SOS", and after a greeting or a filler word: "hi SOS", "um sos", "ok so sos please"
    _r(
        r"^\W*(?:(?:hi|hello|hey|um+|uh+|ok(?:ay)?|so|oh|please|pls|help)\b[\s,.!:-]*)*"
        r"sos\b(?!\s*(?:button|page|settings?|feature|alerts? (?:history|list)))"
    ),
    _r(rf"\b(?:send|trigger|start|activate|raise|press|need)\b{_S}{{0,15}}\bsos\b"),
    # "help me I'm dying", "I think I'm dying", "he's going to die"
    _r(
        r"\b(?:i'm|he's|she's|they're|we're|you're|is|are|am|i think i'm)\s+(?:going to die|gonna die|dying)\b"
        r"(?!\s+(?:to|for|of (?:laughter|boredom|embarrassment)))"
    ),
    _r(rf"\bhelp\b{_S}{{0,20}}\b(?:dying|die)\b"),
    _r(
        r"\bsave (?:me|him|her|them|us)\b|\bsave (?:my|our|his|her) (?:\w+ )?(?:life|baby|child|kid|son|daughter|"
        r"mum|mom|mother|dad|father|husband|wife|partner|brother|sister|friend|grand\w+)\b"
    ),
    # "please send help", "someone help me" (the whole message), "quick help", "someone call for help"
    _r(r"\b(?:someone|somebody|please)\s+call\s+(?:for\s+)?help\b"),
    _r(r"\bsend (?:help|someone|somebody)\b(?! (?:with|for (?:my|the) (?:app|account|booking)))"),
    _r(r"^\W*(?:please\s+)?(?:someone|somebody|anyone|anybody)\s+help(?:\s+(?:me|us|him|her))?(?:\s+please)?\W*$"),
    _r(r"^\W*(?:quick|quickly|urgent|urgently|emergency)\W+(?:help|ambulance)\b"),
    # "help!", "help me now", "urgent help": a bare "help" asks what the assistant can do
    _r(r"^\W*(?:please\s+)?help(?:\s+(?:me|us|him|her))?(?:\s+(?:please|someone|anyone))?\s*!"),
    # "hey help me now pls", "help us quick": the whole message, asked for at once
    _r(
        r"^\W*(?:(?:hey|hi|hello|oh god|omg|oh no|please|pls|plz)\W+)*help\s+(?:me|us|him|her|them)\s+"
        r"(?:now|right now|quick|quickly|fast|asap|immediately)(?:\s+(?:please|pls|plz))?\W*$"
    ),
    # "help, my dad is bleeding, come immediately": someone asked to come at once
    _r(
        r"^\W*(?:please\s+)?(?:come|get here|send (?:someone|somebody|help))\s+(?:here\s+)?"
        r"(?:now|right now|quick|quickly|fast|immediately|asap)\b"
    ),
    # not help with a task: "something to help me sleep asap", "help me book a dermatologist asap"
    _r(
        r"\bhelp\b(?!\s+(?:(?:me|us|him|her|them)\s+)?(?:to\s+)?(?:sleep|book|find|with|for|understand|set|make|choose|"
        r"cancel|move|reschedule|remember|lose|quit|relax|organi[sz]e|schedule|sort|plan|write|fill|read)\b)"
        rf"{_S}{{0,20}}\b(?:urgent|urgently|asap|immediately|right now|now!)"
    ),
    # "get help now", "I need help fast" (the whole message, or followed by what is happening)
    _r(
        r"^\W*(?:please\s+)?(?:i\s+)?(?:get|send|need)\s+(?:me\s+|us\s+)?help\s+(?:now|fast|quick|quickly|asap|"
        r"immediately|right now)\b(?!\s+(?:with|for|on|about|to)\b)"
    ),
    _r(rf"\b(?:urgent|urgently|immediate|immediately){_S}{{0,15}}\bhelp\b"),
    _r(r"^\W*help\W+help\b"),
    # taken to emergency care at once: "take me to the emergency room", "I need to get to the ER right now"
    # (a hospital only with "now": "can you take me to the hospital tomorrow" is a lift to an appointment)
    _r(
        r"\b(?:take|get|drive|bring)\s+(?:me|him|her|us|them)\s+to\s+(?:the\s+|an?\s+)?(?:er|a&e|a and e|"
        r"emergency room|emergency department|casualty)\b"
        r"|\b(?:need|have|got)\s+to\s+(?:go|get|be taken)\s+to\s+(?:the\s+|an?\s+)?(?:er|a&e|a and e|emergency room|"
        r"emergency department|casualty|hospital)\s+(?:right now|now|immediately|asap|quickly|urgently)\b"
        r"|\b(?:take|get|drive)\s+(?:me|him|her|us|them)\s+to\s+(?:the\s+|a\s+)?hospital\s+"
        r"(?:right now|now|immediately|asap|quickly|urgently)\b"
    ),
    # "alert my emergency contacts", "I'm in danger": the people the SOS tells, asked for by the user
    _r(r"\b(?:notify|alert|text|message|tell|call|ring|contact|warn)\s+(?:all\s+)?my\s+emergency\s+contacts?\b"),
    _r(r"\b(?:i'm|i am|we're|we are)\s+in\s+(?:danger(?!\s+of\b)|trouble,? (?:help|please))\b"),
    # Hindi in Latin letters, in an otherwise English-looking message: "bachao!" (save me),
    # "ambulance bulao / chahiye / bhejo" (call / need / send an ambulance)
    _r(r"\bbacha+o+\b|\bambulance (?:bulao|bula do|bulaiye|chahiye|bhejo|bhej do)\b"),
]

_CHEST = (
    r"(?:chest|heart)\s+(?:pain|pains|hurts?|hurting|ache|aching|tightness|pressure|is tight"
    r"|feels? tight|is paining|paining|feels? heavy|is (?:hurting|killing me|crushing|on fire))"
    r"|pain\s+(?:in|across|on)\s+(?:(?:my|his|her|their|the)\s+)?chest"
    # "the pain is unbearable in my chest"
    r"|pain\s+is\s+(?:\w+\s+){1,2}?in\s+(?:my|his|her|their|the)\s+chest"
    # "feeling heavy chest", "a tight chest" (with breathlessness or sweat, below)
    r"|(?:heavy|tight|crushing|painful|aching)\s+chest\b"
    r"|crushing pain\b(?!\s+in\s+(?:my|his|her|their|the)\s+(?!chest)\w+)"
    r"|(?:tightness|pressure|heaviness|squeezing|crushing(?: feeling| pain)?)\s+(?:in|across|on)\s+"
    r"(?:my|his|her|their|the)\s+chest"
    r"|(?:my|his|her) chest (?:really |so |very |badly )?(?:hurts|is hurting|is tight|feels (?:tight|heavy|crushed))"
    r"|(?:my|his|her) chest (?:is|feels) (?:really|so|very|super|extremely) (?:tight|heavy|sore|painful)"
    r"|(?:my|his|her) chest (?:is being|feels like it'?s being|feels like it is being) (?:crushed|squeezed)"
    # pressure said as a picture: "feels like an elephant is sitting on it", "a weight on my chest"
    r"|chest\s+feels?\s+like\b|(?:sitting|weight|ton of bricks)\s+on\s+(?:my|his|her|the)\s+chest"
)
# What makes chest pain an emergency: breathlessness, sweating, pain that spreads to the arm,
# jaw or back, feeling faint or sick, or words of severity.
_CHEST_WITH = [
    _r(r"\b(?:short(?:ness)? of breath|breathless\w*|out of breath|hard to breathe|struggling to breathe)\b"),
    _r(r"\b(?:difficulty|trouble|problems?)\s+breathing\b|\bcan't (?:\w+ ){0,2}(?:breathe|breath|breathing)\b"),
    _r(r"\b(?:sweating|sweaty|sweats|clammy|cold sweat)\b"),
    _r(
        rf"\b(?:(?:left |right )?(?:arm|jaw|shoulder|neck)|left hand)\b{_S}{{0,20}}"
        r"\b(?:pain|paining|hurts?|hurting|numb|tingling|aching)\b"
    ),
    _r(
        rf"\b(?:pain|paining|hurts?|hurting|numb|numbness|tingling)\b{_S}{{0,25}}"
        r"\b(?:arm|jaw|shoulder|neck|left hand)\b"
    ),
    _r(r"\b(?:spreading|radiating|going|moving|shooting)\s+(?:down|to|into|up)\b"),
    _r(
        r"\b(?:dizzy|faint|light-?headed|about to pass out|going to pass out|nauseous|vomiting|throwing up"
        r"|(?:feel|feeling|felt) sick)\b"
    ),
    _r(r"\b(?:grey|gray|ashen|pale|turned white|gone white)\b"),
    # too breathless to talk: "I can barely get words out", "can hardly speak"
    _r(
        r"\b(?:can't|cannot|can barely|can hardly|barely|hardly|unable to|struggling to)\s+"
        r"(?:get\s+(?:the\s+|my\s+|any\s+|a\s+)?words?\s+out|talk|speak)\b"
    ),
]
_CHEST_SEVERE = _r(
    r"\b(?:severe|crushing|unbearable|terrible|extreme|excruciating|worst|sudden|suddenly|really bad|very bad"
    r"|intense|massive|getting worse|worsening|killing me|too much|so much|very much|so bad|very badly)\b"
)

# Someone the user is with, said as the subject of what happens to them: "my husband won't
# respond" is an emergency where "the app isn't responding" is not.
_PERSON = (
    r"(?:he|she|they|mum|mom|dad|grandma|grandpa|granny|nan|nana|"
    r"(?:my|our)\s+(?:\d+|one|two|three|four|five|six)[- ](?:years?|months?|weeks?)[- ]old|"
    r"(?:my|our)\s+little\s+(?:one|boy|girl)|"
    r"(?:my|our)\s+(?:\w+\s+)?(?:mum|mom|mother|dad|father|husband|wife|son|daughter|baby|child|kid|"
    r"grand\w+|brother|sister|friend|partner|boyfriend|girlfriend|uncle|aunt|toddler|newborn|flatmate|"
    r"roommate|neighbou?r))"
)

# Someone found or seen, as the object of the verb: "found her husband", "saw a man".
_SOMEONE = (
    r"(?:him|her|them|someone|somebody|a (?:man|woman|person|boy|girl|body)|"
    r"(?:my|our|his|her|their)\s+(?:\w+\s+)?(?:mum|mom|mother|dad|father|husband|wife|son|daughter|child|kid|"
    r"brother|sister|friend|partner|boyfriend|girlfriend|uncle|aunt|flatmate|roommate|neighbou?r|grand\w+))"
)

# A child, and medicines that are not theirs or more than a dose: what a child gets into.
# "collapsed", not flopping down on the sofa after work
_COLLAPSED = r"collapsed(?! (?:on|onto|into|in) (?:the|a|my|his|her|their) (?:sofa|couch|bed|chair|armchair))"
_CHILD = r"(?:toddler|baby|child|kid|little (?:one|boy|girl)|(?:my|our) (?:son|daughter|\d+ year old))"
_MEDICINES = PILLS
_SOME_OF = (
    r"(?:some of|a handful of|lots of|loads of|a lot of|a bunch of|several of|a few of|all of|a bottle of|a pack of|"
    r"many|so many|too many|lots|loads|"
    r"my|your|(?:grand)?(?:mum|mom|dad|nan|gran|ma|pa)'s)"
)

# What an overdose is taken of: the medicines above, or one named.
_DOSES = (
    rf"(?:{_MEDICINES}|them|paracetamol|acetaminophen|tylenol|ibuprofen|aspirin|insulin|codeine|tramadol|"
    r"oxycodone|morphine|diazepam|xanax|valium|antidepressants|sleeping pills)"
)

# Suicide said with the means at hand: the person, their wish, and what they have.
_SELF = r"(?:my ?self|meself|him ?self|her ?self|them ?selves|themself)"
_SUICIDAL = (
    rf"suicidal|suicide|(?:kill|hang|shoot|end)\w*\s+{_SELF}|end (?:it all|it|my life)|take my (?:own )?life|"
    r"(?:want|wanna|going) to die|(?:don't|do not|dont) want to (?:live|be alive|be here)|"
    rf"(?:going to|gonna|about to|want to|wanna) (?:hurt|harm|cut) {_SELF}"
)
_MEANS = (
    r"\b(?:have|has|had|got|holding|bought|with|found|took out|sitting with)\s+"
    r"(?:a |the |some |my |his |her |all (?:my|the) )?"
    r"(?:gun|rope|noose|knife|blade|razor|pills|tablets|meds|rifle|pistol)\b"
    r"|\b(?:pills|tablets|rope|gun|knife)\s+(?:are\s+|is\s+)?(?:ready|in (?:my|his|her) hand|lined up)\b"
)

# A character of the sentence that does not begin a time in the past ("fell last year and cut my head").
_NOT_PAST_BETWEEN = r"(?:(?!\b(?:last|ago|yesterday|years?|months?|weeks?)\b)[^.!?;])"

# Acute red flags, each of which is an emergency by itself when it is happening now.
SYMPTOMS: dict[str, list[re.Pattern[str]]] = {
    "heart": [
        _r(r"\bheart attack\b|\bcardiac arrest\b|\bheart (?:has )?stopped\b|\bno pulse\b"),
        _r(r"\b(?:clutching|grabbing|holding) (?:his|her|my|their) chest\b"),
        # a racing heart with fainting now (an arrhythmia that starves the brain); a racing heart
        # with breathlessness or swollen legs is for a cardiologist's booking
        _r(
            rf"\bheart\s+(?:is\s+)?(?:racing|pounding|beating\s+(?:really\s+|very\s+|so\s+|super\s+)?(?:fast|hard)|"
            rf"going crazy)\b{_S}{{0,40}}\b(?:about to|going to|gonna)\s+(?:faint|pass out|black out|collapse)\b"
        ),
    ],
    "breathing": [
        # "can't breathe", "cant breath", "I can barely breathe", "can't catch my breath"
        _r(
            r"\b(?:can't|unable to|not able to|struggling to|can barely|barely|hardly|could not|couldn't)\s+"
            r"(?:\w+\s+){0,2}(?:breathe|breath|breathing|get (?:any )?air)\b"
            r"(?!\s+(?:through|out of) (?:my|his|her|the) nose)"
        ),
        _r(
            r"\b(?:not|isn't|aren't|stopped|stop|no longer|without)\s+breathing\b"
            # "she is not breathe": the verb's form lost, as a learner of English types it
            r"|(?:\bis|\bare|\bam|'s|'re|'m)\s+not\s+breathe?\b(?!\s+(?:through|out of|in through))"
        ),
        _r(
            r"\b(?:gasping|fighting|struggling)\s+for\s+(?:air|breath)\b|\bsuffocating\b"
            r"|\bevery breath (?:is|feels like) (?:a struggle|an effort|a fight|hard work)\b"
            # a baby grunting with each breath
            rf"|\b(?:baby|newborn|infant|toddler|child)\b{_S}{{0,60}}\bgrunting\b"
            r"|(?<!fingertips are )(?<!fingers are )(?<!toes are )\b(?:turning|going) (?:blue|purple)\b"
            r"|\blips (?:are |have |look |looks |look a bit )?(?:turning |going |gone |turned )?"
            r"(?:blue|purple|grey|gray|dusky)\b"
            # "baby is blue colour", "the baby's blue and floppy"
            r"|\b(?:baby|child|toddler|kid|infant|newborn)(?:'s| is| looks| look| has gone)\s+"
            r"(?:all\s+|very\s+|really\s+|a bit\s+)?(?:blue|purple|grey|gray)\b"
            r"(?=\s*(?:colou?r|in the face|and\b|,|\.|!|$|now\b))"
            r"|(?<!fingertips have )(?<!fingers have )(?<!toes have )\b(?:gone|went|turned) (?:blue|grey|gray|purple)\b"
        ),
        # the noises of a blocked airway or of the last breaths: "on the floor making gurgling noises"
        _r(
            r"\b(?:gurgling|rattling)\s+(?:noises?|sounds?|breath\w*)\b|\bdeath rattle\b|\bagonal\b"
            r"|\bmaking\s+(?:a\s+)?(?:choking|rattling|gurgling|snoring|strange breathing)\s+(?:noises?|sounds?)\b"
        ),
        # "he's gasping" (not the British "I'm gasping for a cup of tea")
        _r(r"\b(?:he's|she's|i'm|they're|is|am|are|keeps)\s+gasping\b(?!\s+for\s+(?:a|an|some|my)\b)"),
        # "dad is sitting in his chair gasping and sweating"
        _r(rf"\b(?:{_PERSON}|{_CHILD})\b{_S}{{0,40}}\bgasping\b(?!\s+for\s+(?:a|an|some|my)\b)"),
        # breathing gone slow or shallow: "the baby's breathing has gone really slow" (an overdose, a sick baby)
        _r(
            r"\b(?:his|her|their|the baby's|baby's|the child's)\s+breathing\s+(?:is\s+|has\s+)?"
            r"(?:gone\s+|become\s+|got\s+|getting\s+)?(?:really\s+|very\s+|so\s+)?(?:slow|shallow)\b"
        ),
        _r(r"\bchoking\b"),
        # as a learner of English says it: "baby choke" (not "my son chokes on his food a lot": a habit)
        _r(
            rf"\b(?:{_CHILD}|{_PERSON}|he|she)\s+(?:is\s+)?choke\b"
            r"(?![^.!?;]*\b(?:a lot|often|always|every|when|whenever|on (?:big|large) (?:pills|tablets))\b)"
        ),
        # something stuck in a child's throat: "kid stuck something in throat"
        _r(
            rf"\b{_CHILD}\b{_S}{{0,30}}(?:\bstuck\s+(?:something|an?\s+\w+)\s+in\s+|"
            r"\b(?:something|food|an?\s+\w+)\s+(?:is\s+|got\s+|has got\s+|has\s+)?stuck\s+in\s+)"
            r"(?:(?:his|her|their|the)\s+)?(?:throat|windpipe|airway)\b"
        ),
        # asthma that the inhaler does not stop
        _r(
            r"\basthma attack\b|\binhaler (?:isn't|is not|not|doesn't|is no longer) (?:working|helping)\b"
            # (not an inhaler that helps less than it did: "isn't helping my asthma as much", a booking)
            r"(?![^.!?;]{0,25}\b(?:as much|as well|like (?:it used to|before)|lately|these days|recently)\b)"
        ),
        _r(r"\b(?:severe|severely|extremely|very)\s+(?:short(?:ness)? of breath|breathless)\b"),
        _r(
            rf"\bwheez\w*\b{_S}{{0,30}}\b(?:can't|cannot|unable to|can barely|can hardly|barely|hardly)\s+"
            r"(?:talk|speak|get (?:the |my |any )?words out)\b"
        ),
        # "I'm having trouble breathing", "he's having real difficulty breathing" (said of now; "I have
        # trouble breathing when I climb stairs" lasts, and is for a booking)
        _r(
            r"\b(?:i'm|he's|she's|they're|we're|is|am|are)\s+having\s+(?:real\s+|a lot of\s+|serious\s+|severe\s+|"
            r"bad\s+|big\s+|great\s+)?"
            r"(?:trouble|difficulty|difficulties|problems?|a hard time)\s+(?:with\s+)?breathing\b"
            r"(?!\s+(?:(?:in\s+)?through|out of|exercises?|techniques?|machine|mask)\b)"
        ),
        # a child working to breathe: the skin pulled in under or between the ribs, grunting
        _r(
            r"\b(?:skin|chest|tummy|belly|stomach)\b[^.!?;]{0,40}\b(?:sucking|pulling|sinking|caving)\s+in\b"
            r"[^.!?;]{0,20}\b(?:ribs?|breath\w*)\b"
            r"|\b(?:sucking|pulling|sinking|caving)\s+in\s+(?:under|between|below|around)\s+(?:the|his|her|their)\s+ribs?\b"
        ),
        _r(
            r"\b(?:can't|cannot|unable to|struggling to)\s+(?:talk|speak)\s+in\s+(?:full\s+|whole\s+)?sentences\b"
            r"|\b(?:can't|cannot|unable to)\s+finish\s+(?:a|her|his|my|their)\s+sentences?\b"
        ),
    ],
    "stroke": [
        _r(r"\bstroke\b"),
        _r(
            rf"\b(?:face|mouth|smile|eye|lip)\b{_S}{{0,15}}\b(?:drooping|droopy|drooped|droops|dropping|dropped|lopsided|fallen|sagging)\b"
        ),
        _r(r"\b(?:drooping|droopy|lopsided|sagging)\s+(?:face|mouth|smile)\b"),
        # "grandmother face is droop": the verb's form lost
        _r(r"\b(?:face|mouth|smile)\s+(?:is|are|was|look|looks)\s+droop\b"),
        _r(
            r"\b(?:slurred|slurring|slurry)\b"
            r"|\b(?:can't|unable to) (?:speak|talk) (?:properly|clearly|right|normally)\b"
        ),
        _r(r"\b(?:speech|words?)\s+(?:is |are )?(?:slurred|jumbled|garbled|coming out wrong)\b"),
        _r(
            r"\b(?:speech|talking|voice)\s+(?:\w+\s+){0,2}?(?:went|gone|going|became|turned)\s+"
            r"(?:weird|strange|funny|odd|slurred|wrong)\b"
        ),
        _r(
            rf"\b(?:can't|cannot|unable to)\s+(?:move|feel)\s+(?:my|his|her|their)\s+(?:legs|arms)\b{_S}{{0,20}}"
            r"\bsudden(?:ly)?\b|\bsudden(?:ly)?\b(?:\s+\w+){0,3}?\s+(?:can't|cannot|unable to)\s+(?:move|feel)\s+"
            r"(?:my|his|her|their)\s+(?:legs|arms)\b"
        ),
        # "talking funny and his face looks wrong", "can't find her words and her arm is weak"
        _r(
            rf"\b(?:(?:talking|speaking|speech|sounds?)\s+(?:is\s+)?(?:funny|strange|weird|odd|wrong|drunk)|"
            rf"(?:can't|cannot|unable to)\s+(?:find|get)\s+(?:my|his|her|their|the)\s+words)\b{_S}{{0,40}}"
            r"\b(?:face|arm|leg|hand|side|droop\w*|weak\w*|numb\w*)\b"
            rf"|\b(?:face|smile|mouth)\s+(?:looks?|is|seems?)\s+(?:wrong|odd|strange|weird|funny|different)\b{_S}{{0,40}}"
            r"\b(?:talk\w*|speak\w*|speech|words|arm|weak\w*)\b"
            rf"|\b(?:talk\w*|speak\w*|speech|words)\b{_S}{{0,40}}\b(?:face|smile|mouth)\s+(?:looks?|is|seems?)\s+"
            r"(?:wrong|odd|strange|weird|funny|different)\b"
        ),
        _r(r"\b(?:can't|unable to) (?:move|lift|feel) (?:my|his|her|their) (?:left|right) (?:arm|leg|side|hand)\b"),
        _r(rf"\b(?:weak|weakness|numb|numbness|paraly[sz]ed|dead)\b{_S}{{0,12}}\b(?:on|of|down) one side\b"),
        _r(r"\bone[- ]sided (?:weakness|numbness|paralysis)\b|\bhalf (?:of )?(?:my|his|her) (?:face|body)\b"),
        # "his face has gone weird on one side"
        _r(
            rf"\b(?:face|mouth|smile)\b{_S}{{0,25}}\b(?:weird|odd|funny|strange|wrong|droop\w*|dropped|lopsided|"
            r"crooked|twisted|numb|slack)\s+(?:down\s+|on\s+)?(?:one side|the (?:left|right)(?: side)?)\b"
        ),
        # "one arm has gone weak", "his leg went numb": a limb of one side, suddenly
        _r(
            r"\bone (?:arm|leg|hand|side)\s+(?:has\s+|have\s+|is\s+|just\s+)?(?:gone|went|going|is|suddenly|feels)\s+"
            r"(?:\w+\s+)?(?:weak|numb|limp|dead|heavy)\b"
        ),
        # sudden confusion with a weak limb: "she's confused and can't lift her arm"
        _r(rf"\bconfused\b{_S}{{0,30}}\b(?:can't|unable to|cannot) (?:move|lift|feel|use)\b"),
        # speech lost together with a limb or the face: "can't speak and one arm is weak"
        _r(rf"\b(?:can't|unable to) (?:speak|talk)\b{_S}{{0,40}}\b(?:arm|leg|face|hand|side)\b"),
        # speech or understanding lost suddenly: "he suddenly can't understand what I'm saying"
        _r(
            rf"\b(?:sudden(?:ly)?|all of a sudden)\b{_S}{{0,20}}\b(?:can't|cannot|unable to)\s+(?:"
            r"understand (?:what (?:i|we|you|people|anyone|they)|anything|me|us|words|speech)|speak|talk|"
            r"find (?:his|her|my|their|the) words|get (?:his|her|my|their|the) words out)\b"
        ),
        # "dad can't move one side of his body"
        _r(
            r"\b(?:can't|cannot|unable to|couldn't) (?:move|feel|use) (?:one side|half|the (?:left|right) side) of "
            r"(?:his|her|my|their) (?:body|face)\b"
        ),
        # "I can't feel the left side of my body", "he can't use his right hand"
        _r(
            r"\b(?:can't|cannot|unable to|couldn't) (?:move|lift|feel|use) (?:the |my |his |her |their )?"
            r"(?:left|right) (?:side|arm|leg|hand)\b"
        ),
        # sight lost suddenly, or in one eye: "sudden blindness in one eye", "she suddenly can't see"
        _r(
            rf"\b(?:sudden(?:ly)?|all of a sudden)\b{_S}{{0,20}}\b(?:blind\w*|went blind|can't see|cannot see|"
            r"lost (?:my |his |her |the )?(?:sight|vision)|loss of (?:sight|vision)|double vision)\b"
            r"|\b(?:went blind|can't see|cannot see|lost (?:my |his |her |the )?(?:sight|vision))\b"
            rf"{_S}{{0,30}}\b(?:sudden(?:ly)?|all of a sudden)\b"
        ),
        _r(
            r"\b(?:lost|losing) (?:the |my |his |her |all )?(?:sight|vision) (?:in|of) (?:one|my|his|her) "
            r"(?:left |right )?eye\b|(?<!briefly )(?<!momentarily )\b(?:went|gone|going) blind\b"
            r"(?! (?:for a (?:second|moment|few seconds)|briefly))"
        ),
        # "sudden numbness in my face and arm" (one limb, not "legs" after a run)
        _r(
            rf"\bsudden(?:ly)?\b{_S}{{0,20}}\b(?:numb\w*|weak\w*|droop\w*|paraly\w*)\b{_S}{{0,20}}"
            r"\b(?:face|arm|leg|hand|side)\b"
        ),
        # the limbs first and "suddenly" after, or between: "my arm and leg went numb suddenly",
        # "suddenly my left arm and leg are numb" (one leg, not "legs" after a run)
        _r(
            rf"\b(?:face|arm|leg|hand|side)\b{_S}{{0,30}}\b(?:numb\w*|weak\w*|paraly\w*|limp|dead)\b{_S}{{0,15}}"
            rf"\bsudden(?:ly)?\b|\bsudden(?:ly)?\b{_S}{{0,25}}\b(?:arm|leg|face|hand|side)\b{_S}{{0,20}}"
            r"\b(?:numb\w*|weak\w*|limp|dead|paraly\w*)\b"
        ),
        # the face and an arm gone numb together: "I can't feel my face and my arm went numb"
        _r(
            r"\b(?:can't feel|lost (?:the )?feeling in|numb\w*(?: in)?)\s+(?:my|his|her|their|the)\s+face\b"
            rf"{_S}{{0,30}}"
            r"\b(?:arm|hand|leg)\b[^.!?;]{0,20}\b(?:numb|weak|dead|heavy|won't move|can't move)\b"
        ),
    ],
    # a sudden, severe headache ("the worst headache of my life") is a bleed until proved otherwise
    "headache": [
        _r(
            r"\bworst headache (?:of (?:my|his|her|their) life|(?:i've|he's|she's|they've) ever had|ever)\b"
            r"|\bthunderclap\b"
        ),
        _r(
            rf"\bsudden(?:ly)?\b{_S}{{0,15}}\b(?:severe|excruciating|explosive|worst|blinding|terrible|awful|agonising|"
            r"agonizing|horrendous|horrible|unbearable|massive)\s+headache\b"
        ),
    ],
    "unconscious": [
        _r(
            # (not a device: "the app is not responding", "my phone is not responding")
            r"\b(?:unconscious|unresponsive|"
            r"(?<!app is )(?<!app's )(?<!phone is )(?<!phone's )(?<!screen is )(?<!site is )(?<!website is )"
            r"(?<!page is )(?<!watch is )(?<!button is )(?<!laptop is )(?<!computer is )(?<!it is )(?<!it's )"
            r"not responding(?!\s+to\s+(?!me\b|us\b|(?:my|our) voice))|"
            r"can't wake (?:him|her|them|up)|hard to wake|difficult to wake|can't be woken|"
            # "I can't wake my grandmother up", "can't get my son to wake up" (the "I" is in the match: the
            # one who cannot wake is someone else, not the user typing)
            r"(?:(?:i|we) )?(?:can't|cannot|couldn't) (?:wake|rouse) (?:my|our|the) (?:\w+ ){0,2}?up"
            r"(?!\s+(?:early|on time|in time|for (?:school|work)|in the mornings?))|"
            r"(?:(?:i|we) )?(?:can't|cannot|couldn't) get (?:him|her|them|(?:my|our|the) (?:\w+ ){0,2}?)to wake(?: up)?"
            r"(?!\s+(?:early|on time|in time|for (?:school|work)|in the mornings?))|"
            # not "won't wake up early enough for school"
            r"(?:isn't|is not|not|won't) (?:waking|wake)(?: up)?"
            r"(?!\s+(?:up\s+)?(?:early|on time|in time|for (?:school|work)|in the mornings?))|"
            r"not moving|(?:gone|went|going|is|feels?|seems?|looks?) (?:all |very |really )?floppy|"
            # "she is floppy" is read as "she's floppy"
            r"(?:he|she|they|baby|it)(?:'s|'re) (?:all |very |really |gone |going )?floppy|"
            r"in and out of consciousness|losing consciousness|lost consciousness|can't stay awake|"
            r"barely conscious|semi-?conscious|barely awake|"
            r"passing out|keeps? fainting|"
            rf"{_COLLAPSED}|"
            # "my brother just collapses on the floor", "he suddenly collapse" (the tense lost)
            r"(?:just |suddenly )collapses?|collapses? on(?:to)? the (?:\w+ )?(?:floor|ground|street|pavement|road)|"
            r"collapsing|passed out|blacked out|fainted|out cold|fell unconscious)\b"
        ),
    ],
    "unresponsive": [
        _r(
            rf"\b{_PERSON}(?:'s|'re)?\b(?:\s+[\w']+){{0,10}}?\s+(?:isn't|is not|not|won't|will not|doesn't|does not|"
            r"aren't|stopped|has stopped)\s+respond(?:ing)?\b(?!\s+to\s+(?!me\b|us\b|(?:my|our) voice))"
        ),
        # breathing strangely and not answering: "breathing very strangely and won't answer me"
        _r(
            r"\bbreathing\s+(?:very\s+|really\s+|so\s+)?(?:strangely|strange|weird(?:ly)?|funny|oddly|odd|noisily)\b"
            rf"{_S}{{0,40}}\b(?:won't|will not|isn't|is not|not|doesn't|can't)\s+(?:answer(?:ing)?|respond(?:ing)?|"
            r"wake|waking)\b(?!\s+(?:the|his|her|my) (?:phone|calls?|texts?|messages?|door))"
        ),
        # not answering, on the floor: "he isn't answering and I can hear him groaning on the floor"
        _r(
            rf"\b(?:{_PERSON}|{_SOMEONE}|the old (?:man|woman|lady|gentleman))\b{_S}{{0,30}}"
            rf"\b(?:isn't|is not|not|won't|will not)\s+(?:answering|responding)\b{_S}{{0,60}}"
            r"\bon the (?:floor|ground)\b"
            rf"|\b(?:{_PERSON}|{_SOMEONE}|the old (?:man|woman|lady|gentleman))\b{_S}{{0,30}}"
            r"\bon the (?:floor|ground)\b"
            rf"{_S}{{0,60}}\b(?:isn't|is not|not|won't|will not)\s+(?:answering|responding)\b"
        ),
        # a person gone limp (a limb or anything else that "went limp" is for a booking)
        _r(rf"\b{_PERSON}(?:'s|\s+has|\s+is)?\s+(?:just\s+)?(?:gone|went|going)\s+(?:all\s+)?limp\b"),
        _r(
            rf"\b{_PERSON}(?:'s|\s+is)\s+(?:all\s+|very\s+|really\s+|completely\s+)?limp\b"
            r"(?!\s+(?:wrist|handshake|with (?:tiredness|exhaustion|laughter|relief)))"
        ),
        # slumped and not answering: "mum is slumped in her chair and won't answer me"
        _r(
            rf"\bslumped\b{_S}{{0,40}}\b(?:won't|will not|isn't|is not|not|doesn't|does not|can't)\s+"
            r"(?:answer(?:ing)?|respond(?:ing)?|wake|waking|move|moving)\b"
        ),
    ],
    # a fall they do not get up from (typed by the one who fell, too)
    "fall": [
        _r(
            r"\b(?:fell|fallen|fall|collapsed)(?: down| over)? and (?:(?:i|he|she|they|we)(?:'s|'m)?\s+)?"
            r"(?:is not|isn't|can't|won't|not|cannot|am not|'m not) (?:getting up|get up|moving)\b"
            rf"|\bon the (?:floor|ground)\b{_S}{{0,20}}\b(?:can't|cannot|won't|unable to) get up\b"
            rf"|\b(?:fell|fallen|collapsed)\b{_NOT_PAST_BETWEEN}{{0,30}}"
            r"\b(?:can't|cannot|won't|unable to|not able to)\s+"
            r"(?:get|getting) (?:up|back up)\b"
            rf"|\b(?:fell|fallen|collapsed)\b{_NOT_PAST_BETWEEN}{{0,40}}\b(?:can't|cannot|unable to|not able to)\s+"
            r"(?:stand|stand up|put (?:any )?weight on)\b"
        ),
        # a hip broken now: an old person on the floor ("my hip is broken, I'm on the floor")
        _r(
            r"\bhip\s+(?:is|'s|has)\s+(?:\w+\s+)?(?:broken|fractured)\b"
            r"|\b(?:broke|broken|fractured)\s+(?:my|his|her|their)\s+hip\b"
        ),
    ],
    "bleeding": [
        _r(
            rf"\b(?:bleeding|blood|nosebleed|nose bleed)\b{_S}{{0,30}}"
            r"\b(?:won't|will not|doesn't|isn't|can't|not|never) "
            r"(?:stop|stopping)\b"
            rf"|\b(?:bleeding|blood|nosebleed|nose bleed)\b{_S}{{0,30}}\b(?:hasn't|has not|still hasn't) stopped\b"
        ),
        _r(r"\bcan't stop (?:the |his |her |my )?(?:bleeding|blood)\b"),
        _r(rf"\b(?:cut|wound|gash|bleed\w*|blood)\b{_S}{{0,40}}\b(?:spurting|pumping|gushing|pouring out)\b"),
        _r(
            r"\b(?:won't|will not|doesn't|does not|isn't|is not) stop(?:ping)? bleeding\b"
            r"|\bso much (?:bleeding|blood)\b"
        ),
        _r(
            r"\b(?:heavy|heavily|severe|severely|lots of|a lot of|lot of|badly|profuse|profusely|uncontrolled|"
            r"uncontrollable|massive|pouring|gushing|spurting)\s+(?:bleeding|blood)\b"
        ),
        _r(
            r"\bbleeding\s+(?:heavily|badly|a lot|profusely|everywhere|non-?stop|so much|very much|too much|out|heavy|"
            r"very heavy|lots|loads|a load)\b"
            r"|\bblood everywhere\b"
        ),
        # "blood is coming from my mouth a lot"
        _r(
            r"\bblood\s+(?:is\s+)?(?:coming|pouring|gushing|running)\s+(?:out\s+)?(?:of|from)\s+(?:my|his|her|their|the)\s+"
            r"\w+\s+(?:a lot|so much|very much|heavily|badly|everywhere|non-?stop)\b"
        ),
        # "bleeding from my bum a lot"
        _r(
            r"\bbleeding\s+(?:from|out of)\s+(?:my|his|her|their|the)\s+\w+\s+(?:a lot|so much|heavily|badly|very much|"
            r"everywhere|non-?stop)\b"
        ),
        # "it's pouring with blood", "streaming blood"
        _r(r"\b(?:pouring|gushing|streaming|spurting|pumping)\s+(?:with\s+|out\s+)?blood\b"),
        # "there's blood pouring from his leg"
        _r(r"\bblood\s+(?:is\s+)?(?:pouring|gushing|spurting|pumping|streaming)\s+(?:out\s+)?(?:of|from)\b"),
        _r(r"\b(?:vomiting|throwing up|coughing up|coughing|puking)\s+(?:up\s+)?blood\b"),
        # "there is blood in my vomit", "blood in his sick"
        # (not "there was blood in my vomit" in a story of months: for a booking)
        _r(r"(?<!was )(?<!were )(?<!had )\bblood\s+in\s+(?:my|his|her|their|the)\s+(?:vomit|sick|puke)\b"),
        # "she's been sick with blood in it", "vomit full of blood"
        _r(
            r"\b(?:been sick|is sick|was sick|being sick|vomit\w*|throw\w* up|threw up|puk\w*)\s+"
            r"(?:with|of|full of|containing)\s+(?:\w+\s+){0,2}?blood\b"
        ),
    ],
    "seizure": [
        _r(
            r"\b(?:having|having another|had|is in)\s+(?:an?\s+)?(?:febrile\s+|epileptic\s+|grand mal\s+|"
            r"tonic[- ]clonic\s+|big\s+|bad\s+|massive\s+)?"
            r"(?:seizures?|fits?|convulsions?|epileptic (?:fit|attack))\b"
        ),
        _r(r"\b(?:seizing|fitting|convulsing)\b|\bseizures? (?:now|right now|won't stop)\b"),
        _r(r"\beyes\s+(?:have\s+|are\s+|just\s+)?(?:rolled|rolling|rolls|rolled up)\s+(?:back|up)\b"),
        _r(
            r"\bwon't stop (?:shaking|seizing|fitting|convulsing)\b|\bfoaming at the mouth\b"
            r"|\bfoam\w*\s+(?:is\s+)?(?:coming\s+)?(?:from|at|out of)\s+(?:the\s+|his\s+|her\s+|their\s+|my\s+)?mouth\b"
        ),
        # "my child has a seizure" (one, now; "has seizures" is a condition)
        _r(r"\b(?:has|is having|'s having)\s+a\s+(?:seizure|fit|convulsion)\b"),
    ],
    # a rash that does not fade when pressed (under a glass): meningococcal sepsis
    "meningitis": [
        _r(
            rf"\b(?:rash|spots)\b{_S}{{0,30}}\b(?:doesn't|does not|won't|will not|didn't|isn't|is not|not)\s+"
            r"(?:fade|fading|blanch\w*)\b(?!\s+(?:after|for|in)\b)"
        ),
        _r(r"\bnon[- ]?blanching\b|\b(?:soft spot|fontanelle)\s+(?:is\s+)?(?:bulging|swollen|raised)\b"),
        # "a rash that doesn't go away when I press a glass on it"
        _r(
            rf"\b(?:rash|spots)\b{_S}{{0,30}}\b(?:doesn't|does not|won't|will not|didn't|isn't|is not|not)\s+"
            rf"(?:go away|disappear|go|change|fade)\b{_S}{{0,30}}\b(?:glass|tumbler)\b"
        ),
    ],
    "poisoning": [
        # not a bare "OD": on a prescription it is "once daily"
        _r(r"\b(?:overdose|overdosed|overdosing|od'd|od-ed|oded)\b|\b(?:an|took an?) od\b"),
        # "took too many", "swallowed too much"; with other verbs and a whole or all of something, only
        # of medicines ("took her whole month of pills"; not "I ate too much", "I had my whole day ruined")
        _r(rf"\b(?:took|taken|swallowed)\b{_S}{{0,20}}\b(?:too many|too much)\b"),
        # as a learner of English says it: "i drink too much pills" (not "I take too many vitamins": a habit)
        _r(rf"\b(?:drink|drinks|eat|eats)\s+(?:too many|too much)\s+(?!vitamins?\b|supplements?\b){_DOSES}\b"),
        # (not a question about the day's doses: "have I taken all my pills today?", nor "all my tablets
        # for today", which are the medicines desk's)
        _r(
            r"(?<!have i )(?<!has he )(?<!has she )(?<!have we )(?<!have they )(?<!did i )"
            rf"\b(?:took|taken|swallowed|ate|eaten|drank|drunk|had)\b{_S}{{0,20}}\b(?:too many|too much|"
            rf"(?:a|the|my|his|her|their) (?:whole|entire)|all (?:my|his|her|the))\b{_S}{{0,25}}\b{_DOSES}\b"
            r"(?!\s+(?:for (?:today|the day|this morning|this evening|tonight)|yet)\b)"
        ),
        _r(
            rf"\b(?:swallowed|swallow|swallowing|drank|drunk|drink|drinks|drinking|ate|eaten|eat|eats|eating|took|taken)\b"
            rf"{_S}{{0,20}}\b(?:bleach|poison|detergent|pesticide|"
            r"insecticide|antifreeze|kerosene|weed ?killer|battery|batteries|"
            r"magnets?|cleaning (?:liquid|fluid|product))\b"
        ),
        _r(r"(?<!food )\bpoison(?:ed|ing)?\b|\bcarbon monoxide\b"),
        # a number or a heap of them: "took 20 of my blood pressure tablets", "swallowed a lot of pills";
        # not "I had 20 minutes of pain", "I've had lots of itching"
        _r(
            r"\b(?:took|taken|swallowed|ate|had)\s+(?:[1-9]\d+|many|so many|several|a handful of|handfuls of|loads of|"
            r"lots of|a lot of|a load of|"
            rf"a bunch of|all of)\s+(?:(?:my|his|her|their|the|them|these|those|of)\s+)*(?:\w+\s+){{0,2}}?{_DOSES}\b"
        ),
        # "swallowed a bottle of pills", "took a whole pack of paracetamol tablets"; not "a bottle of water"
        _r(
            rf"\b(?:took|taken|swallowed|ate|eaten|had)\s+an?\s+(?:(?:full|whole|entire)\s+)?"
            rf"(?:bottle|pack|packet|box|strip|tub)\s+of\b{_S}{{0,25}}\b{_DOSES}\b"
        ),
    ],
    # a child who got into the medicines: "the toddler found my pills and ate some"
    "child_poisoning": [
        _r(rf"\b{_CHILD}\b{_S}{{0,30}}\b(?:found|got into|got hold of|got at|opened)\b{_S}{{0,25}}\b{_MEDICINES}\b"),
        _r(
            rf"\b{_CHILD}\b{_S}{{0,30}}\b(?:ate|eat|eaten|swallowed|chewed|took|taken)\s+{_SOME_OF}{_S}{{0,20}}"
            rf"\b{_MEDICINES}\b"
        ),
        _r(
            rf"\b{_CHILD}\b{_S}{{0,30}}\b{_MEDICINES}\b{_S}{{0,25}}\b(?:ate|eaten|swallowed|chewed)\s+"
            r"(?:some|a few|several|lots|loads|a handful|all|them|it)\b"
        ),
    ],
    # injuries that need an ambulance whatever else is said
    "injury": [
        _r(
            r"\b(?:fell|fallen|falling) (?:off|from|down) (?:a |the )?(?:roof|ladder|balcony|building|stairs|"
            r"window|tree|cliff|(?:\d+(?:st|nd|rd|th)|first|second|third|fourth|top|upper) (?:floor|storey|story))\b"
        ),
        _r(
            r"\b(?:stabbed(?! (?:by|with) (?:a |an )?(?:needle|pin|syringe|thorn|splinter))|been shot|got shot|gunshot|"
            r"electrocuted|drowning|drowned|snake ?bite|"
            r"(?:bitten|bit) by (?:a |the |an )?(?:snake|adder|viper|rattlesnake|rattler|cobra|copperhead)|"
            r"snakes? (?:has |just )?(?:bit|bitten|bites)|"
            # "someone shot my brother", "he was shot in the leg"
            r"(?:someone|somebody|he|she|they|a man|a guy) (?:just )?shot (?:my|our|him|her|them|me|us)"
            r"(?! (?:a|an|some|the) (?:message|text|email|look|glance|smile|note|line|video|photo|picture)\b)|"
            r"(?:was|were|got|been|i'm|is) shot (?:in|through) the|"
            # a broken neck or back: not to be moved but by paramedics
            # ("broke my back" is also said of hard work)
            r"(?:broke|broken|snapped|fractured) (?:my|his|her|their) (?:neck|spine)|"
            r"(?:broken|fractured) (?:his|her|their) back|"
            r"badly burn(?:ed|t)|burn(?:ed|t) "
            r"(?:(?:my ?self|him ?self|her ?self|them|him|her|(?:my|his|her|their) \w+) )?(?:really |very |so )?badly|"
            r"severe(?:ly)? burn(?:ed|t|s)?|struck by lightning|"
            r"burn(?:ed|t|s)?\s+(?:all over|everywhere|over (?:his|her|my|their) (?:whole )?body)|"
            r"(?:cut|slashed|sliced)\s+(?:my|him|her|them)\s?sel(?:f|ves)\s+(?:very |really |so )?"
            r"(?:deep|deeply|badly|bad)|"
            r"head injury|hit by (?:a |the )?(?:car|bus|truck|lorry|"
            r"bike|motorbike|train|vehicle|van|taxi|tram|scooter)|car (?:crash|accident)|road accident|"
            r"caught in (?:a|the) (?:machine|machinery)|"
            r"burn(?:ed|t)\s+(?:my|his|her|their)\s+face(?!\s+(?:in the sun|on the beach|a (?:bit|little)|slightly))|"
            r"(?:fell|fallen|gone|went)\s+through\s+(?:the\s+)?ice(?!\s*cream))\b"
        ),
        # a limb crushed out of shape: "his arm caught in a machine and it's mangled" (not "my schedule")
        _r(
            rf"\b(?:hand|arm|leg|foot|fingers?|limb|body)\b{_S}{{0,40}}\bmangled\b"
            r"|\bmangled\s+(?:his|her|my|their)\s+(?:hand|arm|leg|foot|fingers?)\b"
        ),
        # a wound down to the bone, a bone through the skin
        _r(
            rf"\b(?:cut|gash|wound|deep|split|ripped|torn|sliced)\b{_S}{{0,40}}"
            r"\b(?:can see|see|seeing|showing|exposed)\b[^.!?;]{0,12}\bbones?\b"
            r"|\bbones?\s+(?:is\s+|are\s+)?(?:sticking|poking|showing|coming)\s+(?:out|through)\b"
        ),
        # a power tool's cut, a part cut off, a chemical burn or in the eyes
        _r(
            rf"\b(?:cut|sliced|caught|injured|hurt|gashed)\b{_S}{{0,30}}\b(?:chain ?saw|circular saw|angle grinder|"
            r"machete|axe|lawn ?mower|table saw|power saw)\b"
            r"|\b(?:finger|fingers|thumb|toe|toes|hand|foot|ear|nose|tip)\s+(?:of\s+(?:my|his|her|their)\s+\w+\s+)?"
            r"(?:was|is|got|has been|have been|were|came|come)\s+(?:\w+\s+)?"
            r"(?:cut|chopped|sliced|torn|ripped|severed)\s+off\b"
            r"|\b(?:cut|chopped|sliced|tore|torn|ripped)\s+off\s+(?:the\s+tip\s+of\s+)?(?:my|his|her|their)\s+"
            r"(?:finger|fingers|thumb|toe|toes|hand|foot|ear|nose)\b|\b(?:severed|amputated)\b"
            rf"|\b(?:acid(?! reflux)|chemicals?|caustic|lye|drain cleaner|oven cleaner|bleach)\b{_S}{{0,30}}"
            r"\b(?:burn\w*|in (?:my|his|her|their|the) eyes?)\b"
            r"|\bburn(?:ed|t)\s+(?:by|with)\s+(?:acid|chemicals?|caustic)\b"
        ),
        # an accident with people hurt: "accident on the highway, people hurt"
        _r(
            rf"\b(?:accident|crash|collision)\b{_S}{{0,30}}\b(?:people|someone|somebody|a person|persons|a man|a woman|"
            r"a child|many|they're|he's|she's|they|he|she)\s+(?:is\s+|are\s+|got\s+|badly\s+)?"
            r"(?:hurt|injured|bleeding|trapped|unconscious)\b"
        ),
        # "there's been an accident, my dad is badly hurt"
        _r(
            r"\b(?:been|there's)\s+an?\s+(?:bad\s+|serious\s+)?accident\b"
            r"|\b(?:badly|seriously|severely) (?:hurt|injured)\b"
        ),
        _r(r"\bknocked (?:out|unconscious)\b|\b(?:knife|stab|gunshot|bullet) wounds?\b|\bbeen knifed\b"),
        _r(
            rf"\b(?:explosion|blast|shooting|gas leak)\b{_S}{{0,30}}"
            r"\b(?:hurt|injured|bleeding|burn(?:ed|t)|unconscious)\b"
        ),
        _r(
            r"\b(?:in|had|been in)\s+an?\s+(?:bad\s+|serious\s+|car\s+)?(?:crash|collision|pile-?up)\b"
            r"|\b(?:leg|legs|arm|foot|feet|hand|head|body)\s+(?:is\s+|are\s+|got\s+)?(?:trapped|pinned|stuck under)\b"
            r"|\btrapped\s+(?:in|under|inside)\s+(?:the\s+|a\s+|his\s+|her\s+|my\s+|their\s+)?(?:car|vehicle|wreck\w*|"
            r"rubble|debris|lift|elevator|machine\w*|burning|fire)\b"
            r"|\bappendix\b[^.!?;]{0,20}\b(?:burst|bursting|ruptured?)\b"
        ),
        # smoke breathed in, a fire now (not the alarm or a drill), a body pulled from the water
        _r(
            r"\bsmoke inhalation\b|\b(?:inhaled|breathed in|breathing in|swallowed)\s+(?:a lot of\s+|lots of\s+|"
            r"too much\s+|some\s+)?smoke\b|\b(?:house|flat|home|kitchen|building|room|apartment)\s+(?:is\s+)?on fire\b"
            r"|\bthere's a fire\b(?!\s+(?:alarm|drill|door|exit|extinguisher|safety|escape|risk))"
            r"|\bfire in (?:my|the|our|his|her|their) (?:house|home|flat|kitchen|building|apartment|room)\b"
            # smoke filling the place, with someone coughing or short of breath in it
            rf"|\b(?:smoke everywhere|(?:full of|filled with|thick|black) smoke)\b{_S}{{0,50}}"
            r"\b(?:cough\w*|wheez\w*|breath\w*|choking|unconscious|passed out|collapsed|trapped)\b"
            r"|\b(?:pulled|fished|rescued|dragged)\s+(?:\w+\s+){0,2}?(?:out of|from)\s+(?:the\s+)?"
            r"(?:water|pool|river|sea|lake|canal|bath)\b|\bnear(?:ly)?[- ]drown\w*"
        ),
        _r(r"\bheart\s+(?:is\s+|has\s+)?(?:stopping|stopped|stopped beating|not beating)\b|\bno pulse\b"),
        # an electric shock that reached the heart, the breath or the mind; a burn that took the skin off
        _r(
            rf"\belectric(?:al)? shock\b{_S}{{0,40}}\b(?:chest|heart|breath\w*|unconscious|passed out|collapsed|"
            r"burn\w*|confused|numb)\b"
            rf"|\bburn\w*\b{_S}{{0,50}}\bskin\s+(?:is\s+|has\s+)?(?:peeling|coming|falling|came)\s+off\b"
        ),
        # someone gone into the water: "my toddler fell in the pool" (not "my phone fell in the pool")
        _r(
            rf"\b(?:{_CHILD}|{_PERSON}|i)\s+(?:\w+\s+)?(?:fell|has fallen|fallen|slipped|went under|is under|was under|"
            r"been under)\s+(?:in|into|under|in to)?\s*"
            r"(?:the\s+)?(?:pool|river|lake|sea|canal|pond|water|bath)\b"
        ),
    ],
    # a birth under way outside a hospital: the baby coming, the cord showing
    "birth": [
        _r(
            # "the babys coming now" is typed "baby coming now" too ("babys" reads as "baby")
            r"\bbaby\s+(?:coming|crowning)\s+(?:now|out|right now|fast)\b"
            r"|\b(?:the\s+)?baby(?:'?s| is)\s+(?:coming(?!\s+(?:in|next|soon|along|to|over|home|round|with|back|for|"
            r"on|at|this|early|late))|crowning|coming out)\b"
            r"|\b(?:i'm|she's|is|am)\s+giving birth\b(?!\s+(?:next|soon|in\s+(?:\d|a\b|an\b|one|two|three|four|five|"
            r"six|few|several|\w+ (?:weeks?|months?|days?)|january|february|march|april|may|june|july|august|september|"
            r"october|november|december|spring|summer|autumn|fall|winter)))"
            r"|\bcord\s+(?:is\s+)?(?:out|showing|coming out)\b"
        ),
    ],
    # Suicide with a plan, the means or the hour: "I'm going to kill myself", "I have a gun and I want to
    # die", "suicidal and have pills ready". Thoughts without them ("I want to end my life") get the
    # crisis answer (agents.crisis), which offers the SOS; a plan, means or "tonight" is an emergency
    # (the risk a crisis line asks about first) and starts it, with the crisis lines in the reply.
    "suicide": [
        _r(
            rf"\b(?:i'm|i am|he's|she's|they're|is|am|are|was)\s+(?:going to|gonna|about to|planning to|planning on|"
            rf"ready to|trying to|threatening to|threatens to)\s+(?:kill|hang|shoot|poison|drown|stab)\w*\s+{_SELF}\b"
            r"|\b(?:going to|gonna|about to|ready to|planning to) (?:end (?:it all|(?:my|his|her|their) life)|"
            r"take (?:my|his|her|their) (?:own )?life)\b"
        ),
        _r(rf"\b(?:kill\w*|hang\w*|shoot\w*)\s+{_SELF}\s+(?:tonight|today|now|right now)\b"),
        # "I'm going to end it tonight" (not "end it with him", "end it off")
        _r(
            r"\b(?:going to|gonna|about to|ready to|planning to|want to|wanna) end it\s+(?:all\s+)?"
            r"(?:tonight|today|now|right now|this (?:evening|morning|afternoon|weekend))\b"
        ),
        _r(
            rf"\b(?:{_SUICIDAL})\b{_S}{{0,40}}(?:{_MEANS})"
            rf"|(?:{_MEANS}){_S}{{0,40}}\b(?:{_SUICIDAL})\b"
        ),
        _r(r"\b(?:cut|slit|slashed)\s+(?:my|his|her|their)\s+(?:own\s+)?(?:wrists?|throat)\b"),
        # an attempt just made, a person found hanging, a jump threatened from a height
        _r(rf"\b(?:tried|attempted|has tried|just tried) to (?:kill|hang|shoot|poison|drown|stab)\w*\s+{_SELF}\b"),
        _r(rf"\b(?:found|find|saw|discovered)\s+{_SOMEONE}\s+hanging\b(?!\s+(?:out|around|about))"),
        _r(
            r"\b(?:threatening|threatens|going|gonna|about|trying|wants?|ready) to "
            r"jump\s+(?:off|from|in front of|out of)\s+(?:the |a |her |his |their )?(?:\w+ )?"
            r"(?:bridge|roof|building|balcony|window|cliff|train|car|bus|tower|ledge|overpass|car park)\b"
            r"|\bstanding on (?:the |a )?(?:ledge|edge of (?:the |a )?(?:roof|bridge|cliff|building))\b"
        ),
    ],
    # heatstroke (not heat exhaustion, which rest, shade and water treat)
    "heat_or_cold": [_r(r"\b(?:heat ?stroke|sun ?stroke)\b")],
    "anaphylaxis": [
        _r(r"\banaphyla\w*|\banaphylactic\b|\bepi-?pen\b"),
        _r(
            r"\bthroat (?:is |feels |is getting |feels like it'?s |feels like it is )?"
            r"(?:closing|swelling(?: up)?|swollen shut|tightening|closing up)\b"
        ),
        # the tongue or lips (a swollen face alone is mumps as often as an allergy)
        _r(
            rf"\b(?:tongue|lips?)\b{_S}{{0,10}}\b(?:swelling|swollen|puffing up|blowing up|"
            r"(?:is|are|has gone|have gone|gone|went|getting)\s+(?:\w+\s+)?(?:huge|massive|enormous))\b"
        ),
        _r(r"\b(?:severe|bad|serious)\s+allergic reaction\b|\ballergic reaction\b.*\b(?:breath|throat|swell)"),
        # "a really bad reaction to penicillin, his face is huge"
        _r(
            rf"\b(?:allergic\s+)?reaction\s+to\b{_S}{{0,50}}\b(?:face|lips?|tongue|throat|eyes)\s+(?:is|are|has|have|"
            r"looks?|went|gone)?\s*(?:\w+\s+)?(?:huge|swollen|swelling|puffed up|puffing up|blown up|massive|closing)\b"
        ),
    ],
}

_PURPLE_RASH = r"(?:purple|purplish|dark red) (?:rash|spots|blotches)"
# "bleeding from", "blood coming out of", "blood in": what comes from an ear after a blow
_EAR_BLOOD = r"(?:bleeding (?:from|out of)|blood (?:is |was )?(?:coming |pouring |dripping |running )?(?:from|out of))"
# Confusion as a relative says it: with a low sugar, the cold or the heat it is an emergency.
# The words that say it alone; "confused" says it of a person ("do you get confused?" asks).
_CONFUSED_SPEECH = (
    r"(?:not making (?:any )?sense|talking nonsense|disoriented|incoherent|"
    r"doesn't know where (?:he|she|they) (?:is|are))"
)
_CONFUSED = rf"(?:confused(?!\s+(?:about|by|with|as to|why|how|what|whether|if|easily)\b)|{_CONFUSED_SPEECH})"

# A blood pressure of 180/120 or more with a sign of harm to the organs is a hypertensive emergency
# (the American Heart Association's advice: call the emergency number). The reading alone, without
# such a sign, is for the doctor today, not for an ambulance, so both must be said.
_PRESSURE = re.compile(r"(?<![\d/.])(\d{2,3})\s*(?:/|over)\s*(\d{2,3})(?![\d/])")
_PRESSURE_CRISIS = (180, 120)
_ORGAN_SIGN = _r(
    r"\b(?:chest pain|chest (?:hurts|is tight)|short(?:ness)? of breath|can't breathe|breathless|back pain|numb\w*|"
    r"weak(?:ness)? (?:in|on)|blurr\w*|vision|can't see|confus\w*|slurr\w*|can't speak|(?:severe|terrible|"
    r"bad|splitting|awful|worst|pounding|excruciating) headache|headache (?:is )?(?:severe|terrible|awful))\b"
)


# Other numbers a frightened user types from a watch or a finger clip: oxygen under 90 % is too little
# by itself; a pulse of 150 or more, or 40 or less, is an emergency with fainting, chest pain or
# breathlessness (the same signs that make a racing heart one above).
_OXYGEN = re.compile(
    r"\b(?:oxygen|o2|sats?|saturation|spo2|sp02|pulse ?ox\w*)\b"
    r"(?!\s+(?:tank|cylinder|concentrator|bottle|machine|supply))[^.!?;\d]{0,30}?(?<![\d.])(\d{2})(?![\d.])"
)
_OXYGEN_LOW = 90
_PULSE = re.compile(
    r"\b(?:heart ?rate|pulse|hr)\b[^.!?;\d]{0,20}?(?<![\d.])(\d{2,3})(?![\d.])|(?<![\d.])(\d{2,3})\s*bpm\b"
)
_PULSE_LIMITS = (40, 150)
_PULSE_SIGN = _r(
    r"\b(?:faint\w*|pass(?:ed|ing)? out|black(?:ing)? out|dizzy|light-?headed|collaps\w*|chest pain|chest hurts|"
    r"short(?:ness)? of breath|can't breathe|breathless|confus\w*)\b"
)


def _vital_crisis(clauses: list[str]) -> str | None:
    """Oxygen under 90 %, or a pulse of 150+ or 40- with a sign, said now."""
    for clause in clauses:
        for match in _OXYGEN.finditer(clause):
            if 50 <= int(match.group(1)) < _OXYGEN_LOW and _now(clause, match.start(), match.end()):
                return match.group(0)
        for match in _PULSE.finditer(clause):
            rate = int(match.group(1) or match.group(2))
            low, high = _PULSE_LIMITS
            if (20 <= rate <= low or high <= rate <= 300) and _now(clause, match.start(), match.end()):
                sign = _found([_PULSE_SIGN], clauses)
                if sign:
                    return f"{match.group(0)} + {sign}"
    return None


def _pressure_crisis(clauses: list[str]) -> str | None:
    """A reading of 180/120 or more said now, with a sign of harm to the organs in the same message."""
    for clause in clauses:
        for match in _PRESSURE.finditer(clause):
            systolic, diastolic = int(match.group(1)), int(match.group(2))
            # a blood pressure at all: the higher number first, within what a cuff can read
            if not (60 <= diastolic < systolic <= 300):
                continue
            if (systolic >= _PRESSURE_CRISIS[0] or diastolic >= _PRESSURE_CRISIS[1]) and _now(
                clause, match.start(), match.end()
            ):
                sign = _found([_ORGAN_SIGN], clauses)
                if sign:
                    return f"{match.group(0)} + {sign}"
    return None


# Two things said in one sentence that make an emergency together, often with a comma between them
# ("he hit his head, he's bleeding and confused"; "I'm allergic to peanuts and just ate one, my
# throat feels tight"): read per sentence, where the patterns above are read per clause.
ACROSS_CLAUSES: dict[str, list[re.Pattern[str]]] = {
    # "it feels like an elephant is sitting on my chest": how people describe a heart attack, read
    # with the whole sentence ("... when I walk uphill, it feels like ..." is angina, for a booking)
    "heart": [
        _r(
            r"\b(?:elephant|weight|something heavy|a ton of bricks|someone)\s+(?:is\s+)?(?:sitting|standing|pressing|"
            r"crushing|squeezing)\s+(?:on\s+)?(?:my|his|her|their)\s+chest\b"
            r"|\belephant\b[^.!?;]{0,20}\bon\s+(?:my|his|her|their)\s+chest\b"
            r"|\b(?:someone|something)\s+(?:is\s+)?(?:squeezing|crushing|gripping)\s+(?:my|his|her|their)\s+(?:heart|chest)\b"
        ),
        # a heart attack felt in the jaw and the arm, without the chest: "my jaw and left arm hurt and I
        # feel sick and sweaty"
        _r(
            rf"\b(?:jaw|arm)\b{_S}{{0,20}}\b(?:arm|jaw)\b{_S}{{0,20}}\b(?:hurt\w*|pain\w*|aches?|aching)\b{_S}{{0,40}}"
            r"(?<!no )(?<!not )\b(?:sweat\w*|clammy|(?:feel|feeling|felt) sick|"
            r"nausea|nauseous|nauseated|short of breath|dizzy|faint)\b"
        ),
    ],
    # a racing heart with fainting coming: an arrhythmia ("my heart is going like 200 and I feel like I'm
    # going to pass out"), in either order
    # a fall or a collapse, then not talking or moving: "my husband just fell down and he is not talking"
    "unconscious": [
        _r(
            r"\b(?:(?:fell|fallen)(?! asleep| for| out| behind| in love| apart| pregnant| ill| sick)|"
            rf"{_COLLAPSED}|fainted|"
            rf"passed out|hit (?:his|her|their) head)\b{_S}{{0,40}}"
            r"\b(?:(?:he|she|they)(?:'s|'re| is| are)?|and(?: is|'s)?)\s+(?:not|isn't|aren't|won't|can't|cannot)\s+"
            r"(?:talking|speaking|moving|answering|responding|talk|speak|move|answer|respond)\b"
            r"(?! (?:to|with) (?:me|us|anyone|anybody|him|her|them)| about)"
        ),
    ],
    "palpitations": [
        _r(
            r"\b(?:heart|pulse|heartbeat|heart rate)\s+(?:is\s+|'s\s+)?(?:racing|pounding|hammering|"
            r"going (?:like )?(?:crazy|mad|nuts|\d{3})|"
            r"beating (?:so |really |very )?(?:fast|hard|irregular\w*|weird\w*)|"
            r"(?:really |very |so )?(?:irregular|weak|thready)|all over the place|at \d{3}|over \d{3}|"
            r"(?:beating|going|racing)\s+at\s+(?:over\s+)?\d{3})\b"
            rf"{_S}{{0,60}}\b(?:(?:going to|about to|gonna)\s+(?:pass out|faint|black out|collapse)|"
            r"(?:i'll|i will|he'll|she'll)\s+(?:pass out|faint|black out|collapse)|"
            r"(?:feel|feeling|i'm|am)\s+(?:very |really |so )?(?:faint|like fainting))\b"
        ),
        _r(
            r"\b(?:(?:going to|about to|gonna)\s+(?:pass out|faint|black out|collapse)|"
            rf"(?:feel|feeling|i'm|am)\s+(?:very |really |so )?faint)\b{_S}{{0,60}}"
            r"\b(?:heart|pulse|heartbeat|heart rate)\s+(?:is\s+|'s\s+)?(?:racing|pounding|hammering|"
            r"going (?:like )?(?:crazy|mad|nuts|\d{3})|beating (?:so |really |very )?(?:fast|hard)|"
            r"at \d{3}|over \d{3})\b"
        ),
    ],
    # fainted, then shaking all over: a seizure ("my wife faint and now she is shaking all body")
    "seizure": [
        _r(
            rf"\b(?:faint\w*|passed out|collapsed|fell down)\b{_S}{{0,40}}\b(?:shaking|jerking|twitching)\s+"
            r"(?:all over|all (?:her|his|their|the) body|all body|(?:her|his|the) whole body|uncontrollably)\b"
        ),
    ],
    # a blow to the head and then confusion, drowsiness, vomiting, bleeding
    "injury": [
        _r(
            rf"\b(?:hit|banged|bumped|knocked|hurt|struck)\s+(?:on\s+)?(?:his|her|my|their|the)\s+head\b{_S}{{0,60}}"
            r"(?<!no )(?<!not )(?<!without )(?<!isn't )"
            r"\b(?:not making sense|confused|drowsy|(?:very |really |so )?sleepy|being sick|vomiting|throwing up|"
            r"bleeding|knocked out|won't wake|can't wake|seeing double|double vision|"
            r"vision is (?:double|blurry|blurred)|can't see (?:properly|straight|clearly))\b"
        ),
        # a fall, then drowsy, confused or sick: a head hurt in it ("the baby fell off the bed and is very drowsy")
        _r(
            r"\b(?:fell|fallen|falling)(?! asleep| ill| sick| pregnant| behind| in love| apart| for| out| through)\b"
            rf"{_NOT_PAST_BETWEEN}{{0,50}}(?<!no )(?<!not )(?<!without )(?<!isn't )"
            r"\b(?:(?:very |really |so )?(?:drowsy|sleepy)|vomiting|throwing up|being sick|confused|not making sense)\b"
        ),
        # an attack, then bleeding or unconscious: "my dad was attacked and is bleeding from the head"
        _r(
            r"\b(?:attacked|assaulted|beaten up|beaten|mugged|punched|kicked|jumped)\b"
            rf"{_S}{{0,40}}(?<!no )(?<!not )(?<!isn't )"
            r"\b(?:bleeding|blood|unconscious|knocked out|not moving|not breathing|won't wake|can't wake)\b"
        ),
        # a fall or a blow, then blood from the head ("grandad has fallen and there's blood coming from his head")
        _r(
            rf"\b(?:fell|fall|fallen|falling|hit|banged|knocked|collapsed)\b{_S}{{0,60}}"
            r"\b(?:blood\s+(?:is\s+)?(?:coming|pouring|gushing|running)?\s*(?:from|out of)\s+"
            r"(?:his|her|my|their|the)\s+head|"
            r"(?:his|her|my|their)\s+head\s+(?:is\s+|'s\s+)?(?:bleeding|pouring blood|covered in blood)|"
            r"(?<!no )(?<!not )(?<!without )bleeding\s+(?:from|out of)\s+(?:his|her|my|their|the)\s+head|"
            # "he fall and head blood coming"
            r"head\s+(?:is\s+)?blood\s+(?:is\s+)?(?:coming|pouring|everywhere)|head\s+bleeding)\b"
        ),
        # a limb bent out of shape: a displaced fracture ("I broke my leg, it's bent the wrong way")
        _r(
            rf"\b(?:leg|arm|ankle|wrist|knee|elbow|shoulder|hip|bone|thigh|shin)s?\b{_S}{{0,50}}"
            r"\b(?:(?:bent|twisted|pointing|facing|turned)\s+(?:the\s+)?wrong\s+way|"
            r"at\s+(?:a|an)\s+(?:funny|weird|odd|strange|awkward|unnatural|horrible)\s+angle)\b"
        ),
        # a fall and then legs or arms that will not move: a spine hurt ("a bad fall and mum can't move her legs")
        _r(
            rf"\b(?:fell|fall|fallen|falling)\b{_S}{{0,60}}(?<!no )(?<!not )"
            r"\b(?:can't|cannot|unable to|couldn't)\s+(?:move|feel)\s+(?:my|his|her|their)\s+(?:legs|arms|neck|body)\b"
            # not a limit that lasts: "can't move my legs as well as before"
            r"(?!\s+(?:as well|as much|as easily|properly|very well|much|like (?:i|he|she|they) used to|at night))"
        ),
        # the other way round: "can't feel my legs after the fall"
        _r(
            r"\b(?:can't|cannot|unable to|couldn't)\s+(?:move|feel)\s+(?:my|his|her|their)\s+(?:legs|arms|neck|body)\b"
            rf"{_S}{{0,30}}\b(?:after|since)\s+(?:the|a|my|his|her|their|that)\s+(?:bad\s+|big\s+)?(?:fall|crash|accident)\b"
        ),
        # a burn over a whole limb or the body: "burned my whole arm with boiling oil"
        _r(
            r"\bburn(?:ed|t|s)?\s+(?:my|his|her|their|the)\s+(?:whole|entire)\s+(?:arm|leg|back|chest|face|body|hand|side|"
            r"belly|stomach)\b|\b(?:boiling|hot)\s+oil\b[^.!?;]{0,30}\b(?:face|all over|whole|entire)\b"
        ),
        # a scald over a large area, or on a small child: "spilled boiling water all over my child"
        _r(
            rf"\b(?:boiling|scalding)\s+(?:hot\s+)?(?:water|oil|fat|tea|coffee|soup|kettle)\b{_S}{{0,40}}"
            rf"\b(?:all over|(?:his|her|their|my) (?:face|chest|body|whole)"
            rf"|{_CHILD}|(?:my|our) (?:baby|toddler|newborn))\b"
            rf"|\b{_CHILD}\b{_S}{{0,40}}\b(?:scald\w*|burn\w*)\b{_S}{{0,30}}\b(?:boiling|scalding)\b"
        ),
    ],
    # a dose taken twice or more, then faint, confused or drowsy: "mum took double her heart tablets and is
    # very dizzy" (a double dose alone is for the pharmacist, not an ambulance)
    "poisoning": [
        _r(
            rf"\b(?:took|taken|had|given|swallowed)\b{_S}{{0,25}}\b(?:double|twice|two doses|three doses|extra doses|"
            rf"an extra dose|(?:two|three|four) times)\b{_S}{{0,50}}(?<!no )(?<!not )(?<!isn't )(?<!without )"
            r"\b(?:(?:very |really |so )?(?:dizzy|faint|drowsy|confused|shaky and confused)|unconscious|collapsed|"
            r"passing out|can't wake|won't wake|not making sense|"
            r"(?:heart|pulse) (?:is )?(?:very |really )?(?:slow|racing))\b"
        ),
    ],
    # blood sugar, high or low, with confusion or drowsiness: a diabetic emergency (not "confused
    # about my readings")
    "sugar": [
        _r(
            r"\b(?:blood sugar|sugar levels?|sugars?|glucose|hypo|hypoglyc\w*|hyperglyc\w*)\b[^!?;]{0,50}"
            r"\b(?:(?:i'm|i am|i feel|he's|she's|they're|he is|she is|they are|is|are|am|seems?|getting|gone|went|"
            r"becoming)\s+(?:(?!not\b|no\b|never\b|isn't\b)[\w']+,?\s+){0,3}?"
            r"(?:confused(?!\s+(?:about|by|with|as to|why|how|what|whether|if)\b)|drowsy)"
            rf"|{_CONFUSED_SPEECH}|can't wake|won't wake|unconscious|passing out|fitting|seizing"
            r"|(?:going to|about to|gonna)\s+(?:pass out|faint|black out)"
            r"|can't think (?:straight|clearly)|(?:not|isn't|aren't) thinking (?:straight|clearly))\b"
        ),
        # "I think I'm going to pass out, my sugar is 2.1": fainting coming first, then a very low reading
        # (under 3 mmol/L, or under 50 mg/dL)
        _r(
            rf"\b(?:going to|about to|gonna)\s+(?:pass out|faint|black out|collapse)\b{_S}{{0,60}}"
            r"\b(?:blood sugar|sugar levels?|sugars?|glucose)\s+(?:is\s+|was\s+|of\s+|at\s+|reads?\s+)?(?:only\s+)?"
            r"(?:[0-2](?:\.\d+)?|[1-4]\d)(?![\d.])"
        ),
        # "my husband is diabetic and he's sweating and not making sense": a diabetic person, confused now
        _r(
            rf"\b(?:diabetic|diabetes|insulin)\b{_S}{{0,60}}(?<!no )(?<!not )(?<!never )"
            rf"\b(?:{_CONFUSED_SPEECH}|can't wake|won't wake|unconscious|(?:he's|she's|they're|i'm|is|are|am|gone|"
            r"went|getting|seems?)\s+(?:\w+\s+){0,2}?"
            r"confused(?!\s+(?:about|by|with|as to|why|how|what|whether|if)\b))\b"
        ),
        # "dad is confused, sweating and his sugar is 2.0": the confusion first, then a sugar low or high
        _r(
            rf"\b(?:{_CONFUSED}|drowsy|very sleepy)\b{_S}{{0,50}}\b(?:blood sugar|sugar levels?|sugars?|glucose)\s+"
            r"(?:is\s+|was\s+|of\s+|at\s+)?(?:very\s+|really\s+|dangerously\s+|so\s+)?"
            r"(?:low|high|[0-3](?:\.\d+)?(?![\d.])|[2-9]\d(?:\.\d+)?(?![\d.]))"
        ),
    ],
    # pregnant, with the sight going wrong (often with a severe headache): pre-eclampsia's warning
    # signs. A headache alone in pregnancy is for the midwife or a booking, not an ambulance.
    "pregnancy": [
        # severe pain and bleeding in pregnancy, in either order: an ectopic pregnancy, an abruption
        _r(
            rf"\bpregnant\b{_S}{{0,60}}(?<!no )(?<!not )(?<!without )"
            r"\b(?:severe|terrible|really bad|very bad|extreme|excruciating|awful|agonising|agonizing|unbearable)\s+"
            rf"(?:\w+\s+)?(?:pain|cramps?|cramping)\b{_S}{{0,40}}(?<!no )(?<!not )(?<!without )\b(?:bleed\w*|blood)\b"
            rf"|\bpregnant\b{_S}{{0,60}}(?<!no )(?<!not )(?<!without )\b(?:bleed\w*|blood)\b{_S}{{0,40}}"
            r"(?<!no )(?<!not )(?<!without )\b(?:severe|terrible|really bad|very bad|extreme|excruciating|awful|"
            r"agonising|agonizing|unbearable)\s+(?:\w+\s+)?(?:pain|cramps?|cramping)\b"
        ),
        # swelling of the face or hands with a severe headache (either order)
        _r(
            rf"\bpregnant\b{_S}{{0,80}}(?:\b(?:swell\w*|swollen|puff\w*)\b{_S}{{0,60}}\b(?:severe|terrible|bad|awful|"
            r"worst|blinding|pounding|splitting|really bad)\s+headache\b|\b(?:severe|terrible|bad|awful|worst|blinding|"
            rf"pounding|splitting|really bad)\s+headache\b{_S}{{0,60}}\b(?:swell\w*|swollen|puff\w*)\b)"
        ),
        # late in pregnancy the baby has stopped moving, with bleeding or pain
        _r(
            rf"\bpregnant\b{_S}{{0,60}}\bbaby\s+(?:has\s+)?(?:stopped|isn't|is not|not|hasn't been|hasn't)\s+mov\w*"
            rf"{_S}{{0,40}}\b(?:bleed\w*|blood|pain|cramp\w*)\b"
        ),
        _r(
            rf"\bpregnant\b{_S}{{0,80}}(?<!no )(?<!not )(?<!without )"
            r"\b(?:(?:blurred|blurry|blurring|double)\s+vision|vision\s+(?:is\s+|has\s+|went\s+|going\s+)?"
            r"(?:blurred|blurry|blurring|going|gone)|seeing\s+(?:spots|flashing lights|flashes|stars))\b"
        ),
    ],
    # heat stroke and hypothermia: the heat or the cold, then confusion (or no sweat in the heat)
    "heat_or_cold": [
        _r(
            rf"\b(?:sun|heat|heatwave|hot car|sauna|very hot|overheat\w*|burning (?:up|hot)|boiling hot|red hot|"
            rf"(?:very )?high (?:fever|temperature))\b{_S}{{0,60}}"
            rf"\b(?:{_CONFUSED}|not sweating|stopped sweating|collapsed)\b"
            rf"|\b(?:very cold|freezing|ice cold|hypothermi\w*|frozen)\b{_S}{{0,60}}\b(?:{_CONFUSED}|drowsy|slurr\w*)\b"
        ),
    ],
    # someone trapped by a fire: "the fire spread and my husband is trapped upstairs"
    "fire": [
        _r(
            rf"\bfire\b(?!\s+(?:alarm|drill|door|exit|extinguisher|safety|escape))\b{_S}{{0,60}}"
            r"\b(?:is|are|'s|'re|'m|am|got|still|been)\s+trapped\b"
            rf"|\b(?:is|are|'s|'re|'m|am|got|still|been)\s+trapped\b{_S}{{0,60}}"
            r"\bfire\b(?!\s+(?:alarm|drill|door|exit|extinguisher|safety|escape))"
        ),
    ],
    # speech gone wrong with an arm that will not lift, either order: a stroke
    "stroke": [
        _r(
            r"\b(?:can't|cannot|unable to|couldn't)\s+(?:lift|move|use|raise)\s+(?:his|her|their|my)\s+"
            r"(?:arm|leg|hand)\b"
            rf"{_S}{{0,40}}\b(?:speech|talking|voice|words)\s+(?:is\s+|are\s+|sounds?\s+|seems?\s+)?(?:\w+\s+)?"
            r"(?:off|slurred|weird|funny|strange|wrong|odd|mixed up|muddled)\b"
            r"|\b(?:speech|talking|voice|words)\s+(?:is\s+|are\s+|sounds?\s+|seems?\s+)?(?:\w+\s+)?"
            rf"(?:off|slurred|weird|funny|strange|wrong|odd|mixed up|muddled)\b{_S}{{0,40}}"
            r"\b(?:can't|cannot|unable to|couldn't)\s+(?:lift|move|use|raise)\s+(?:his|her|their|my)\s+"
            r"(?:arm|leg|hand)\b"
        ),
    ],
    # a fall, then a bleeding head or no answer
    "fall": [
        _r(
            rf"\b(?:fell|fallen|collapsed|had a (?:bad |nasty |big )?fall)\b{_NOT_PAST_BETWEEN}{{0,40}}"
            r"\b(?:bleeding from|cut|gash on|wound on)\s+"
            r"(?:his|her|their|the|my)\s+head\b"
            # "he's bleeding from his head after a fall"
            r"|\bbleeding\s+(?:from|out of)\s+(?:his|her|their|the|my)\s+head\b"
            rf"{_NOT_PAST_BETWEEN}{{0,40}}\b(?:a fall|fell|fallen|falling|hit|a crash|an accident)\b"
            rf"|\b(?:fell|fallen|collapsed)\b{_NOT_PAST_BETWEEN}{{0,60}}\b(?:won't|isn't|is not|not|doesn't|can't)\s+"
            r"(?:answer(?:ing)?|respond(?:ing)?)\s+(?:me|us|when)\b"
        ),
    ],
    # a belly gone hard as a board, with pain: peritonitis (a burst gut or appendix)
    "abdomen": [
        _r(
            r"\b(?:pain\w*|hurt\w*|agony)\b[^.!?;]{0,60}"
            r"\b(?:belly|stomach|abdomen|tummy)\s+(?:is\s+|feels\s+|has gone\s+|went\s+)?"
            r"(?:(?:really|very|so)\s+)?(?:rock[- ]hard|rigid|hard as (?:a )?(?:rock|board|brick))\b"
            r"|\b(?:belly|stomach|abdomen|tummy)\s+(?:is\s+|feels\s+|has gone\s+|went\s+)?(?:(?:really|very|so)\s+)?"
            r"(?:rock[- ]hard|rigid|hard as (?:a )?(?:rock|board|brick))\b[^.!?;]{0,60}(?<!no )(?<!not )(?<!without )"
            r"\b(?:pain\w*|hurt\w*|agony)\b"
        ),
    ],
    # the bladder or bowel lost with the legs numb or weak: a compressed spinal cord (cauda equina)
    "spine": [
        _r(
            r"\b(?:lost control of|losing control of|can't control|cannot control|no control (?:of|over))\s+"
            rf"(?:my|his|her|their)\s+(?:bladder|bowels?)\b{_S}{{0,60}}\b(?:legs?|groin|bottom|saddle)\b"
            rf"{_S}{{0,20}}\b(?:numb\w*|weak\w*|dead|tingling|tingly|can't (?:move|feel))\b"
            rf"|\b(?:numb\w*|weak\w*)\b{_S}{{0,30}}\b(?:legs?|groin|bottom|saddle)\b{_S}{{0,60}}"
            r"\b(?:lost control of|losing control of|can't control|cannot control|no control (?:of|over))\s+"
            r"(?:my|his|her|their)\s+(?:bladder|bowels?)\b"
        ),
    ],
    # a fever with a stiff neck and a purple rash, or a rash "under the glass" (either order)
    "meningitis": [
        _r(
            rf"\b(?:stiff neck|fever|temperature)\b{_S}{{0,80}}\b{_PURPLE_RASH}\b"
            rf"|\b{_PURPLE_RASH}\b{_S}{{0,80}}"
            r"\b(?:stiff neck|fever|temperature|(?:very |really )?(?:drowsy|sleepy)|floppy|"
            r"hard to wake|confused)\b"
        ),
    ],
    # a fall or a blow, then bleeding from an ear (either order)
    "head injury": [
        _r(
            rf"\b(?:fell|fall|fallen|hit|hitting|banged|bumped|knocked|accident|crash)\b{_S}{{0,60}}\b{_EAR_BLOOD} "
            r"(?:his|her|my|their|the|an?) ears?\b"
            rf"|\b{_EAR_BLOOD} (?:his|her|my|their|the|an?) ears?\b{_S}{{0,30}}"
            r"\b(?:fell|fall|fallen|hit|hitting|banged|bumped|knocked|accident|crash)\b"
        ),
    ],
    # something eaten or a sting, then a tight or swelling throat, swelling lips or wheezing
    "anaphylaxis": [
        _r(
            rf"\b(?:ate|eaten|eating|stung|sting|peanuts?|nuts|shellfish|antibiotics?|penicillin|injection|jab)\b{_S}{{0,60}}"
            r"(?<!no )(?<!not )(?<!without )"
            r"\b(?:(?:face|lips?|tongue|throat|mouth)\s+(?:is\s+|are\s+)?(?:swelling|swollen|puffing up)|wheez\w*"
            r"|throat\s+(?:is\s+|feels\s+|is getting\s+)?(?:tight|tightening|closing))\b"
            rf"|\b(?:trouble|difficulty|problems?|struggling)\s+(?:breathing|to breathe)\b{_S}{{0,40}}"
            r"\b(?:(?:after|since)\s+(?:eating|being stung|a (?:bee|wasp) sting)|after taking)\b"
        ),
        # the other way round: "my face is swelling and I can't swallow after the bee sting"
        _r(
            r"(?<!no )(?<!not )\b(?:(?:face|lips?|tongue|throat|mouth)\s+(?:is\s+|are\s+)?"
            r"(?:swelling|swollen|puffing up)|throat\s+(?:is\s+|feels\s+|is getting\s+)?(?:tight|tightening|closing)"
            r"|can't swallow|wheez\w*)\b"
            rf"{_S}{{0,60}}\b(?:after|since|from)\s+(?:the\s+|a\s+|that\s+|being\s+|my\s+|taking\s+(?:the\s+|my\s+|a\s+)?)?"
            r"(?:new\s+|first\s+)?(?:(?:bee|wasp|hornet)\s+)?"
            r"(?:sting|stung|eating|ate|peanuts?|nuts|shellfish|shrimp|prawns|antibiotics?|penicillin|amoxicillin|"
            r"injection|jab)\b"
        ),
        # "I think I'm having an allergic reaction, my throat feels tight and I'm wheezing"
        _r(
            rf"\ballergic reaction\b{_S}{{0,60}}(?<!no )(?<!not )(?<!without )"
            r"\b(?:throat\s+(?:is\s+|feels\s+|is getting\s+)?(?:tight|tightening|closing|swelling)|wheez\w*"
            r"|(?:lips?|tongue|face)\s+(?:is\s+|are\s+)?(?:swelling|swollen)|can't breathe|struggling to breathe)\b"
        ),
    ],
}

# Going on by its own words, however the rest of the clause reads: "he's had a seizure for more than
# 5 minutes" ("had a seizure" alone is the past), "the fit won't stop". Not when a time in the past
# follows ("... for 10 minutes last year").
_NOT_PAST_AFTER = (
    r"(?![^.!?;]*\b(?:ago|last (?:week|month|year|time)|yesterday|in (?:19|20)\d\d|as a (?:child|kid|baby))\b)"
)
ONGOING: dict[str, list[re.Pattern[str]]] = {
    # heavy bleeding after a birth (a postpartum haemorrhage): the birth is past by its nature, the
    # bleeding is now ("heavy bleeding after giving birth yesterday, feeling faint"); not years ago
    "birth": [
        _r(
            r"\b(?:(?:heavy|heavily|lots of|a lot of|soaking|gushing)\s+(?:\w+\s+){0,2}?(?:bleed\w*|blood)"
            r"|bleed\w*\s+(?:very\s+|really\s+|so\s+)?(?:heavily|a lot|loads))\b[^.!?;]{0,30}?"
            r"\b(?:after|since)\s+(?:giving birth|(?:having|delivering)\s+(?:my|the|her|a)\s+baby|the birth|"
            r"(?:the|my|her)\s+delivery|(?:my|her)\s+c-?section)\b"
            r"(?![^.!?;]*\b(?:ago|last (?:week|month|year|time)|in (?:19|20)\d\d|"
            r"with (?:my|her) (?:first|last|other))\b)"
        ),
    ],
    "seizure": [
        _r(
            r"\b(?:seizures?|fits?|convulsions?|seizing|fitting|convulsing)\b[^.!?;]{0,25}?"
            r"\b(?:for|lasting|lasted|over|longer than|more than)\s+(?:more than\s+|over\s+|about\s+|nearly\s+)?"
            r"(?:[3-9]|\d\d|three|four|five|ten|several|a few)\s+min\w*" + _NOT_PAST_AFTER
        ),
        # "had a fit and is still shaking"
        _r(
            r"\b(?:seizures?|fits?|convulsions?)\b[^.!?;]{0,30}?\b(?:still|keeps?)\s+"
            r"(?:shaking|jerking|twitching|fitting|seizing|convulsing)\b"
        ),
        _r(
            r"\b(?:seizures?|fits?|convulsions?|shaking)\b[^.!?;]{0,15}?"
            r"\b(?:isn't|is not|won't|will not|hasn't|has not|not|doesn't|does not)\s+stop(?:ping|ped)?\b"
            r"(?!\s+(?:him|her|me|them|us|my|his)\b)" + _NOT_PAST_AFTER
        ),
    ],
}

# --- what makes a match not an emergency now -----------------------------------------------------

# A negation in the few words before a match: "no chest pain", "I don't need an ambulance".
_NEGATION = re.compile(
    r"\b(?:no|not|never|without|nor|don't|doesn't|didn't|haven't|hasn't|hadn't|wasn't|weren't|"
    r"deny|denies|denied|free of|no longer|ruled out|negative for)\b(?:\s+(?!and\b|or\b)[^\s,]+){0,3}\s*$"
)
# A negation after it: "the chest pain is gone", "the bleeding has stopped".
_NEGATED_AFTER = re.compile(
    r"^\W*(?:\w+\W+){0,3}(?:is|has|was|have|had)?\s*"
    # not when it is denied: "chest pain that won't go away", "the bleeding hasn't stopped"
    r"(?<!won't )(?<!wont )(?<!doesn't )(?<!didn't )(?<!not )(?<!never )(?<!hasn't )(?<!haven't )(?<!isn't )"
    r"(?<!won't get )(?<!isn't getting )(?<!not getting )(?<!never gets )"
    r"(?:gone(?!\s+(?:weak|numb|limp|dead|blue|grey|gray|pale|floppy|"
    r"cold|stiff|heavy))|went away|go away|stopped|resolved|passed|better|settled)\b"
)
# Said now: these bring a past, general or lasting clause back to the present.
_NOW = re.compile(
    # "for weeks now" is how long, not now
    r"\b(?:(?<!weeks )(?<!months )(?<!years )(?<!week )(?<!month )(?<!year )now|"
    r"right now|just now|currently|at the moment|again|still|suddenly|all of a sudden|this minute|"
    r"as we speak|happening|i'm having|is having|are having|am having|'s having|keeps?)\b"
)
# Said of the past: "last month", "two years ago", "in 2019", "I had a stroke", "after my stroke".
# "since yesterday" and "since last night" are not past: the thing goes on.
_PAST = re.compile(
    # minutes or hours ago is still now: "I took 30 paracetamol an hour ago"
    r"\b(?:(?<!minutes )(?<!minute )(?<!mins )(?<!min )(?<!hours )(?<!hour )(?<!hrs )(?<!hr )ago|"
    r"previously|in the past|a while back|history of|used to|once had|years back|survivor|"
    r"died|passed away|when i was|as a (?:child|kid|baby)|since (?:birth|i was born|childhood)|"
    r"(?<!since )(?<!from )yesterday|(?<!since )(?<!from )last (?:night|week|month|year|time|summer|winter|spring|"
    r"autumn|fall|weekend|\w+day)|the other day|in (?:19|20)\d\d|(?:after|since) (?:my|his|her|their) "
    r"(?:stroke|heart attack|seizure|overdose)|"
    # "I think I've had a stroke", "she may have had a seizure": suspected now, not the past
    r"(?<!think i've )(?<!think i )(?<!think he's )(?<!think she's )(?<!think they've )(?<!think he has )"
    # "we think nan's had a heart attack", "I think my dad's had a stroke" (a name of three to seven letters)
    r"(?<!think [a-z]{3}'s )(?<!think [a-z]{4}'s )(?<!think [a-z]{5}'s )(?<!think [a-z]{6}'s )(?<!think [a-z]{7}'s )"
    r"(?<!think my [a-z]{3}'s )(?<!think my [a-z]{4}'s )(?<!think my [a-z]{5}'s )(?<!think my [a-z]{6}'s )"
    r"(?<!think my [a-z]{7}'s )"
    r"(?<!think she has )(?<!may have )(?<!might have )(?<!could have )(?<!must have )"
    r"had (?:an? |some |bad |severe |mild |my )?"
    r"(?:stroke|mini[- ]stroke|tia|heart attack|seizure|fit|chest pains?|overdose|allergic reaction|anaphyla\w+))\b"
)
# Information about emergencies in general: "what are the signs of a stroke?", "what should I
# do if someone has a heart attack?". "if my husband ..." is not general: it errs toward the SOS.
_GENERAL = re.compile(
    r"\b(?:signs? of|symptoms? of|signs and symptoms|warning signs|what causes|causes of|can \w+ cause|"
    r"how (?:do|can|would|will) (?:i|you|one|we) (?:know|tell|recognise|recognize|spot|prevent)|"
    r"how to (?:tell|know|recognise|recognize|spot|treat|prevent|help|give|do)|"
    r"what (?:is|are) (?:the )?(?:signs?|symptoms?|causes?|risks?|first aid)|first aid|"
    r"what (?:should|do|can) (?:i|you|one|we) do (?:if|when|in case) (?:someone|somebody|a person|anyone|you|one|"
    r"a (?:child|baby|man|woman|friend|patient|family member))|"
    r"if (?:someone|somebody|a person|anyone|you|one) (?:has|have|is|are|gets?|starts?)|what if|in case of|"
    r"in the event of|in an emergency|what (?:counts|qualifies) as|"
    r"(?:worried|scared|afraid|frightened|anxious|nervous|concerned|paranoid) (?:about|of|that i (?:might|will|could)) "
    r"(?:having|getting|have|get)|(?<!for )(?<!since )one day(?! ago)|some ?day|in the future|"
    r"risk|prevent\w*|learn|course|training|article|research)\b"
)
# A question about anyone at all: "how do I know if someone is having a stroke?" asks what to look
# for; "is having" there is not a word of now. A named person ("if my dad is having a stroke") is not
# anyone, and errs toward the SOS.
_ANYONE = re.compile(
    r"\b(?:how|what|when|can|could)\b[^.?!]*\b(?:if|when|whether)\s+(?:someone|somebody|a person|anyone|anybody|"
    r"one|people|a (?:child|baby|man|woman|patient))\s+(?:is|are|has|have|gets?|starts?|goes|collapses|stops)\b"
)
# Lasting or occasional: a booking, not an SOS ("chest pain when I climb stairs").
_LASTING = re.compile(
    r"\b(?:sometimes|often|occasionally|usually|at times|over the (?:years|months|weeks)|for years|"
    r"every (?:now and then|so often|morning|night|day|time|week|month|year|spring|summer|autumn|fall|winter)|"
    r"for (?:the (?:last|past) )?(?:a few |a couple of |several |some |many |\d+ |one |two |three |four |five |six )?"
    r"(?:weeks?|months?|years?)|for (?:a|an|one) (?:week|month|year)|"
    r"when(?:ever)? (?:i|he|she) (?:climb|walk|run|exercise|jog|lie down|sleep|work out|"
    r"go up|breathe|breath|cough|sneeze|lie|sit|kneel|stand up|cross)|"
    r"when(?:ever)? (?:i'm|i am|i get|he's|he is|he gets|she's|she is|she gets) (?:really |very |so )?"
    r"(?:tired|stressed|anxious|cold|hungry|sleepy|upset|nervous|worn out)\b|"
    r"on exertion|at night|in (?:my|his|her) sleep|while (?:i|he|she) sleep|as usual|as always|like always|"
    r"been having(?![^.!?;]*\bfor (?:the (?:last|past) )?(?:(?:an?|one|two|three|few|couple of|half an?|\d+)\s*)?"
    r"(?:minutes?|mins?|hours?|hrs?)\b)|lately|these days|nowadays|chronic|check[- ]?up|follow[- ]?up|"
    r"in the cold(?! water)|"
    r"rehab\w*|recovery|recovering|medication for|tablets for|pills for|period|periods|menstrual|"
    r"through (?:my|his|her|the) nose|blocked nose|stuffy nose|in (?:the )?winter|in cold weather)\b"
)


@dataclass(frozen=True)
class Emergency:
    """Why a message is an emergency request: its group and the words that said it."""

    kind: str  # "request", "chest", or a key of SYMPTOMS
    said: str


def _clauses(text: str) -> list[str]:
    return [part.strip() for part in _CLAUSE_END.split(text) if part and part.strip()]


def _said_now(clause: str, start: int, end: int) -> bool:
    """Whether a word of now reaches the match at ``start:end``: one with no time in the past between
    them. "I was in a car accident last year and my neck still hurts" and "he fainted last week and
    is fine now" are of the past; "he collapsed an hour ago and still isn't responding" is now."""
    pasts = [found.span() for found in _PAST.finditer(clause)]
    for now in _NOW.finditer(clause):
        low, high = (now.end(), start) if now.end() <= start else (end, now.start())
        if not any(low <= past_start and past_end <= high for past_start, past_end in pasts):
            return True
    return False


# The animals patients keep, singular or plural: an emergency of theirs is for a vet (here, and the
# scope guard's answer, agents.scope).
PET = (
    r"(?:pets?|cats?|dogs?|pupp(?:y|ies)|kittens?|hamsters?|rabbits?|bunn(?:y|ies)|horses?|birds?|parrots?|budgies?|"
    r"guinea pigs?|ferrets?|tortoises?|goldfish)"
)
# An animal as the one it happens to: "my cat is choking on a hairball" is for a vet, and the SOS
# would text the emergency contacts for it. "my dog bit my son and he's bleeding" names the person.
_ANIMAL = re.compile(
    rf"\b(?:my|our|the|a|his|her|their) {PET}(?:'s)?(?: (?:is|was|has|just|seems|looks|keeps|started|"
    r"suddenly|been|to be|like it's|like he's|like she's))*\s*$"
)

# "our puppy collapsed and won't wake up": the animal is the subject of the clause, and no person is
# named after it (a person named errs toward the SOS: "my dog knocked grandad over and he isn't moving").
_ANIMAL_FIRST = re.compile(
    rf"^\W*(?:(?:oh|help|please|quick|hi|hey|um|no)\W+)*(?:my|our|the|a) {PET}\b"
    r"(?!.*\b(?:i|i'm|i've|me|he|she|they|we|you|my|his|her|their|someone|somebody|anyone|mum|mom|dad|son|"
    r"daughter|wife|husband|child|baby|kid|grand\w*)\b)"
)


def _now(clause: str, start: int, end: int, *, request: bool = False) -> bool:
    """Whether the match at ``start:end`` of ``clause`` is said of now, affirmed."""
    if _NEGATION.search(clause[:start]) or _NEGATED_AFTER.search(clause[end:]):
        return False
    if request:
        return True  # asked for: a question or a time does not make a request less of one
    if _ANIMAL.search(clause[:start]) or _ANIMAL_FIRST.match(clause[:start]):
        return False
    if _ANYONE.search(clause):
        return False
    if _said_now(clause, start, end):
        return True
    return not (_PAST.search(clause) or _GENERAL.search(clause) or _LASTING.search(clause))


# "I passed out", "I fainted": the user who types it is awake again (a booking); "my wife passed out"
# is an SOS, and so is "I collapsed and can't get up" (the fall pattern).
_TYPED_BY_THEM = re.compile(r"\bi(?:'ve| have| had| keep)?(?: just| nearly| almost| kind of| sort of)?\s*$")


def _found(
    patterns: list[re.Pattern[str]],
    clauses: list[str],
    *,
    request: bool = False,
    awake: bool = False,
    one_time: bool = False,
) -> str | None:
    """The first match of ``patterns`` said now in ``clauses``. ``one_time``: two halves read across
    clauses are of one time, so a time in the past between them parts them ("he hit his head last
    year and now has double vision")."""
    for clause in clauses:
        for pattern in patterns:
            for match in pattern.finditer(clause):
                if awake and _TYPED_BY_THEM.search(clause[: match.start()]):
                    continue
                if one_time and _PAST.search(match.group(0)):
                    continue
                if _now(clause, match.start(), match.end(), request=request):
                    return match.group(0)
    return None


# A cry for help or an ambulance in the languages the language guard recognises (agents.language),
# and in English amid another language ("ambulance bulao"). Without this the English-only reply
# would answer them; here they start the SOS, since the assistant cannot ask what was meant.
_OTHER_LANGUAGE_CRY = re.compile(
    r"\b(?:ambulance|ambulancia|ambul[aâ]ncia|ambulanza|ambulans|krankenwagen|rettungswagen|notarzt|notruf|"
    r"samu|socorro|au secours|[àa] l'aide|aiuto|bachao+|bachaao|sos|911|999|112|108)\b"
)


# Polite words at the end that a request said as the whole message does not need ("911 please thx",
# "hey help me now pls pls").
_CLOSING = re.compile(r"(?:[\s,.!]+(?:please|pls|plz|thanks|thank you|thank u|thx|ty|cheers|x+))+\W*$")


def _bare(said: str) -> str:
    """The message without a greeting in front or thanks at the end ("hi there quick help", "good
    morning hi sos", "um 911 please thx"): what the whole-message requests are read in too."""
    return _CLOSING.sub("", without_opening(said)).strip()


def emergency(text: str) -> Emergency | None:
    """What makes ``text`` an emergency request now, or None."""
    said = normalised(text)[:2000]
    if not said:
        return None
    if not language.understood(text):
        cry = _OTHER_LANGUAGE_CRY.search(str(text).lower().replace("\u2019", "'"))
        return Emergency("request", cry.group(0)) if cry else None
    clauses = _clauses(said)
    # The whole message too: "help!" and "help me now!" end with the mark that makes them urgent.
    found = _found(REQUEST, [*clauses, said, _bare(said)], request=True)
    if found:
        return Emergency("request", found)
    chest = _found([_r(rf"\b(?:{_CHEST})")], clauses)
    if chest:
        if _CHEST_SEVERE.search(said) and _found([_CHEST_SEVERE], clauses):
            return Emergency("chest", chest)
        with_it = _found(_CHEST_WITH, clauses)
        if with_it:
            return Emergency("chest", f"{chest} + {with_it}")
    for kind, patterns in SYMPTOMS.items():
        found = _found(patterns, clauses, awake=kind == "unconscious")
        if found:
            return Emergency(kind, found)
    pressure = _pressure_crisis(clauses)
    if pressure:
        return Emergency("blood_pressure", pressure)
    sentences = [part.strip() for part in _SENTENCE_END.split(said) if part.strip()]
    # the number a few words on, past a comma: "my oxygen is dropping, 85 on my watch"
    vital = _vital_crisis(clauses) or _vital_crisis(sentences)
    if vital:
        return Emergency("vital_signs", vital)
    for kind, patterns in ONGOING.items():
        found = _found(patterns, clauses, request=True)  # a negation still stops it
        if found:
            return Emergency(kind, found)
    for kind, patterns in ACROSS_CLAUSES.items():
        found = _found(patterns, sentences, one_time=True)
        if found:
            return Emergency(kind, found)
    return None


def requested(text: str) -> bool:
    """Whether ``text`` asks for emergency help now (see the module docstring)."""
    return emergency(text) is not None


# --- acting on it ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Started:
    """What the guard did: the hard SOS (None when none could be started), whether this message
    created it, and the reply the user reads (rendered from the alert as recorded)."""

    alert: Alert | None
    created: bool
    reply: str
    summary: str  # for the trajectory: what happened, in a line


def _seconds_left(alert: Alert) -> int:
    """Whole seconds until the countdown ends (0 once it has ended, or for another state)."""
    if alert.state != Alert.State.COUNTDOWN or alert.countdown_ends_at is None:
        return 0
    return max(0, math.ceil((alert.countdown_ends_at - timezone.now()).total_seconds()))


def render_reply(name: str, **context) -> str:
    """``agents/templates/agents/<name>`` on one line, with the emergency number and the SOS page: the
    replies of the guards that speak of emergency help (help now, the SOS cancel, crisis, courtesies)."""
    context |= {"emergency_number": emergency_number(), "sos_page": SOS_PAGE}
    return " ".join(render_to_string(f"agents/{name}", context).split())


def start_sos(user, conversation_id: int | None = None, *, crisis: bool = False) -> Started:
    """Start the user's hard SOS exactly as the SOS button does (``health.sos.press``, the function
    behind ``POST /api/sos/``: the same countdown, cancel, rate limit and start flow), or find the
    one under way; never raises, so the user is always told something true. ``crisis``: the message
    spoke of suicide, and every reply also gives the crisis lines."""
    try:
        alert, created = sos.press(user)
    except sos.SosRateLimited as exc:
        return Started(
            None,
            False,
            render_reply("help_now_not_started.txt", reason=str(exc), crisis=crisis),
            "no SOS: rate limited",
        )
    except Exception as exc:  # noqa: BLE001  (the user must still be told to call for help)
        log.error("help-now guard: starting the hard SOS failed (%s)", type(exc).__name__)
        return Started(
            None,
            False,
            render_reply("help_now_not_started.txt", reason="", crisis=crisis),
            "no SOS: starting it failed",
        )
    AlertEvent.objects.create(
        alert=alert,
        kind="chat_request",
        message="Asked for in the assistant chat." if created else "Asked for again in the assistant chat.",
        data={"conversation": conversation_id, "created": created},
    )
    seconds = _seconds_left(alert)
    if created:
        reply = render_reply("help_now_started.txt", seconds=seconds, crisis=crisis)
        summary = f"hard SOS #{alert.pk} started, {seconds} s countdown"
    else:
        reply = render_reply("help_now_under_way.txt", seconds=seconds, state=alert.state, crisis=crisis)
        summary = f"hard SOS #{alert.pk} already under way ({alert.state}); no second one started"
    return Started(alert, created, reply, summary)


__all__ = ["SOS_PAGE", "Emergency", "Started", "emergency", "normalised", "render_reply", "requested", "start_sos"]
