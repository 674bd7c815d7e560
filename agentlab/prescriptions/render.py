"""Prescriptions as images, in three sets: printed, photo (a phone photo of a printed page) and
handwriting (a printed letterhead with the body in handwriting-like fonts).

Fonts come from Debian packages (``scripts/setup_system.sh`` installs them). A missing font is an
error that names its package: a silent fallback would change what the corpus measures.

Each image is a function of its seed alone (``random.Random`` and ``numpy``'s generator seeded from
it), so a corpus is reproduced exactly from ``--seed``.
"""

from __future__ import annotations

import io
import math
import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

from agentlab.prescriptions.corpus import Line, Prescription

SETS = ("printed", "photo", "handwriting")


class FontMissing(RuntimeError):
    """A font the corpus needs is not installed; the message names the Debian package."""


@dataclass(frozen=True)
class FontSpec:
    name: str
    package: str
    regular: tuple[str, ...]  # candidate paths, first found wins
    bold: tuple[str, ...] = ()
    unicode_ok: bool = True  # has "½" and the multiplication sign

    def path(self, bold: bool = False) -> str:
        for candidate in (self.bold if bold and self.bold else ()) + self.regular:
            if Path(candidate).is_file():
                return candidate
        raise FontMissing(
            f"font {self.name!r} is not installed (looked for {', '.join(self.regular)}); "
            f"install the Debian package {self.package} (scripts/setup_system.sh does)"
        )


_DV = "/usr/share/fonts/truetype/dejavu/"
_LIB = ("/usr/share/fonts/truetype/liberation2/", "/usr/share/fonts/truetype/liberation/")


def _lib(stem: str) -> tuple[str, ...]:
    return tuple(folder + stem for folder in _LIB)


PRINTED_FONTS = (
    FontSpec("DejaVu Sans", "fonts-dejavu-core", (_DV + "DejaVuSans.ttf",), (_DV + "DejaVuSans-Bold.ttf",)),
    FontSpec("DejaVu Serif", "fonts-dejavu-core", (_DV + "DejaVuSerif.ttf",), (_DV + "DejaVuSerif-Bold.ttf",)),
    FontSpec(
        "DejaVu Sans Mono", "fonts-dejavu-core", (_DV + "DejaVuSansMono.ttf",), (_DV + "DejaVuSansMono-Bold.ttf",)
    ),
    FontSpec(
        "Liberation Sans", "fonts-liberation2", _lib("LiberationSans-Regular.ttf"), _lib("LiberationSans-Bold.ttf")
    ),
    FontSpec(
        "Liberation Serif", "fonts-liberation2", _lib("LiberationSerif-Regular.ttf"), _lib("LiberationSerif-Bold.ttf")
    ),
)
HANDWRITING_FONTS = (
    FontSpec(
        "Comic Neue",
        "fonts-comic-neue",
        ("/usr/share/fonts/opentype/comic-neue/ComicNeue-Regular.otf",),
        ("/usr/share/fonts/opentype/comic-neue/ComicNeue-Bold.otf",),
    ),
    FontSpec(
        "DkgHandwriting",
        "fonts-dkg-handwriting",
        ("/usr/share/fonts/truetype/fifthhorseman/dkg.ttf",),
        ("/usr/share/fonts/truetype/fifthhorseman/dkgBd.ttf",),
    ),
    FontSpec(
        "Humor Sans", "fonts-humor-sans", ("/usr/share/fonts/truetype/humor-sans/Humor-Sans.ttf",), unicode_ok=False
    ),
    FontSpec(
        "femkeklaver", "fonts-femkeklaver", ("/usr/share/fonts/truetype/femkeklaver/femkeklaver.ttf",), unicode_ok=False
    ),
    FontSpec("Breip", "fonts-breip", ("/usr/share/fonts/truetype/breip/Breip.ttf",)),
)
FONTS = {"printed": PRINTED_FONTS, "photo": PRINTED_FONTS, "handwriting": HANDWRITING_FONTS}


def check_fonts(sets: tuple[str, ...] | list[str] = SETS) -> None:
    """Raise ``FontMissing`` (naming every missing package) before any work starts."""
    missing = []
    for spec in {spec for name in sets for spec in FONTS.get(name, ())}:
        try:
            spec.path()
        except FontMissing:
            missing.append(spec.package)
    if missing:
        raise FontMissing(
            f"missing fonts; install the Debian packages: {' '.join(sorted(set(missing)))} (scripts/setup_system.sh)"
        )


# -- laying out a page --------------------------------------------------------------------------------

PAGE = (1240, 1754)  # A4 at 150 dpi
MARGIN = 90
SIZES = {"title": 1.45, "normal": 1.0, "small": 0.8}


class _Fonts:
    def __init__(self, spec: FontSpec, base: int):
        self.spec, self.base, self._cache = spec, base, {}

    def get(self, size: str = "normal", bold: bool = False) -> ImageFont.FreeTypeFont:
        key = (size, bold)
        if key not in self._cache:
            self._cache[key] = ImageFont.truetype(self.spec.path(bold), max(10, round(self.base * SIZES[size])))
        return self._cache[key]


def _width(font: ImageFont.FreeTypeFont, text: str) -> float:
    return font.getlength(text) if text else 0.0


def _table_widths(rows: list[list[str]], font: ImageFont.FreeTypeFont, pad: int) -> list[float]:
    return [max(_width(font, row[i]) for row in rows) + 2 * pad for i in range(len(rows[0]))]


def _fits(lines: list[Line], fonts: _Fonts, header_fonts: _Fonts, width: int, height: int) -> bool:
    total = 0.0
    rows = [line.cells for line in lines if line.cells]
    for line in lines:
        f = (header_fonts if line.role in ("header", "rx") else fonts).get(line.size, line.bold)
        if not line.cells and _width(f, line.text) + line.indent * width / 10 > width:
            return False
        total += f.size * 1.5
    if rows and sum(_table_widths(rows, fonts.get(), 10)) > width:
        return False
    return total + 4 * fonts.base < height


@dataclass
class _Style:
    body: FontSpec
    header: FontSpec
    ink: tuple[int, int, int]
    header_ink: tuple[int, int, int]
    paper: tuple[int, int, int]
    handwritten: bool


def _lay_out(rx: Prescription, style: _Style, rng: random.Random, base: int) -> Image.Image:
    width, height = PAGE
    text_width, text_height = width - 2 * MARGIN, height - 2 * MARGIN
    while True:  # the largest size at which every line fits the page
        fonts, header_fonts = _Fonts(style.body, base), _Fonts(style.header, round(base * 0.95))
        if base <= 14 or _fits(rx.lines, fonts, header_fonts, text_width, text_height):
            break
        base -= 2
    page = Image.new("RGB", PAGE, style.paper)
    draw = ImageDraw.Draw(page)
    y = float(MARGIN)
    rows = [line.cells for line in rx.lines if line.cells]
    col_widths = _table_widths(rows, fonts.get(), 10) if rows else []
    previous_role = None
    for line in rx.lines:
        is_header = line.role in ("header", "rx")
        f = (header_fonts if is_header else fonts).get(line.size, line.bold)
        ink = style.header_ink if is_header else style.ink
        step = f.size * (1.5 if not style.handwritten or is_header else rng.uniform(1.45, 1.75))
        if previous_role == "header" and line.role == "rx":
            draw.line([(MARGIN, y + 4), (width - MARGIN, y + 4)], fill=style.header_ink, width=2)
            y += f.size * 0.4
        if line.role == "footer" and previous_role == "body":
            y += f.size * 0.6
        if line.cells:
            _draw_row(page, draw, line, f, col_widths, MARGIN, y, ink, style, rng)
            y += f.size * 1.6
        else:
            x = MARGIN + line.indent * text_width / 10
            if line.size == "title" and line.role == "header":
                x = (width - _width(f, line.text)) / 2
            if style.handwritten and not is_header:
                _draw_handwritten(page, line.text, f, x, y, ink, rng)
            else:
                draw.text((x, y), line.text, font=f, fill=ink)
            y += step
        previous_role = line.role
    _signature(draw, y, width, style, rng)
    return page


def _draw_row(page, draw, line: Line, font, widths, x0, y, ink, style: _Style, rng: random.Random) -> None:
    """A table row: cells in a ruled grid; handwritten entries fill a printed form's grid."""
    height = font.size * 1.6
    x = float(x0)
    for cell, w in zip(line.cells or [], widths, strict=False):
        draw.rectangle([x, y - 6, x + w, y - 6 + height], outline=style.header_ink, width=1)
        if style.handwritten:
            _draw_handwritten(page, cell, font, x + 10, y, ink, rng)
        else:
            draw.text((x + 10, y), cell, font=font, fill=ink)
        x += w


def _draw_handwritten(page: Image.Image, text: str, font, x: float, y: float, ink, rng: random.Random) -> None:
    """A line drawn word by word with a wandering baseline, uneven spacing and a slight slant."""
    if not text:
        return
    size = font.size
    words = text.split(" ")
    canvas_w = int(sum(font.getlength(w) for w in words) + len(words) * size * 0.8 + size)
    layer = Image.new("L", (canvas_w, int(size * 2.2)), 0)
    d = ImageDraw.Draw(layer)
    cx, drift = size * 0.2, 0.0
    for word in words:
        drift = max(-size * 0.15, min(size * 0.15, drift + rng.uniform(-size * 0.06, size * 0.06)))
        d.text((cx, size * 0.5 + drift), word, font=font, fill=255)
        cx += font.getlength(word) + font.getlength(" ") * rng.uniform(0.8, 1.6)
    layer = layer.rotate(rng.uniform(-1.8, 1.8), resample=Image.BICUBIC, expand=True)
    colour = Image.new("RGB", layer.size, ink)
    page.paste(colour, (int(x + rng.uniform(-8, 8)), int(y - size * 0.5 + rng.uniform(-3, 3))), layer)


def _signature(draw: ImageDraw.ImageDraw, y: float, width: int, style: _Style, rng: random.Random) -> None:
    """A scribble above the signature line: ink that must not read as a medicine."""
    x0 = width - MARGIN - 300
    y0 = min(y + 30, PAGE[1] - 60)
    points = [(x0 + i * 12, y0 + 18 * math.sin(i * rng.uniform(0.6, 1.2)) + rng.uniform(-6, 6)) for i in range(22)]
    draw.line(points, fill=style.ink, width=3)
    draw.line([(x0 - 10, y0 + 30), (x0 + 280, y0 + 30)], fill=style.header_ink, width=1)


# -- phone-photo conditions ------------------------------------------------------------------------------


def _perspective_coeffs(source: list[tuple[float, float]], target: list[tuple[float, float]]) -> list[float]:
    """Coefficients for ``Image.transform(PERSPECTIVE)``, mapping output corners ``target`` to input
    corners ``source``."""
    matrix, vector = [], []
    for (x, y), (u, v) in zip(target, source, strict=True):
        matrix.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        matrix.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        vector += [u, v]
    return np.linalg.solve(np.array(matrix, float), np.array(vector, float)).tolist()


def photograph(page: Image.Image, rng: random.Random) -> tuple[Image.Image, int]:
    """The page as a phone would photograph it on a desk: border, perspective, rotation, uneven light
    and a shadow, blur, sensor noise; returns the image and the JPEG quality to save it at."""
    nprng = np.random.default_rng(rng.getrandbits(32))
    w, h = page.size
    border = int(min(w, h) * rng.uniform(0.06, 0.14))
    desk = tuple(
        int(c) for c in rng.choice([(120, 90, 60), (70, 70, 75), (200, 195, 185), (40, 45, 50), (150, 120, 95)])
    )
    canvas = Image.new("RGB", (w + 2 * border, h + 2 * border), desk)
    canvas.paste(page, (border, border))
    cw, ch = canvas.size
    # perspective: the page's corners pulled in unevenly, as when the phone is not parallel to it
    jitter = 0.06
    corners = [(0, 0), (cw, 0), (cw, ch), (0, ch)]
    moved = [(x + rng.uniform(-jitter, jitter) * cw, y + rng.uniform(-jitter, jitter) * ch) for x, y in corners]
    canvas = canvas.transform(
        (cw, ch), Image.PERSPECTIVE, _perspective_coeffs(moved, corners), Image.BICUBIC, fillcolor=desk
    )
    canvas = canvas.rotate(rng.uniform(-8, 8), resample=Image.BICUBIC, expand=False, fillcolor=desk)
    # light: a gradient across the frame and a soft-edged shadow (a hand or the phone)
    arr = np.asarray(canvas, dtype=np.float32)
    yy, xx = np.mgrid[0:ch, 0:cw].astype(np.float32)
    angle = rng.uniform(0, 2 * math.pi)
    ramp = (xx / cw) * math.cos(angle) + (yy / ch) * math.sin(angle)
    ramp = (ramp - ramp.min()) / max(1e-6, float(ramp.max() - ramp.min()))
    light = 1.0 - rng.uniform(0.15, 0.4) * ramp
    shadow = Image.new("L", (cw, ch), 0)
    sx, sy = rng.uniform(-0.3, 0.7) * cw, rng.uniform(-0.3, 0.7) * ch
    ImageDraw.Draw(shadow).ellipse([sx, sy, sx + rng.uniform(0.4, 0.9) * cw, sy + rng.uniform(0.3, 0.8) * ch], fill=255)
    shadow = shadow.filter(ImageFilter.GaussianBlur(min(cw, ch) * 0.06))
    light = light * (1.0 - rng.uniform(0.1, 0.35) * np.asarray(shadow, dtype=np.float32) / 255.0)
    arr = arr * light[..., None]
    arr += nprng.normal(0, rng.uniform(3, 9), arr.shape)
    canvas = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8))
    canvas = canvas.filter(ImageFilter.GaussianBlur(rng.uniform(0.5, 1.4)))
    # a phone-like width: chat and upload apps downscale photos to about this
    target_w = rng.choice([960, 1080, 1200])
    canvas = canvas.resize((target_w, round(ch * target_w / cw)), Image.LANCZOS)
    return canvas, rng.randint(40, 80)


# -- one sample --------------------------------------------------------------------------------------------


@dataclass
class Rendered:
    data: bytes  # the encoded file, exactly what a reader would be given
    suffix: str  # .png or .jpg
    font: str

    def image(self) -> Image.Image:
        return Image.open(io.BytesIO(self.data)).convert("RGB")


def pick_font(set_name: str, index: int) -> FontSpec:
    fonts = FONTS[set_name]
    return fonts[index % len(fonts)]


def render(rx: Prescription, set_name: str, font: FontSpec, rng: random.Random) -> Rendered:
    """``rx`` as the ``set_name`` image, in ``font``."""
    if set_name not in SETS:
        raise ValueError(f"unknown set {set_name!r}; known: {', '.join(SETS)}")
    handwritten = set_name == "handwriting"
    printed_header = PRINTED_FONTS[rng.randrange(len(PRINTED_FONTS))] if handwritten else font
    ink = rng.choice([(20, 30, 110), (15, 15, 20), (30, 40, 80)]) if handwritten else (20, 20, 20)
    paper = (255, 255, 255) if not handwritten else tuple(rng.randint(238, 252) for _ in range(3))
    style = _Style(font, printed_header, ink, (30, 30, 30), paper, handwritten)
    page = _lay_out(rx, style, rng, base=rng.randint(26, 32) if not handwritten else rng.randint(32, 38))
    buffer = io.BytesIO()
    if set_name == "photo":
        photo, quality = photograph(page, rng)
        photo.save(buffer, "JPEG", quality=quality)
        return Rendered(buffer.getvalue(), ".jpg", font.name)
    page.save(buffer, "PNG", optimize=False)
    return Rendered(buffer.getvalue(), ".png", font.name)
