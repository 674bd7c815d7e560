"""Word-box images in handwriting-like fonts, with their text: what the recogniser is fine-tuned on.

EasyOCR's english_g2 recogniser was trained on printed and scene text; it garbles handwriting-like
writing ("Bentyl 20 mg tab" read "Bextyl 2o ma tl"). Fine-tuning it needs images of handwriting with
known text, and none can be downloaded here, so this module renders them: a phrase of 1 to 5 words
in a handwriting font, with the distortions a hand and a phone add (wandering baseline, uneven
spacing, slant, stroke width, blur, noise, paper and ink tone), cut out the way the detector's boxes
are (a margin of paper around the ink, sometimes a piece of a neighbouring line).

**Fonts.** The evaluation corpus's handwriting fonts (``render.FONTS``: Comic Neue, DkgHandwriting,
Humor Sans, femkeklaver, Breip) are never used here, so ``eval_prescriptions`` measures the
recogniser on hands it was not trained on. Training fonts are any others given: Debian's
fonts-bwht, fonts-dancingscript, fonts-ecolier-court, fonts-cabinsketch and Google handwriting fonts
from npm (``scripts/fetch_handwriting_fonts.sh``). A few printed fonts are mixed in, so printed
reading is kept.

**Text.** Not the corpus's sentences: words are drawn from separate pools so the recogniser learns
letters and prescription tokens, not the corpus's phrasing. Medicine names and brands come from the
extractor's lexicon (the names it must read), prescription abbreviations, units and numbers from
the general shape of prescriptions, and plain English words from Debian's word list (``wamerican``).
"""

from __future__ import annotations

import glob
import hashlib
import json
import math
import os
import random
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

from agentlab.prescriptions.render import FONTS as CORPUS_FONTS

DEBIAN_FONTS = (
    "/usr/share/fonts/opentype/bwht/*.otf",
    "/usr/share/fonts/opentype/dancingscript/*.otf",
    "/usr/share/fonts/truetype/ecolier-court/*.ttf",
    "/usr/share/fonts/truetype/cabinsketch/*.ttf",
)
PRINTED_FONTS = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf",
    "/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf",
)
WORDS = "/usr/share/dict/words"
LEXICON = Path(__file__).resolve().parents[2] / "health" / "scheduler" / "lexicon.json"

# Tokens of prescriptions in general (forms, routes, frequencies, food, durations, header words):
# the vocabulary of the task, written from how prescriptions are written, not from the corpus.
RX_WORDS = (
    "Tab Tab. T. Cap Cap. Syp Syp. Syr Inj Inj. Oint Drops Susp tablet tablets tab tabs capsule capsules "
    "mg mcg g ml mL IU units tsp tbsp puff puffs drop drops OD QD BD BID TDS TID QID HS SOS PRN STAT "
    "q4h q6h q8h q12h qhs qAM qPM PO p.o. a.c. p.c. b.d. t.d.s. o.d. h.s. stat daily twice thrice once "
    "times a day every hours hour morning evening night bedtime noon before after with food meals meal "
    "empty stomach breakfast lunch dinner take Take give Give apply by mouth orally for days day week "
    "weeks month months x Sig: Sig Disp: Disp Refills: Rx Dx: Dx C/O: Adv: Advice: Review Follow up "
    "Name: Age: Sex: Date: Dr. MBBS MD Reg. No. Ph: Pulse: BP: Temp: Wt: mmHg kg /min Signature "
    "Instructions: Investigations: continue stop if needed when required as directed half one two three"
).split()


@dataclass(frozen=True)
class Sample:
    image: np.ndarray  # grayscale uint8, a word box as the detector would cut it
    text: str
    font: str


def corpus_font_files() -> set[str]:
    """The evaluation corpus's handwriting font files, resolved: never trained on."""
    files = set()
    for spec in CORPUS_FONTS["handwriting"]:
        for path in (*spec.regular, *spec.bold):
            files.add(os.path.realpath(path))
    return files


def _digest(path: str) -> str:
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


def training_fonts(fonts_dir: str | None = None) -> list[str]:
    """Handwriting fonts to train on: Debian's (when installed) and every .ttf/.otf/.woff in
    ``fonts_dir``, minus the evaluation corpus's: the same file by path or by content (a copy under
    another name), or a file named after one of its families."""
    paths: list[str] = []
    for pattern in DEBIAN_FONTS:
        paths += sorted(glob.glob(pattern))
    if fonts_dir:
        for ext in ("ttf", "otf", "woff"):
            paths += sorted(glob.glob(os.path.join(fonts_dir, f"*.{ext}")))
    held_out = corpus_font_files()
    held_digests = {_digest(p) for p in held_out if os.path.exists(p)}
    held_names = {spec.name.lower().replace(" ", "") for spec in CORPUS_FONTS["handwriting"]}
    kept = []
    for path in paths:
        stem = Path(path).stem.lower().replace("-", "").replace("_", "")
        if os.path.realpath(path) in held_out or any(stem.startswith(name) for name in held_names):
            continue
        if _digest(path) in held_digests:
            continue
        kept.append(path)
    return kept


@cache
def _lexicon_names() -> tuple[str, ...]:
    data = json.loads(LEXICON.read_text())["medications"]
    names = set()
    for generic, synonyms in data.items():
        names.add(generic)
        names.update(synonyms)
    return tuple(sorted(n for n in names if n.isascii()))


@cache
def _english_words() -> tuple[str, ...]:
    if not os.path.exists(WORDS):
        return ()
    with open(WORDS, encoding="utf-8", errors="ignore") as fh:
        return tuple(w.strip() for w in fh if w.strip().isascii() and "'" not in w and 2 <= len(w.strip()) <= 12)


def _number(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.3:
        return str(rng.choice([1, 2, 5, 10, 20, 25, 40, 50, 75, 100, 150, 200, 250, 400, 500, 625, 650, 1000]))
    if kind < 0.45:
        return rng.choice(["0.5", "0.25", "2.5", "1.5", "7.5", "0.4", "1/2", "½"]).replace("½", "1/2")
    if kind < 0.6:
        return "-".join(rng.choice("0112") for _ in range(3))  # 1-0-1
    if kind < 0.7:
        return f"{rng.randint(1, 28):02d}/{rng.randint(1, 12):02d}/{rng.randint(1990, 2030)}"
    if kind < 0.8:
        return f"{rng.randint(1, 4)}/{rng.choice([7, 52, 12])}"
    return str(rng.randint(0, 9999))


def _token(rng: random.Random) -> str:
    pool = rng.random()
    if pool < 0.25:
        word = rng.choice(_lexicon_names())
    elif pool < 0.5:
        word = rng.choice(RX_WORDS)
    elif pool < 0.72:
        word = _number(rng)
        if rng.random() < 0.35:
            word += rng.choice(["mg", " mg", "ml", " ml", "mcg", "d", " days", "%"])
    else:
        words = _english_words() or RX_WORDS
        word = rng.choice(words)
    return word


def phrase(rng: random.Random, character_set: str) -> str:
    """1 to 5 tokens, in the case a prescription might use, with only characters the recogniser has."""
    text = " ".join(_token(rng) for _ in range(rng.choice([1, 1, 2, 2, 3, 3, 4, 5])))
    case = rng.random()
    if case < 0.12:
        text = text.upper()
    elif case < 0.22:
        text = text.title()
    elif case < 0.3:
        text = text.lower()
    if rng.random() < 0.15:
        text = rng.choice(["1) ", "2. ", "3) ", "(", "- "]) + text + rng.choice(["", ",", ".", ")", ";", ":"])
    text = "".join(c for c in text if c in character_set)
    return " ".join(text.split()) or "Tab"


@cache
def _font(path: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, size)


def _draw_words(text: str, font_path: str, size: int, rng: random.Random) -> Image.Image:
    """The phrase word by word on a white canvas: each word on a baseline that wanders and with
    uneven gaps, as a hand writes."""
    font = _font(font_path, size)
    words = text.split(" ")
    widths = [max(1, int(font.getlength(w))) for w in words]
    gap = font.getlength(" ") or size * 0.3
    width = int(sum(widths) + gap * 1.8 * len(words) + size * 2)
    height = int(size * 2.4)
    canvas = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(canvas)
    x = size * 0.5
    drift = 0.0
    ink = rng.randint(0, 90)
    for word, w in zip(words, widths, strict=True):
        drift = max(-0.18, min(0.18, drift + rng.gauss(0, 0.06)))
        draw.text((x, size * (0.6 + drift)), word, font=font, fill=ink)
        x += w + gap * rng.uniform(0.7, 1.8)
    return canvas


def _letter_shape(font: ImageFont.FreeTypeFont, char: str) -> np.ndarray:
    img = Image.new("L", (120, 120), 255)
    ImageDraw.Draw(img).text((20, 20), char, font=font, fill=0)
    box = img.point(lambda v: 255 if v < 128 else 0).getbbox()
    if not box:
        return np.zeros((24, 24), dtype=bool)
    return np.asarray(img.crop(box).resize((24, 24), Image.BILINEAR)) < 128


@cache
def _capitals_only(path: str) -> bool:
    """A font whose small letters are its capitals drawn smaller (several hands are): its labels are
    written in capitals, or the recogniser is taught that an "A" drawn this way is an "a"."""
    font = _font(path, 60)
    agree = [np.mean(_letter_shape(font, c) == _letter_shape(font, c.upper())) for c in "abdegnqr"]
    return float(np.mean(agree)) > CAPITALS_AGREE


CAPITALS_AGREE = 0.78  # shape agreement of small and capital letters above which a font is capitals only: the six
# Because We Had To hands (0.78-0.86) and Permanent Marker (0.97) are; mixed hands score 0.66-0.70


def _draw_letters(text: str, font_path: str, size: int, rng: random.Random) -> Image.Image:
    """The phrase letter by letter: each letter a little bigger or smaller, turned and raised or
    lowered on its own, with uneven advances. No two letters of a hand are alike; a font's are, and a
    recogniser trained on fonts alone learns the font, not the letter."""
    font = _font(font_path, size)
    width = int(font.getlength(text) * 1.3 + size * 3)
    height = int(size * 2.6)
    canvas = np.full((height, width), 255, dtype=np.uint8)
    ink = rng.randint(0, 90)
    x = size * 0.6
    drift = 0.0
    for char in text:
        advance = font.getlength(char)
        if char == " ":
            x += advance * rng.uniform(0.8, 1.8)
            drift = max(-0.15, min(0.15, drift + rng.gauss(0, 0.05)))
            continue
        scale = rng.uniform(0.88, 1.12)
        glyph_font = _font(font_path, max(8, round(size * scale)))
        box = int(size * 2)
        glyph = Image.new("L", (box, box), 255)
        ImageDraw.Draw(glyph).text((size * 0.5, size * 0.4), char, font=glyph_font, fill=ink)
        glyph = glyph.rotate(rng.uniform(-7, 7), resample=Image.BILINEAR, fillcolor=255)
        top = int(size * (0.35 + drift + rng.gauss(0, 0.03)))
        left = int(x - size * 0.5)
        region = canvas[max(0, top) : top + box, max(0, left) : left + box]
        g = np.asarray(glyph)[: region.shape[0], : region.shape[1]]
        np.minimum(region, g, out=region)
        x += advance * scale * rng.uniform(0.85, 1.08)
    return Image.fromarray(canvas[:, : int(min(width, x + size))])


def _distort(img: Image.Image, size: int, rng: random.Random) -> Image.Image:
    if rng.random() < 0.4:  # narrow or wide hands
        img = img.resize((max(8, int(img.width * rng.uniform(0.75, 1.3))), img.height), Image.BILINEAR)
    # Slant: a shear, as most hands lean right a little.
    shear = rng.uniform(-0.12, 0.35)
    w, h = img.size
    matrix = (1, shear, -max(0, shear) * h, 0, 1, 0)
    img = img.transform((w + int(abs(shear) * h), h), Image.AFFINE, matrix, fillcolor=255)
    if rng.random() < 0.5:  # a line that is not level
        img = img.rotate(rng.uniform(-2.5, 2.5), resample=Image.BILINEAR, expand=True, fillcolor=255)
    stroke = rng.random()
    if stroke < 0.25:
        img = img.filter(ImageFilter.MinFilter(3))  # a thicker pen
    elif stroke < 0.32 and size > 36:
        img = img.filter(ImageFilter.MaxFilter(3))  # a thin one
    return img


def _cut(img: Image.Image, size: int, rng: random.Random) -> np.ndarray:
    """Crop to the ink with a margin like a detector box's, then paper tone, blur and noise."""
    arr = np.asarray(img)
    ys, xs = np.nonzero(arr < 200)
    if len(xs) == 0:
        return arr
    top, bottom, left, right = ys.min(), ys.max(), xs.min(), xs.max()
    ink_h = bottom - top + 1
    m = lambda lo, hi: int(ink_h * rng.uniform(lo, hi))  # noqa: E731 - four margins, one rule
    top, bottom = max(0, top - m(0.02, 0.3)), min(arr.shape[0], bottom + 1 + m(0.02, 0.3))
    left, right = max(0, left - m(0.0, 0.4)), min(arr.shape[1], right + 1 + m(0.0, 0.4))
    crop = arr[top:bottom, left:right].astype(np.float32)
    paper = rng.uniform(175, 255)
    crop = crop / 255.0 * paper
    if rng.random() < 0.2:  # light falling across the page
        crop *= np.linspace(rng.uniform(0.8, 1.0), rng.uniform(0.8, 1.0), crop.shape[1])[None, :]
    out = Image.fromarray(np.clip(crop, 0, 255).astype(np.uint8))
    if rng.random() < 0.5:
        out = out.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 1.2)))
    # Detector boxes are read from pages downscaled to about 2000 px: small text has few pixels.
    if rng.random() < 0.5:
        scale = rng.uniform(0.35, 0.8)
        small = (max(8, int(out.width * scale)), max(8, int(out.height * scale)))
        out = out.resize(small, Image.BILINEAR)
    arr = np.asarray(out).astype(np.float32)
    if rng.random() < 0.5:
        arr += np.random.default_rng(rng.getrandbits(32)).normal(0, rng.uniform(2, 12), arr.shape)
    return np.clip(arr, 0, 255).astype(np.uint8)


def sample(rng: random.Random, fonts: list[str], character_set: str, printed_share: float = 0.15) -> Sample:
    printed = [p for p in PRINTED_FONTS if os.path.exists(p)]
    if printed and rng.random() < printed_share:
        font = rng.choice(printed)
    else:
        font = rng.choice(fonts)
    text = phrase(rng, character_set)
    if _capitals_only(font):
        text = text.upper()
    size = rng.randint(28, 64)
    draw = _draw_letters if font not in printed and rng.random() < 0.6 else _draw_words
    if rng.random() < TABLE_SHARE:
        cells = [text] + [" ".join(phrase(rng, character_set).split()[:2]) for _ in range(rng.randint(1, 2))]
        if _capitals_only(font):
            cells = [c.upper() for c in cells]
        img, text = _table_row(cells, font, size, draw, rng)
    else:
        img = _distort(draw(text, font, size, rng), size, rng)
    return Sample(_cut(img, size, rng), text, Path(font).stem)


# A share of crops are table rows: cells with the table's printed rules between them, labelled "|".
# Without them the fine-tune read every rule as a "1" or an "l" (printed tables: F1 0.88 -> 0.81).
TABLE_SHARE = 0.15


def _table_row(cells: list[str], font: str, size: int, draw, rng: random.Random) -> tuple[Image.Image, str]:
    images = []
    for cell in cells:
        arr = np.asarray(_distort(draw(cell, font, size, rng), size, rng))
        cols = np.nonzero((arr < 200).any(axis=0))[0]
        images.append(arr[:, cols.min() : cols.max() + 1] if len(cols) else arr)
    height = max(i.shape[0] for i in images)
    pad = int(size * rng.uniform(0.2, 0.6))
    rule = rng.randint(1, 3)
    lead, trail = rng.random() < 0.4, rng.random() < 0.4
    width = sum(i.shape[1] for i in images) + (2 * pad + rule) * (len(images) + 1)
    row = np.full((height, width), 255, dtype=np.uint8)
    tone = rng.randint(0, 110)
    x = 0
    labels = []
    for k, cell in enumerate(images):
        if k or lead:
            row[:, x + pad : x + pad + rule] = tone
            labels.append("|")
        x += 2 * pad + rule
        top = (height - cell.shape[0]) // 2
        row[top : top + cell.shape[0], x : x + cell.shape[1]] = np.minimum(
            row[top : top + cell.shape[0], x : x + cell.shape[1]], cell
        )
        x += cell.shape[1]
        labels.append(cells[k])
    if trail:
        row[:, x + pad : x + pad + rule] = tone
        labels.append("|")
        x += 2 * pad + rule
    return Image.fromarray(row[:, : x + pad]), " ".join(labels)


def width_ratio(image: np.ndarray) -> float:
    return image.shape[1] / max(1, image.shape[0])


def ceil_ratio(images: list[np.ndarray]) -> int:
    return max(1, math.ceil(max(width_ratio(i) for i in images)))
