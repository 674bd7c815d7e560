"""The recogniser's output decoded with the prescription vocabulary in mind.

EasyOCR decodes each box greedily: the likeliest character at every time step. On handwriting that
turns one faint stroke into a wrong letter ("Cactulose", "nonths", "2CC ng"), and the extractor's edit
distance, which sees letters only, cannot tell a slip of the pen from another word. The recogniser
knows better: it scores every character at every step, so how well a word the page is likely to
hold (a medicine of the lexicon, a direction word, a unit) explains the same strokes is one CTC
forward pass away. A word is replaced only when a vocabulary word explains its strokes nearly as
well as the greedy reading (within ``margin`` nats), so a letter the recogniser was sure of is
kept, and a word nothing in the vocabulary is near (a patient's name, an address) is left as read.

This is EasyOCR's own hook for lexicon decoding (``decoder="wordbeamsearch"`` calls the converter's
``decode_wordbeamsearch`` with the probability matrix). EasyOCR's implementation is not used: it
keeps a word only when one of the 20 best beams is spelled exactly as a dictionary word, case and
punctuation included, which on handwriting almost never happens.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from health.scheduler.extract import DIGIT_FOR_LOOKALIKE, DIRECTION_WORDS, FORMS, RULE_LETTERS, UNITS, lookalike_digits
from health.scheduler.lexicon import load_lexicon

# How much less likely (in nats) than the greedy reading a vocabulary word may be and still be read:
# chosen on handwriting-like pages of a development seed (field F1 at 2 / 4 / 6 / 8 / 10 / 12:
# 0.773 / 0.803 / 0.830 / 0.846 / 0.840 / 0.829; from 12 on, wrong medicine names appear). The
# vocabulary is small and the candidates near the greedy reading, so even this margin keeps a clear
# reading: a word is replaced only where the recogniser itself was torn.
MARGIN = 8.0
AFTER_NUMBER = (*UNITS, "tab", "cap")  # what a short word after a number is: "5 mg", "1 tab"
# Every letter a hand's digit is read as: the candidates are scored against the strokes, so none is left out.
_LOOKALIKE_LETTERS = "".join(letter for letter in DIGIT_FOR_LOOKALIKE if letter not in "]!")
DIGIT_LOOKALIKES = lookalike_digits(_LOOKALIKE_LETTERS)
_NUMBER_CHARS = set("0123456789.,/") | set(_LOOKALIKE_LETTERS)
_CORE = re.compile(r"^([^A-Za-z]*?)([A-Za-z]+)([^A-Za-z]*)$")


# Ordinary words of directions, so that one written as such is left alone ("week" is not a slip of
# "weeks").
PLAIN_WORDS = (
    "take give every evening noon mouth empty stomach water times hour week weekly monthly when needed "
    "pain fever apply continue review refills"
).split()


@cache
def vocabulary() -> tuple[str, ...]:
    """Words of four letters or more that a prescription's medicines and directions are written in:
    every word of the lexicon's names, the direction words, the dosage forms and PLAIN_WORDS."""
    words = set(DIRECTION_WORDS) | {w for w in FORMS if w.isalpha()} | set(PLAIN_WORDS)
    for name in load_lexicon().names:
        words.update(re.split(r"[\s\-/+&]+", name))
    return tuple(sorted(w for w in words if len(w) >= 4 and w.isalpha()))


def _cased(word: str, like: str) -> str:
    if like.isupper() and len(like) > 1:
        return word.upper()
    if like[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


@dataclass
class _Segment:
    start: int  # first time step
    stop: int  # one past the last
    text: str  # greedy reading


class LexiconDecoder:
    """Stands in for EasyOCR's converter's ``decode_wordbeamsearch``; everything else is delegated."""

    def __init__(self, converter: Any, margin: float = MARGIN):
        self._converter = converter
        self.margin = margin
        self._index = {ch: i for i, ch in enumerate(converter.character)}
        self._space = self._index.get(" ")
        self._local = threading.local()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._converter, name)

    @contextmanager
    def recording(self) -> Iterator[set[str]]:
        """Collects, for the reads inside the block (this thread's), the words chosen over the greedy
        reading: the review shows their lines as ones to check against the photo."""
        self._local.chosen = chosen = set()
        try:
            yield chosen
        finally:
            self._local.chosen = None

    # -- the hook -----------------------------------------------------------------------------------

    def decode_wordbeamsearch(self, mat: np.ndarray, beamWidth: int = 5) -> list[str]:  # EasyOCR's signature
        return [self.decode(row) for row in mat]

    # -- one box ------------------------------------------------------------------------------------

    def decode(self, probs: np.ndarray) -> str:
        """One box's (time steps x classes) probabilities -> its text."""
        logp = np.log(np.clip(probs, 1e-12, None))
        segments = self._segments(probs.argmax(axis=1))
        words = []
        previous = ""
        chosen = getattr(self._local, "chosen", None)
        for seg in segments:
            words.append(self._best(logp[seg.start : seg.stop], seg.text, previous))
            previous = words[-1]
            if previous != seg.text and chosen is not None:
                chosen.add(previous)
        return " ".join(w for w in words if w)

    def _segments(self, path: np.ndarray) -> list[_Segment]:
        """Runs of time steps between spaces, each with its greedy text (CTC: repeats merged, blanks and
        ignored classes dropped)."""
        ignore = set(self._converter.ignore_idx)
        segments: list[_Segment] = []
        start, chars, last = None, [], -1
        for t, k in enumerate([*path.tolist(), self._space]):
            if k == self._space or t == len(path):
                if start is not None:
                    segments.append(_Segment(start, t, "".join(chars)))
                start, chars, last = None, [], -1
                continue
            if start is None:
                start = t
            if k != last and k not in ignore:
                chars.append(self._converter.character[k])
            last = k
        return [s for s in segments if s.text]

    def _best(self, logp: np.ndarray, text: str, previous: str) -> str:
        """The greedy text, or the vocabulary reading of its letters that explains the strokes within
        ``margin`` nats of it."""
        candidates = self._candidates(text, previous)
        if not candidates:
            return text
        greedy = self._nll(logp, text)
        best, best_nll = text, greedy + self.margin
        for candidate in candidates:
            nll = self._nll(logp, candidate)
            if nll < best_nll:
                best, best_nll = candidate, nll
        return best

    def _candidates(self, text: str, previous: str) -> list[str]:
        number = _numbers(text)  # "2CC", "5ng"
        if number:
            return number
        match = _CORE.match(text)
        if not match:
            return []
        head, core, tail = match.groups()
        if len(core) > 5 and core[0] in RULE_LETTERS and core[1].isupper() and core[2].islower():
            head, core = head + core[0], core[1:]  # "LGliwepicide": a table's rule read as a letter, kept
        lower = core.lower()
        if len(core) <= 3 and previous[-1:].isdigit():  # "500 ng", "1 tal": a unit or a form after a number
            return [
                head + _cased(u, core) + tail
                for u in AFTER_NUMBER
                if u != lower and Levenshtein.distance(lower, u) <= 1
            ]
        if len(core) < 4 or lower in vocabulary():
            return []
        budget = max(1, len(core) // 3)
        near = process.extract(lower, vocabulary(), scorer=Levenshtein.distance, score_cutoff=budget, limit=8)
        return [head + _cased(word, core) + tail for word, _, _ in near]

    def _nll(self, logp: np.ndarray, text: str) -> float:
        """-log P(text | the strokes), by the CTC forward algorithm (blank = class 0)."""
        labels = [self._index[ch] for ch in text if ch in self._index]
        if not labels:
            return float("inf")
        ext = [0]
        for k in labels:
            ext += [k, 0]
        s_len, t_len = len(ext), logp.shape[0]
        if t_len < len(labels):
            return float("inf")
        alpha = np.full(s_len, -np.inf)
        alpha[0] = logp[0, 0]
        alpha[1] = logp[0, ext[1]]
        ext_arr = np.array(ext)
        # a step may skip the blank between two different labels
        skip = np.zeros(s_len, dtype=bool)
        skip[2:] = (ext_arr[2:] != 0) & (ext_arr[2:] != ext_arr[:-2])
        for t in range(1, t_len):
            prev = alpha
            shifted1 = np.concatenate(([-np.inf], prev[:-1]))
            shifted2 = np.concatenate(([-np.inf, -np.inf], prev[:-2]))
            shifted2 = np.where(skip, shifted2, -np.inf)
            alpha = np.logaddexp(np.logaddexp(prev, shifted1), shifted2) + logp[t, ext_arr]
        return -float(np.logaddexp(alpha[-1], alpha[-2]))


def _numbers(text: str) -> list[str]:
    """A number with letters a digit is often read as ("2CC", "5OOmg", "1O"), read as digits: the
    token has a real digit, and its letters are all digit look-alikes but for a unit at its end."""
    head = len(text) - len(text.lstrip("([{-*"))
    body = text[head:].rstrip(")]}.,;:")
    tail = text[head + len(body) :]
    if not body[:1].isdigit() or body.isdigit():  # "B12", "D3" are vitamins, not numbers
        return []
    cut = len(body)
    while not set(body[:cut]) <= _NUMBER_CHARS:
        cut -= 1
    numeral, suffix = body[:cut], body[cut:].lower()
    if suffix in UNITS or not suffix:
        units = [suffix]
    else:
        units = [u for u in UNITS if Levenshtein.distance(suffix, u) <= 1]
    mapped = numeral.translate(DIGIT_LOOKALIKES)
    if not units or (mapped == numeral and units == [suffix]):
        return []
    return [text[:head] + mapped + (u if u != suffix else body[cut:]) + tail for u in units]
