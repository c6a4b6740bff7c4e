"""The render pack through an in-process MCP client (rhwp_mcp_host.testing), as a client sees it: a
PNG that decodes at the size the page and dpi give, an SVG that holds the page's words as text, the
caps honoured (a PNG rendered smaller to fit, an SVG over the text cap refused with the PNG call
that fits), the page range checked, and the shell's `rhwp-mcp call render_page -o FILE`."""

from __future__ import annotations

import base64
import io
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from corpus_support import FIXTURES
from PIL import Image
from rhwp_mcp_host.testing import PackSession, pack_session

import rhwp_core
import rhwp_mcp_tools_render

HWP = FIXTURES / "hwp" / "hwplib-distribution.hwp"  # a distribution (배포용) document: its text is decrypted
HWPX = FIXTURES / "hwpx" / "pyhwpx-mpm_recruitment_notice.hwpx"
SVG_NS = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def session() -> Iterator[PackSession]:
    with pack_session(rhwp_mcp_tools_render) as s:
        yield s


def _png(result: Any) -> tuple[Image.Image, list[str]]:
    assert not result.is_error, result.content
    images = [b for b in result.content if b.type == "image"]
    texts = [b.text for b in result.content if b.type == "text"]
    assert len(images) == 1 and images[0].mime_type == "image/png", result.content
    picture = Image.open(io.BytesIO(base64.b64decode(images[0].data, validate=True)))
    picture.load()
    assert picture.format == "PNG"
    return picture, texts


def _error(result: Any) -> dict[str, str]:
    assert result.is_error
    payload: dict[str, str] = json.loads(result.content[0].text)
    return payload


def _page_mm(path: Path) -> tuple[float, float]:
    """The first page's size in mm, from the SVG's own width/height (which say mm)."""
    svg = rhwp_core.parse(path).render_page(1, format="svg", font_dirs=rhwp_mcp_tools_render.font_dirs())
    assert isinstance(svg, str)
    root = ET.fromstring(svg)
    return float(root.attrib["width"].removesuffix("mm")), float(root.attrib["height"].removesuffix("mm"))


def _words(path: Path, page: int) -> set[str]:
    text = rhwp_core.parse(path).extract_text(include_furniture=False, pages=str(page))
    return {w for w in text.split() if len(w) >= 2}


def test_listed_with_its_parameters(session: PackSession) -> None:
    (tool,) = [t for t in session.list_tools() if t.name == "render_page"]
    assert set(tool.input_schema["properties"]) == {"path", "page", "format", "dpi", "max_side", "password"}
    assert tool.input_schema["properties"]["format"]["enum"] == ["png", "svg"]
    assert tool.output_schema is None


@pytest.mark.parametrize("path", [HWP, HWPX], ids=["hwp", "hwpx"])
def test_png_is_the_page_at_its_dpi(session: PackSession, path: Path) -> None:
    width_mm, height_mm = _page_mm(path)
    for dpi in (96, 48):
        picture, texts = _png(session.call_raw("render_page", {"path": str(path), "page": 1, "dpi": dpi}))
        expected = (round(width_mm / 25.4 * dpi), round(height_mm / 25.4 * dpi))
        assert abs(picture.width - expected[0]) <= 1 and abs(picture.height - expected[1]) <= 1, (
            picture.size,
            expected,
        )
        assert texts == []
        # Not a blank page: something is drawn in ink.
        assert picture.convert("L").getextrema()[0] < 128


def test_max_side_downscales(session: PackSession) -> None:
    picture, _ = _png(session.call_raw("render_page", {"path": str(HWPX), "page": 1, "max_side": 300}))
    assert max(picture.size) == 300


@pytest.mark.parametrize("path", [HWP, HWPX], ids=["hwp", "hwpx"])
def test_svg_holds_the_pages_words_as_text(path: Path) -> None:
    # Every character carries its position: a full page is tens of thousands of characters, more
    # than the default text cap (the cap's own test is below).
    with pack_session(rhwp_mcp_tools_render, max_chars=400_000) as roomy:
        result = roomy.call_raw("render_page", {"path": str(path), "page": 1, "format": "svg"})
    assert not result.is_error, result.content
    (block,) = result.content
    root = ET.fromstring(block.text)
    assert root.tag == f"{SVG_NS}svg" and root.attrib["width"].endswith("mm")
    # A word's characters may sit in several <text> runs (a script or a character shape changes
    # inside it: `2023` and `년`); drawn in reading order, they join up without the spaces.
    drawn = "".join("".join(t.itertext()) for t in root.iter(f"{SVG_NS}text"))
    drawn = "".join(drawn.split())
    missing = {w for w in _words(path, 1) if w not in drawn}
    assert not missing, sorted(missing)[:20]


def test_png_over_the_picture_cap_is_rendered_smaller_and_says_so() -> None:
    with pack_session(rhwp_mcp_tools_render, max_image_chars=60_000) as small:
        picture, texts = _png(small.call_raw("render_page", {"path": str(HWPX), "page": 1, "dpi": 200}))
    assert len(texts) == 1 and "to fit the server's picture cap" in texts[0]
    assert max(picture.size) < round(297 / 25.4 * 200)


def test_svg_over_the_text_cap_names_the_png_call() -> None:
    with pack_session(rhwp_mcp_tools_render, max_chars=2000) as small:
        error = _error(small.call_raw("render_page", {"path": str(HWPX), "page": 1, "format": "svg"}))
    assert error["error"] == "too_large"
    assert "render_page(path=" in error["suggestion"] and 'format="png"' in error["suggestion"]


def test_a_page_past_the_end_names_the_range(session: PackSession) -> None:
    pages = rhwp_core.parse(HWPX).summary()["pages"]
    error = _error(session.call_raw("render_page", {"path": str(HWPX), "page": pages + 1}))
    assert error["error"] == "invalid_input" and f"1 to {pages}" in error["suggestion"]
    error = _error(session.call_raw("render_page", {"path": str(HWPX), "page": 0}))
    assert error["error"] == "invalid_input"


def test_the_users_font_dir_comes_first(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(rhwp_mcp_tools_render.FONT_DIR_ENV, os.pathsep.join([str(tmp_path), ""]))
    dirs = rhwp_mcp_tools_render.font_dirs()
    assert dirs[0] == str(tmp_path) and len(dirs) == 2
    shipped = Path(dirs[1])
    assert sorted(p.name for p in shipped.glob("*.ttf")) == [
        "NanumGothic.ttf",
        "NanumGothicBold.ttf",
        "NanumMyeongjo.ttf",
        "NanumMyeongjoBold.ttf",
    ]
    assert "SIL OPEN FONT LICENSE" in (shipped / "OFL.txt").read_text(encoding="utf-8").upper()


def test_call_from_the_shell_writes_the_png(tmp_path: Path) -> None:
    out = tmp_path / "page1.png"
    rhwp_mcp = Path(sys.executable).with_name("rhwp-mcp")
    done = subprocess.run(
        [str(rhwp_mcp), "call", "render_page", f"path={HWPX}", "page=1", "--output", str(out)],
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    with Image.open(out) as picture:
        assert picture.format == "PNG" and picture.width > 100
