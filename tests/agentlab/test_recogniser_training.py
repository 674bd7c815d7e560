"""The OCR recogniser's fine-tune on tiny data: the corpus's handwriting fonts are never trained on,
the rendered crops carry only characters the recogniser has, and two training steps give weights
that the product's reader loads and reads with."""

from __future__ import annotations

import json
import os
import random

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from agentlab.prescriptions import handwriting
from agentlab.prescriptions.render import FONTS
from agentlab.training import recogniser
from health.scheduler import ocr

PRINTED = [p for p in handwriting.PRINTED_FONTS if os.path.exists(p)]


def test_the_corpus_handwriting_fonts_are_never_training_fonts(tmp_path):
    corpus = [spec.regular[0] for spec in FONTS["handwriting"] if os.path.exists(spec.regular[0])]
    assert corpus, "the corpus fonts are installed by scripts/setup_system.sh"
    for path in corpus:  # the same files, under other names and as copies
        os.symlink(path, tmp_path / ("linked-" + os.path.basename(path)))
        (tmp_path / os.path.basename(path)).write_bytes(open(path, "rb").read())
    os.symlink(PRINTED[0], tmp_path / "some-hand.ttf")
    found = handwriting.training_fonts(str(tmp_path))
    assert str(tmp_path / "some-hand.ttf") in found
    assert not {os.path.realpath(p) for p in found} & handwriting.corpus_font_files()
    assert not [p for p in found if os.path.basename(p) in {os.path.basename(c) for c in corpus}]


def test_rendered_crops_hold_text_the_recogniser_can_spell():
    characters = recogniser._stock_model()[2]
    rng = random.Random(3)
    for _ in range(40):
        sample = handwriting.sample(rng, PRINTED, characters)
        assert sample.text and set(sample.text) <= set(characters)
        assert sample.image.dtype == np.uint8 and sample.image.ndim == 2
        assert sample.image.shape[0] >= 8 and sample.image.min() < 128  # ink on it


@pytest.mark.slow
def test_two_steps_give_weights_the_reader_loads_and_reads_with(tmp_path):
    model, result = recogniser.train(PRINTED, steps=2, batch=4, check_size=4, log=lambda *_: None)
    assert result.steps == 2 and len(result.losses) == 2 and all(np.isfinite(result.losses))
    out = tmp_path / "recogniser.pth"
    recogniser.save(model, result, out, "test")
    card = json.loads(out.with_suffix(".json").read_text())
    assert card["steps"] == 2
    assert set(card["held_out_fonts"]) == {spec.name for spec in FONTS["handwriting"]}
    _, converter, _ = recogniser._stock_model()
    loaded = ocr._fine_tuned_recogniser(str(out), len(converter.character))
    word = Image.new("L", (220, 64), 255)
    ImageDraw.Draw(word).text((8, 10), "Tab 500", font=ImageFont.truetype(PRINTED[0], 36), fill=0)
    text = recogniser._decode(loaded, converter, [np.asarray(word)])[0]
    assert "500" in text  # two small steps from the stock weights still read printed digits
