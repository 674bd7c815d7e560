"""The text side of memory: lemmas, symptom entities and their negation, with spaCy.

``spacy.blank("en")`` (the official pipelines are not on PyPI) with three small components:

- ``memory_lemmas``: a rule lemmatizer. spaCy's own needs the ``spacy-lookups-data`` tables,
  which are not installed; a short irregular table plus suffix rules is enough here because the
  query and every memory item go through the same function, so "aches"/"ached"/"aching" meet.
- ``memory_symptoms``: a lemma ``PhraseMatcher`` over the symptom bank's clinical terms plus a
  hand-written table of everyday words ("tummy ache", "throwing up"). The bank's own lay
  sentences are left out on purpose: the memory evaluation writes its queries from them, and a
  lexicon made of the test sentences would measure nothing.
- ``memory_negation``: NegEx-style scopes (Chapman et al. 2001) on spaCy's ``Matcher``. medspacy's
  ConText does this, but on Python 3.11 it pins spaCy < 3.8 while the prescription reader pins
  3.8.18; the rule set below is the part of ConText this needs: pre-triggers ("no", "not",
  "without", "denies", "n't") negate forward up to a window or a terminator ("but", "however",
  a full stop), post-triggers ("is gone", "went away", "resolved") negate backward.

``analyse(text)`` returns what the indexes need: BM25 tokens (a negated word becomes ``no_word``,
so "no fever" never matches "fever"), the affirmed and negated symptom keys, their body systems,
and the text with negated spans cut out (what the dense encoder embeds).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from spacy.language import Language
from spacy.matcher import Matcher, PhraseMatcher
from spacy.tokens import Doc, Span, Token
from spacy.util import filter_spans

from agents.knowledge import symptom_bank

# Everyday words for bank symptoms (key -> phrases), written for this lexicon, not copied from the
# bank's lay sentences (see the module docstring).
EVERYDAY_FILE = Path(__file__).with_name("everyday.json")
NEGATION_WINDOW = 6  # words a pre-trigger reaches, as in NegEx
PRE_TRIGGERS = (
    "no",
    "not",
    "n't",
    "without",
    "never",
    "deny",
    "denies",
    "denied",
    "nor",
    "free of",
    "absence of",
    "negative for",
    "rule out",
    "ruled out",
    "no longer",
    "no sign of",
)
POST_TRIGGERS = ("be gone", "go away", "went away", "resolve", "clear up", "cleared up", "settle down")
PSEUDO = (
    "not sure",
    "not only",
    "no change",
    "no improvement",
    "not better",
    "no better",
    "not go away",
    "n't go away",
    "not stop",
    "n't stop",
    "not improve",
    "n't improve",
    "not get better",
    "n't get better",
)
TERMINATORS = {
    "but",
    "however",
    "although",
    "though",
    "yet",
    "except",
    "apart",
    "aside",
    "still",
    "which",
    "just",
    "only",
    ".",
}
SENTENCE_END = {".", "!", "?", ";"}

_IRREGULAR = {
    "feet": "foot",
    "teeth": "tooth",
    "children": "child",
    "kids": "kid",
    "was": "be",
    "were": "be",
    "is": "be",
    "am": "be",
    "are": "be",
    "been": "be",
    "'s": "be",
    "'m": "be",
    "'re": "be",
    "has": "have",
    "had": "have",
    "threw": "throw",
    "thrown": "throw",
    "felt": "feel",
    "went": "go",
    "gone": "go",
    "woke": "wake",
    "ca": "can",
    "wo": "will",
    "sat": "sit",
    "lying": "lie",
    "lay": "lie",
    "ate": "eat",
    "eaten": "eat",
    "worse": "bad",
    "worst": "bad",
    "better": "good",
    "best": "good",
    "mice": "mouse",
    "lice": "louse",
    "stools": "stool",
    "eyes": "eye",
    "ears": "ear",
    "legs": "leg",
    "arms": "arm",
    "hands": "hand",
    "aches": "ache",
    "ached": "ache",
    "aching": "ache",
    "achy": "ache",
    "swollen": "swell",
    "itchy": "itch",
    "sicker": "sick",
    "peed": "pee",
    "peeing": "pee",
}
_VOWELS = set("aeiouy")

Token.set_extension("negated", default=False, force=True)
Token.set_extension("trigger", default=False, force=True)
Span.set_extension("negated", default=False, force=True)


def lemma(word: str) -> str:
    """A crude lemma: the same for the usual inflections of a word (see the module docstring)."""
    word = word.lower()
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if len(word) <= 3 or not word.isalpha():
        return word
    for suffix, keep in (("iness", "y"), ("ies", "y"), ("ied", "y")):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            return word[: -len(suffix)] + keep
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            stem = word[: -len(suffix)]
            if not _VOWELS & set(stem):
                return word
            if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
                return stem[:-1]  # running -> run, swelled stays swell
            return _e_restore(stem)
    # "headaches", "aches", "earaches": an ache plus s (not "itches" or "patches", which lose "es")
    if word.endswith("aches") and not word.endswith(("eaches", "oaches")):
        return word[:-1]
    if (word.endswith("es") and word[-3] in "sxz") or word.endswith(("ches", "shes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _e_restore(stem: str) -> str:
    # ached -> ache, wheezing -> wheeze, vomited -> vomit: a silent e came off after a single
    # consonant following a single vowel in a few common shapes.
    if stem.endswith(("ch", "sh")) or stem[-1] in "aeiouwxy":
        return stem
    if len(stem) >= 3 and stem[-1] == "l" and stem[-2] not in _VOWELS and stem[-2] != "l":
        return stem + "e"  # tingling -> tingle, trembling -> tremble
    if len(stem) >= 3 and stem[-2] in _VOWELS and stem[-3] not in _VOWELS and stem[-1] in "cgkvz":
        return stem + "e"
    if stem.endswith(("ez", "iz", "at", "ur", "ag", "ik", "yz", "ac", "us", "bl", "ncl", "ibl", "tl", "dl")):
        return stem + "e"
    return stem


@Language.component("memory_lemmas")
def _lemmas(doc: Doc) -> Doc:
    for token in doc:
        token.lemma_ = lemma(token.text)
    return doc


@Language.factory("memory_symptoms")
def _symptoms_factory(nlp: Language, name: str):
    matcher = PhraseMatcher(nlp.vocab, attr="LEMMA")
    lemmatise = _lemmas
    for key, phrases in lexicon().items():
        matcher.add(key, [lemmatise(nlp.make_doc(phrase)) for phrase in phrases])

    def component(doc: Doc) -> Doc:
        spans = [Span(doc, start, end, label="SYMPTOM", kb_id=match_id) for match_id, start, end in matcher(doc)]
        doc.ents = filter_spans(spans)  # the longest wins: "abdominal pain" over "pain"
        return doc

    return component


@Language.factory("memory_negation")
def _negation_factory(nlp: Language, name: str):
    matcher = Matcher(nlp.vocab)
    for label, phrases in (("PRE", PRE_TRIGGERS), ("POST", POST_TRIGGERS), ("PSEUDO", PSEUDO)):
        matcher.add(label, [[{"LEMMA": lemma(word)} for word in phrase.split()] for phrase in phrases])

    def component(doc: Doc) -> Doc:
        found = filter_spans(Span(doc, s, e, label=m) for m, s, e in matcher(doc))
        for trigger in found:
            if trigger.label_ == "PRE":
                for token in trigger:
                    token._.trigger = True
                _negate_forward(doc, trigger.end)
            elif trigger.label_ == "POST":
                _negate_backward(doc, trigger.start)
        for ent in doc.ents:
            ent._.negated = any(token._.negated for token in ent)
        return doc

    return component


def _negate_forward(doc: Doc, start: int) -> None:
    _negate(doc[start:], NEGATION_WINDOW)


def _negate_backward(doc: Doc, end: int) -> None:
    _negate(reversed(doc[:end]), 4)


def _negate(tokens, window: int) -> None:
    """Mark up to ``window`` words as negated, walking ``tokens`` until a terminator or a sentence end."""
    words = 0
    for token in tokens:
        if token.lower_ in TERMINATORS or token.text in SENTENCE_END:
            return
        if token.is_punct:
            continue
        token._.negated = True
        words += 1
        if words >= window:
            return


@cache
def lexicon() -> dict[str, tuple[str, ...]]:
    """Symptom key -> the phrases that name it (the bank's clinical term plus everyday words)."""
    bank = symptom_bank()
    found: dict[str, list[str]] = {key: [symptom.clinical] for key, symptom in bank.symptoms.items()}
    everyday = json.loads(EVERYDAY_FILE.read_text(encoding="utf-8"))["words"]
    for key, phrases in everyday.items():
        found.setdefault(key, []).extend(phrases)
    return {key: tuple(dict.fromkeys(phrases)) for key, phrases in found.items()}


@cache
def body_systems() -> dict[str, str]:
    """Symptom key -> its body system (the bank's group)."""
    from agents.knowledge import SYMPTOM_BANK

    groups = json.loads(SYMPTOM_BANK.read_text(encoding="utf-8"))["symptoms"]
    return {row["key"]: group for group, rows in groups.items() for row in rows}


@cache
def pipeline() -> Language:
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("memory_lemmas")
    nlp.add_pipe("memory_symptoms")
    nlp.add_pipe("memory_negation")
    return nlp


@dataclass(frozen=True)
class Analysis:
    tokens: tuple[str, ...]  # BM25 terms: lemmas without stop words; negated ones as "no_<lemma>"
    concepts: frozenset[str]  # affirmed symptom keys
    negated: frozenset[str]  # negated symptom keys
    systems: frozenset[str]  # body systems of the affirmed symptoms
    affirmed_text: str  # the text without its negated words (what the encoder embeds)


def analyse(text: str) -> Analysis:
    """Lemmas, symptoms and negation of ``text`` (cached: items are analysed once per change)."""
    return _analyse(text[:4000])


@lru_cache(maxsize=20_000)  # bounded: a long-running worker sees many texts
def _analyse(text: str) -> Analysis:
    doc = pipeline()(text)
    tokens = []
    for token in doc:
        if token.is_punct or token.is_space or token.is_stop or token._.trigger or not token.lemma_.strip():
            continue
        tokens.append(f"no_{token.lemma_}" if token._.negated else token.lemma_)
    affirmed = {ent.kb_id_ for ent in doc.ents if not ent._.negated}
    negated = {ent.kb_id_ for ent in doc.ents if ent._.negated} - affirmed
    systems = body_systems()
    kept = " ".join(token.text for token in doc if not token._.negated and not token._.trigger)
    return Analysis(
        tokens=tuple(tokens),
        concepts=frozenset(affirmed),
        negated=frozenset(negated),
        systems=frozenset(systems[key] for key in affirmed if key in systems),
        affirmed_text=re.sub(r"\s+([,.;!?])", r"\1", kept).strip(),
    )
