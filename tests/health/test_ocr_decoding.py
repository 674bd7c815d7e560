"""The lexicon decoder (health.scheduler.decoding): the recogniser's probabilities read with the
prescription vocabulary, on hand-built probability matrices (no model needed)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from health.scheduler.decoding import LexiconDecoder, _numbers, vocabulary

CHARACTERS = "0123456789 abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


class Converter:
    """EasyOCR's converter as the decoder sees it: class 0 is the CTC blank."""

    character = ["[blank]", *CHARACTERS]
    ignore_idx = [0]

    def decode_greedy(self, *args):  # delegated, never called here
        return ["greedy"]


def strokes(text: str, doubt: dict[int, tuple[str, float]] | None = None) -> np.ndarray:
    """A probability matrix whose likeliest path spells ``text`` (each letter, then a blank); at the
    letters in ``doubt`` the given other letter has the given probability."""
    index = {c: i for i, c in enumerate(Converter.character)}
    rows = []
    for i, ch in enumerate(text):
        row = np.full(len(index), 1e-4)
        row[index[ch]] = 0.9
        if doubt and i in doubt:
            other, p = doubt[i]
            row[index[other]] = p
        rows.append(row / row.sum())
        blank = np.full(len(index), 1e-4)
        blank[0] = 0.95
        rows.append(blank / blank.sum())
    return np.array(rows)


@pytest.fixture
def decoder():
    return LexiconDecoder(Converter())


def test_a_word_the_recogniser_was_torn_on_is_read_as_the_vocabulary_word(decoder):
    # "neals": the first letter was nearly an "m"
    assert decoder.decode(strokes("before neals", {7: ("m", 0.3)})) == "before meals"
    assert decoder.decode(strokes("Cactulose", {0: ("L", 0.05)})) == "Lactulose"  # case kept


def test_a_table_rule_read_as_a_letter_is_kept_and_the_name_after_it_read(decoder):
    # "|Glimepiride" read "LGliwepiride": the rule stays (the extractor drops it), the name is read
    assert decoder.decode(strokes("LGliwepiride", {4: ("m", 0.1)})) == "LGlimepiride"


def test_a_clear_reading_and_a_word_far_from_the_vocabulary_stay_as_read(decoder):
    assert decoder.decode(strokes("Sharma Road")) == "Sharma Road"
    assert decoder.decode(strokes("Metformin")) == "Metformin"
    # one letter, read with certainty, is not overruled: "meals" explains it far worse than "seals"
    sure = strokes("seals")
    sure[0] = 1e-9
    sure[0, Converter.character.index("s")] = 1.0
    assert decoder.decode(sure) == "seals"


def test_a_number_with_digit_look_alikes_and_a_unit_slip(decoder):
    assert decoder.decode(strokes("2CC", {1: ("0", 0.2), 2: ("0", 0.2)})) == "200"
    assert decoder.decode(strokes("5ng", {1: ("m", 0.2)})) == "5mg"
    assert decoder.decode(strokes("1 tal", {4: ("b", 0.2)})) == "1 tab"  # a form after a number
    assert decoder.decode(strokes("TAL 1", {2: ("B", 0.2)})) == "TAL 1"  # not after a number


def test_the_words_chosen_are_recorded_for_the_review(decoder):
    with decoder.recording() as chosen:
        decoder.decode_wordbeamsearch(np.stack([strokes("after neals", {6: ("m", 0.3)})]))
    assert chosen == {"meals"}
    decoder.decode(strokes("after neals", {6: ("m", 0.3)}))  # outside a recording: nothing kept
    assert chosen == {"meals"}


def test_the_ctc_likelihood_is_torch_s(decoder):
    rng = np.random.default_rng(0)
    probs = rng.dirichlet(np.ones(len(Converter.character)), size=30)
    for text in ("meals", "aa", "Lactulose"):
        labels = torch.tensor([[Converter.character.index(c) for c in text]])
        expected = torch.nn.functional.ctc_loss(
            torch.log(torch.tensor(probs)).unsqueeze(1), labels, [30], [len(text)], reduction="sum"
        )
        assert decoder._nll(np.log(probs), text) == pytest.approx(float(expected), rel=1e-6)


@pytest.mark.parametrize(
    ("read", "candidates"),
    [
        ("2CC", ["200"]),
        ("5OOmg", ["500mg"]),
        ("2OCng", ["200mg"]),
        ("(2CC)", ["(200)"]),
        ("5ng", ["5mg"]),
        ("10mg", []),
        ("B12", []),  # a vitamin, not a number
        ("D3", []),
        ("1-0-1", []),
        ("1st", []),
    ],
)
def test_number_candidates(read, candidates):
    assert _numbers(read) == candidates


def test_the_vocabulary_holds_medicines_and_direction_words():
    words = set(vocabulary())
    assert {"metformin", "lactulose", "meals", "before", "tablet", "daily"} <= words
    assert all(len(w) >= 4 and w.isalpha() and w.islower() for w in words)
