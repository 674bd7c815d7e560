"""Prescription reading: a real EasyOCR run on a small generated image, the ``read_prescription``
command's JSON, its refusals, and the line grouping and preprocessing on their own."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from PIL import Image, ImageDraw, ImageFont

from health.scheduler import ocr, preprocess
from health.scheduler.reading import read_prescription

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
LINES = ["Rx", "Tab Paracetamol 500mg 1-0-1 x 5 days after food", "Cap Amoxicillin 250 mg TDS x 7 days"]
ENV = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings"}
KEYS = {"name", "strength", "dose", "times_per_day", "times", "duration_days", "with_food"}


def render(lines: list[str] = LINES, size: tuple[int, int] = (760, 200), angle: float = 0.0) -> Image.Image:
    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(FONT, 24)
    for i, line in enumerate(lines):
        draw.text((24, 20 + 56 * i), line, font=font, fill=(25, 25, 25))
    if angle:
        image = image.rotate(angle, expand=True, fillcolor="white")
    return image


def png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.fixture(scope="module")
def reader():
    return ocr.get_reader()


@pytest.mark.slow
def test_reader_is_built_once_per_process(reader):
    assert ocr.get_reader() is reader
    assert reader.model_storage_directory == ocr.model_directory()
    assert reader.download_enabled is False


@pytest.mark.slow
def test_a_printed_prescription_is_read_into_medications(reader):
    reading = read_prescription(render())
    assert len(reading.lines) == 3  # words of one printed line stay on one line
    assert reading.text.splitlines()[1].lower().startswith("tab paracetamol")
    assert all(0 <= line.confidence <= 1 for line in reading.lines)
    assert reading.seconds > 0
    paracetamol, amoxicillin = reading.medications
    assert paracetamol == dict(
        name="paracetamol",
        strength="500 mg",
        dose=1,
        times_per_day=2,
        times=["08:00", "20:00"],
        duration_days=5,
        with_food="after",
    )
    assert (amoxicillin["name"], amoxicillin["strength"], amoxicillin["times_per_day"]) == ("amoxicillin", "250 mg", 3)
    assert amoxicillin["duration_days"] == 7


@pytest.mark.slow
def test_an_upside_down_page_is_turned(reader):
    reading = read_prescription(render(angle=180))
    assert "rotated 180" in reading.steps
    assert [m["name"] for m in reading.medications] == ["paracetamol", "amoxicillin"]


@pytest.mark.slow
def test_the_command_writes_exactly_the_documented_keys(reader, tmp_path):
    first, second = tmp_path / "a.png", tmp_path / "b.png"
    first.write_bytes(png(render()))
    second.write_bytes(png(render([*LINES[:1], "Tab Metformin 500 mg BD x 30 days"])))
    out = tmp_path / "out.json"
    call_command("read_prescription", str(first), str(second), "--json", str(out))
    results = json.loads(out.read_text())
    assert [r["file"] for r in results] == [str(first), str(second)]  # as given, in argument order
    for result in results:
        assert set(result) == {"file", "text", "seconds", "medications"}
        assert isinstance(result["seconds"], float) and result["seconds"] > 0
        assert all(set(m) == KEYS for m in result["medications"])
    assert results[1]["medications"][0]["name"] == "metformin"


def test_importing_the_reading_path_loads_no_model_library():
    code = (
        "import django, sys; django.setup(); "
        "import health.scheduler.reading, health.management.commands.read_prescription; "
        "print(sorted(m for m in ('torch', 'easyocr', 'spacy') if m in sys.modules))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=ENV)
    assert run.stdout.strip() == "[]", run.stderr


def test_a_bad_file_is_reported_and_fails_the_command(tmp_path):
    """No model is needed to refuse a file, but a real process shows the exit status and stderr."""
    not_image = tmp_path / "notes.txt"
    not_image.write_text("Paracetamol 500 mg")
    missing, out = tmp_path / "missing.png", tmp_path / "out.json"
    run = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "read_prescription",
            str(not_image),
            str(tmp_path / "missing.png"),
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=ENV,
    )
    assert run.returncode == 1
    assert f"{not_image}: This is not a photo or scan we can read" in run.stderr
    assert f"{missing}: cannot open the file" in run.stderr
    assert json.loads(out.read_text()) == []


def test_the_command_raises_after_writing_what_it_could_read(tmp_path, monkeypatch):
    from health.management.commands import read_prescription as command
    from health.scheduler.reading import Reading

    monkeypatch.setattr(command, "get_reader", lambda: None)
    monkeypatch.setattr(command, "read_prescription", lambda image: Reading(text="x", lines=[], medications=[]))
    good, bad = tmp_path / "good.png", tmp_path / "bad.png"
    good.write_bytes(png(render()))
    bad.write_bytes(png(render())[:100])  # truncated
    stdout, stderr = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError) as raised:
        call_command("read_prescription", str(bad), str(good), "--json", "-", stdout=stdout, stderr=stderr)
    assert raised.value.returncode == 1
    assert f"{bad}: The image is damaged or incomplete" in stderr.getvalue()
    assert [r["file"] for r in json.loads(stdout.getvalue())] == [str(good)]


def test_boxes_are_grouped_into_lines_by_vertical_overlap():
    def box(left, top, right, bottom):
        return [[left, top], [right, top], [right, bottom], [left, bottom]]

    results = [
        (box(300, 52, 380, 80), "1-0-1", 0.9),
        (box(10, 10, 200, 40), "Dr. Rao", 0.8),
        (box(10, 50, 120, 78), "Tab", 0.95),
        (box(130, 48, 290, 79), "Dolo 650", 0.85),
        (box(400, 12, 520, 38), "Reg 123", 0.9),
        (box(10, 100, 200, 130), "Review", 0.7),
    ]
    lines = ocr.group_lines(results)
    assert [line.text for line in lines] == ["Dr. Rao Reg 123", "Tab Dolo 650 1-0-1", "Review"]
    assert lines[1].confidence == pytest.approx((0.95 + 0.85 + 0.9) / 3)
    assert lines[1].box == (10, 48, 380, 80)


def test_skew_is_measured_and_removed():
    upright = np.asarray(render(size=(760, 220)).convert("L"))
    tilted = np.asarray(render(size=(760, 220), angle=5).convert("L"))
    assert abs(preprocess.skew_angle(upright)) < 0.5
    assert preprocess.skew_angle(tilted) == pytest.approx(-5, abs=0.5)


def test_a_page_on_a_dark_table_is_cropped_and_a_scan_is_not():
    page = np.asarray(render(size=(600, 800)).convert("L"))
    assert preprocess.crop_page(page) is None  # the page fills the frame: nothing to crop
    photo = np.full((1100, 900), 60, dtype=np.uint8)
    photo[150:950, 150:750] = page
    cropped = preprocess.crop_page(photo)
    assert cropped is not None
    assert abs(cropped.shape[0] - 800) < 20 and abs(cropped.shape[1] - 600) < 20


def test_a_sideways_page_is_noticed():
    page = np.asarray(render(size=(760, 400)).convert("L"))
    assert not preprocess.is_sideways(page)
    assert preprocess.is_sideways(np.ascontiguousarray(np.rot90(page)))


def _page_with_marks(marks: list[tuple[int, int]]) -> np.ndarray:
    """A white 40 px band with black blocks (x0, x1) standing for glyphs."""
    gray = np.full((40, 400), 255, np.uint8)
    for x0, x1 in marks:
        gray[10:30, x0:x1] = 20
    return gray


def test_a_box_reaches_over_a_lone_glyph_the_detector_missed():
    # "1 tablet": the box found covers "tablet" (100-200); the "1" at 88-94, a space before it, was not
    gray = _page_with_marks([(88, 94), (100, 200)])
    [box] = ocr._widen(gray, [[100, 200, 10, 30]], [], reach=1.5)
    assert box[0] < 88 and box[1] == 200


def test_a_box_does_not_reach_over_blank_paper_or_into_its_neighbour():
    gray = _page_with_marks([(20, 60), (100, 200)])
    # blank paper to the right stays out; the neighbour on the left (a box of its own) is not overrun
    boxes = ocr._widen(gray, [[20, 60, 10, 30], [100, 200, 10, 30]], [], reach=3.0)
    assert boxes == [[20, 60, 10, 30], [100, 200, 10, 30]]
    # a slanted word (a free box) stops a widening too
    gray = _page_with_marks([(70, 90), (100, 200)])
    free = [[[68, 9], [92, 11], [92, 31], [68, 29]]]
    assert ocr._widen(gray, [[100, 200, 10, 30]], free, reach=3.0) == [[100, 200, 10, 30]]


def test_the_detector_is_shown_only_the_part_of_the_page_with_ink():
    page = np.full((1600, 1100), 250, np.uint8)
    page[100:140, 80:700] = 30  # a line of text at the top; the rest of the page is blank
    left, top, right, bottom = preprocess.ink_bounds(page)
    assert left <= 80 and top <= 100 and right >= 700 and bottom >= 140
    assert bottom < 300 and right < 800  # the blank part is left out
    blank = np.full((400, 300), 250, np.uint8)
    assert preprocess.ink_bounds(blank) == (0, 0, 300, 400)
