"""Pages as images: Document.render_page draws a page from the layout 한글 stored (HWP 5.0 and
HWPX), as SVG that keeps the page's words as text and as PNG whose size follows the dpi."""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PIL import Image
from rhwp_core.errors import InvalidRequestError

import rhwp_core

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
FONTS = ROOT / "rhwp_mcp_tools_render" / "src" / "rhwp_mcp_tools_render" / "fonts"
SVG = "{http://www.w3.org/2000/svg}"

DOCUMENTS = [
    "hwp/hwplib-etc.hwp",
    "hwp/rhwp-nested-cell-pagination.hwp",
    "hwpx/hwpxlib-multipara.hwpx",
    "hwpx/rhwp-footnote-01.hwpx",
    "hwpx/pyhwpx-mpm_recruitment_notice.hwpx",
]


def _words(text: str) -> set[str]:
    return {w for w in re.split(r"\s+", text) if len(w) >= 2}


def _svg_text(svg: str) -> str:
    # A word may run over several <text> elements (one per character style): joined as drawn.
    root = ET.fromstring(svg)
    return "".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))


@pytest.mark.parametrize("name", DOCUMENTS)
def test_page_one_as_svg_holds_the_pages_words(name: str) -> None:
    doc = rhwp_core.parse(FIXTURES / name)
    svg = doc.render_page(1, "svg", font_dirs=[FONTS])
    root = ET.fromstring(svg)  # well-formed XML
    assert root.tag == f"{SVG}svg"
    assert root.attrib["width"].endswith("mm")
    drawn = _svg_text(svg)
    # The words of page 1 as the text view gives them: (nearly) all drawn, and nothing else.
    wanted = _words(doc.extract_text(include_furniture=False, pages="1"))
    assert wanted, name
    got = {w for w in wanted if w in drawn}
    assert len(got) >= 0.9 * len(wanted), sorted(wanted - got)[:20]


@pytest.mark.parametrize("name", DOCUMENTS[::2])
def test_page_one_as_png_decodes_at_the_dpi_asked(name: str) -> None:
    doc = rhwp_core.parse((FIXTURES / name).read_bytes())
    svg = doc.render_page(1, font_dirs=[str(FONTS)])
    root = ET.fromstring(svg)
    width_mm = float(root.attrib["width"].removesuffix("mm"))
    height_mm = float(root.attrib["height"].removesuffix("mm"))
    for dpi in (48, 96):
        png = doc.render_page(1, "png", dpi=dpi, font_dirs=[FONTS])
        image = Image.open(io.BytesIO(png))
        image.load()
        assert image.format == "PNG"
        assert abs(image.width - width_mm / 25.4 * dpi) <= 1.5
        assert abs(image.height - height_mm / 25.4 * dpi) <= 1.5
        # Something is drawn: not a blank page.
        low, _high = image.convert("L").getextrema()
        assert isinstance(low, int) and low < 128
    small = Image.open(io.BytesIO(doc.render_page(1, "png", max_side=300, font_dirs=[FONTS])))
    assert max(small.size) <= 300


def test_table_cells_are_drawn_with_their_borders_and_text() -> None:
    doc = rhwp_core.parse(FIXTURES / "hwpx/hwpxlib-SimpleTable.hwpx")
    svg = doc.render_page(1, font_dirs=[FONTS])
    root = ET.fromstring(svg)
    texts = [("".join(t.itertext()), float(t.attrib["y"])) for t in root.iter(f"{SVG}text")]
    assert sorted(t for t, _ in texts) == ["1", "2", "3", "4", "5"]
    borders = list(root.iter(f"{SVG}line"))
    assert len(borders) >= 4 * 4
    # Each cell's text lies inside the table's borders.
    ys = [float(b.attrib["y1"]) for b in borders if b.attrib["y1"] == b.attrib["y2"]]
    assert all(min(ys) < y < max(ys) for _, y in texts)


def test_headers_and_footers_are_drawn_above_and_below_the_body() -> None:
    # The document is a header ("머리말 테스트") and a footer ("꼬리말") around an empty body.
    doc = rhwp_core.parse(FIXTURES / "hwpx/hwpxlib-HeaderFooter.hwpx")
    root = ET.fromstring(doc.render_page(1, font_dirs=[FONTS]))
    height = float(root.attrib["viewBox"].split()[3])
    at = {"".join(t.itertext()): float(t.attrib["y"]) for t in root.iter(f"{SVG}text")}
    assert at["머리말"] == at["테스트"] < 0.15 * height, at
    assert at["꼬리말"] > 0.85 * height, at


def test_a_page_outside_the_document_names_the_pages() -> None:
    doc = rhwp_core.parse(FIXTURES / DOCUMENTS[0])
    count = doc.page_count
    assert count
    with pytest.raises(InvalidRequestError, match=rf"pages 1 to {count}") as raised:
        doc.render_page(count + 1, font_dirs=[FONTS])
    assert raised.value.code == "invalid_input"
    with pytest.raises(InvalidRequestError):
        doc.render_page(0, font_dirs=[FONTS])
    with pytest.raises(InvalidRequestError):
        doc.render_page(1, "gif", font_dirs=[FONTS])  # type: ignore[call-overload]
    with pytest.raises(InvalidRequestError):
        doc.render_page(1, "png", dpi=0, font_dirs=[FONTS])


def test_without_fonts_it_says_where_to_point() -> None:
    doc = rhwp_core.parse(FIXTURES / DOCUMENTS[0])
    with pytest.raises(InvalidRequestError, match="RHWP_FONT_DIR"):
        doc.render_page(1, font_dirs=[str(FIXTURES / "hwp")])


def test_hwp3_pages_are_not_laid_out_yet() -> None:
    path = next((FIXTURES / "hwp3").glob("*.hwp"))
    doc = rhwp_core.parse(path)
    with pytest.raises(rhwp_core.HwpError) as raised:
        doc.render_page(1, font_dirs=[FONTS])
    assert raised.value.code == "unsupported_format"


def test_hancoms_private_use_symbols_are_drawn_as_the_text_shows_them() -> None:
    # The 규제심사안 marks items with U+F02FB, which 한글 draws as ►: drawn so, not as a missing glyph.
    doc = rhwp_core.parse(FIXTURES / "hwp" / "rhwp-nested-cell-pagination.hwp")
    page = next(p for p in range(1, (doc.page_count or 0) + 1) if "►" in doc.extract_text(pages=str(p)))
    svg = doc.render_page(page, format="svg", font_dirs=[FONTS])
    assert isinstance(svg, str)
    assert svg.count("►") == doc.extract_text(pages=str(page)).count("►") > 0
    assert not [c for c in svg if 0xE000 <= ord(c) <= 0xF8FF or ord(c) >= 0xF0000]
