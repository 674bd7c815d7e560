"""Image preparation before OCR: what a phone photo of a prescription needs, each step measurable.

Every step works on a grayscale ``numpy`` array (uint8) and is a pure function, so the evaluation can
switch each one on and off (``docs/benchmarks.md``, "Prescription reading (OCR)", has the effect of
each). The order in :func:`prepare` matters: downscale first (everything after is cheaper), then the
page crop (the background no longer counts), then orientation and skew, contrast last.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np
from PIL import Image

ANALYSIS_SIDE = 800  # page, orientation and skew are estimated on a copy this size: cheap, and enough


@dataclass
class Prepared:
    gray: np.ndarray  # the image the reader reads: grayscale, upright, bounded in size
    steps: list[str] = field(default_factory=list)  # what was done, for the reading's record


def to_gray(image: Image.Image) -> np.ndarray:
    return np.asarray(image.convert("L"))


def downscale(gray: np.ndarray, max_side: int) -> np.ndarray:
    """Bound the longer side (never enlarge): a 12 MP photo carries far more pixels than its text needs."""
    h, w = gray.shape
    scale = max_side / max(h, w)
    if scale >= 1:
        return gray
    return cv2.resize(gray, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)


def _small(gray: np.ndarray) -> tuple[np.ndarray, float]:
    h, w = gray.shape
    scale = min(1.0, ANALYSIS_SIDE / max(h, w))
    if scale == 1.0:
        return gray, 1.0
    return cv2.resize(gray, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA), scale


def _order_corners(pts: np.ndarray) -> np.ndarray:
    """Top-left, top-right, bottom-right, bottom-left."""
    s, d = pts.sum(axis=1), np.diff(pts, axis=1).ravel()
    return np.array([pts[s.argmin()], pts[d.argmin()], pts[s.argmax()], pts[d.argmax()]], dtype=np.float32)


def find_page(gray: np.ndarray) -> np.ndarray | None:
    """The corners of a sheet of paper photographed on a darker surface, or None when there is no
    clear one (a scan, a screenshot, a page that fills the frame: then nothing is cropped)."""
    small, scale = _small(gray)
    blurred = cv2.GaussianBlur(small, (5, 5), 0)
    _, mask = cv2.threshold(blurred, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    # Close the page's text holes so the sheet is one bright region.
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    page = max(contours, key=cv2.contourArea)
    area = cv2.contourArea(page)
    total = small.shape[0] * small.shape[1]
    # A sheet that is most of the frame or a small patch is not worth trusting.
    if not 0.2 * total <= area <= 0.92 * total:
        return None
    hull = cv2.convexHull(page)
    quad = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True)
    if len(quad) != 4:
        quad = cv2.boxPoints(cv2.minAreaRect(hull))
    quad = np.asarray(quad, dtype=np.float32).reshape(4, 2)
    if cv2.contourArea(quad) < 0.85 * cv2.contourArea(hull):
        return None  # not a quadrilateral sheet (a hand, a shadow): leave the photo as it is
    # The page must be paper: clearly brighter than what surrounds it.
    inside = np.zeros_like(small)
    cv2.fillConvexPoly(inside, quad.astype(np.int32), 255)
    if small[inside > 0].mean() < small[inside == 0].mean() + 25:
        return None
    return _order_corners(quad / scale)


def crop_page(gray: np.ndarray) -> np.ndarray | None:
    """The page flattened to a rectangle (perspective removed), or None when no page was found."""
    corners = find_page(gray)
    if corners is None:
        return None
    tl, tr, br, bl = corners
    width = round(max(np.linalg.norm(tr - tl), np.linalg.norm(br - bl)))
    height = round(max(np.linalg.norm(bl - tl), np.linalg.norm(br - tr)))
    target = np.array([[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]], dtype=np.float32)
    matrix = cv2.getPerspectiveTransform(corners, target)
    return cv2.warpPerspective(gray, matrix, (width, height), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def _ink(small: np.ndarray) -> np.ndarray:
    """Dark strokes as 1, paper as 0: an adaptive threshold copes with uneven light."""
    ink = cv2.adaptiveThreshold(small, 1, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, 25, 15)
    return ink


def _profile_score(ink: np.ndarray) -> float:
    """How strongly the ink falls into horizontal lines: the variance of the row sums."""
    rows = ink.sum(axis=1, dtype=np.float64)
    return float(rows.var())


def _rotate(gray: np.ndarray, degrees: float, fill: int | None = None) -> np.ndarray:
    h, w = gray.shape
    matrix = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0)
    cos, sin = abs(matrix[0, 0]), abs(matrix[0, 1])
    new_w, new_h = int(h * sin + w * cos), int(h * cos + w * sin)
    matrix[0, 2] += new_w / 2 - w / 2
    matrix[1, 2] += new_h / 2 - h / 2
    border = {"borderMode": cv2.BORDER_REPLICATE} if fill is None else {"borderValue": fill}
    return cv2.warpAffine(gray, matrix, (new_w, new_h), flags=cv2.INTER_LINEAR, **border)


def is_sideways(gray: np.ndarray) -> bool:
    """Text running up or down the image (a photo turned 90 degrees without EXIF orientation).

    Letters smeared along the text's direction join into long thin strokes: lying down in a level
    page, standing up in a turned one. Which way more ink joins into such strokes is the text's
    direction. Unlike row and column profiles, this holds for a page photographed a few degrees off
    (whose rows smear while its left margin still stacks ink into columns)."""
    ink = _ink(_small(gray)[0])
    if ink.sum() < 200:
        return False
    return _stroke_ink(ink.T) > 1.5 * _stroke_ink(ink)


def _stroke_ink(ink: np.ndarray, reach: int = 9) -> float:
    """Ink in components at least 4 times wider than tall once letters are joined sideways."""
    joined = cv2.morphologyEx(ink, cv2.MORPH_CLOSE, np.ones((1, reach), np.uint8))
    _, _, stats, _ = cv2.connectedComponentsWithStats(joined, connectivity=8)
    widths, heights, areas = stats[1:, cv2.CC_STAT_WIDTH], stats[1:, cv2.CC_STAT_HEIGHT], stats[1:, cv2.CC_STAT_AREA]
    return float(areas[widths >= 4 * heights].sum())


def skew_angle(gray: np.ndarray, limit: float = 10.0) -> float:
    """The rotation in degrees (counter-clockwise positive, as ``cv2.getRotationMatrix2D``) that makes
    the text lines horizontal: the angle whose row profile is sharpest, coarse then fine."""
    ink = _ink(_small(gray)[0])
    if ink.sum() < 200:
        return 0.0

    def score(angle: float) -> float:
        return _profile_score(_rotate(ink, angle, fill=0))

    best = max(np.arange(-limit, limit + 0.01, 1.0), key=score)
    best = max(np.arange(best - 0.75, best + 0.76, 0.25), key=score)
    return float(best)


def deskew(gray: np.ndarray, min_angle: float = 0.5) -> tuple[np.ndarray, float]:
    angle = skew_angle(gray)
    if abs(angle) < min_angle:
        return gray, 0.0
    return _rotate(gray, angle), angle


def ink_bounds(gray: np.ndarray, margin: float = 0.02) -> tuple[int, int, int, int]:
    """The part of the image that holds ink, (left, top, right, bottom) in its pixels, with a margin
    of ``margin`` of the longer side; the whole image when there is (almost) none.

    A prescription fills the top of its page and leaves the rest blank; the detector's time goes with
    the pixels it is shown, so it is shown this part only. Specks count: a lone mark far from the text
    costs time, never a word."""
    small, scale = _small(gray)
    ink = _ink(small)
    ink = cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))  # single-pixel noise
    ys, xs = np.nonzero(ink)
    h, w = gray.shape
    if len(xs) < 50:
        return 0, 0, w, h
    pad = margin * max(h, w)
    left, right = xs.min() / scale - pad, (xs.max() + 1) / scale + pad
    top, bottom = ys.min() / scale - pad, (ys.max() + 1) / scale + pad
    return max(0, int(left)), max(0, int(top)), min(w, int(np.ceil(right))), min(h, int(np.ceil(bottom)))


def clahe(gray: np.ndarray, clip: float = 2.0, tile: int = 8) -> np.ndarray:
    """Local contrast (CLAHE): lifts faint ink and evens out a shadow across the page."""
    return cv2.createCLAHE(clipLimit=clip, tileGridSize=(tile, tile)).apply(gray)


@dataclass(frozen=True)
class PrepareSettings:
    # Read at up to 2000 px: an A4 scan at 150 dpi (1754 px) is not shrunk, which keeps thin strokes
    # (handwriting-like F1 0.643 at 1600 px, 0.676 at 2000; the detector canvas stays 800 px).
    max_side: int = 2000
    crop: bool = True
    orientation: bool = True
    deskew: bool = True
    clahe: bool = False


def prepare(image: Image.Image, settings: PrepareSettings = PrepareSettings()) -> Prepared:
    """An upright RGB image (EXIF already applied) -> the grayscale image the reader reads."""
    gray = downscale(to_gray(image), settings.max_side)
    steps: list[str] = []
    if settings.crop and (page := crop_page(gray)) is not None:
        gray = page
        steps.append("page")
    if settings.orientation and is_sideways(gray):
        gray = cv2.rotate(gray, cv2.ROTATE_90_CLOCKWISE)
        steps.append("rotated 90")
    if settings.deskew:
        gray, angle = deskew(gray)
        if angle:
            steps.append(f"deskewed {angle:+.2f}")
    if settings.clahe:
        gray = clahe(gray)
        steps.append("clahe")
    return Prepared(gray=np.ascontiguousarray(gray), steps=steps)


def rotate_180(gray: np.ndarray) -> np.ndarray:
    return cv2.rotate(gray, cv2.ROTATE_180)
