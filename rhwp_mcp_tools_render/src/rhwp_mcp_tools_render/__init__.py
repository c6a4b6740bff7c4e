"""Tool pack ``render``: a page of an HWP/HWPX document as 한글 prints it, as an image.

The page comes from the document's own stored layout (the line positions 한글 saved with it),
drawn by the reader's renderer in Rust: PNG as MCP image content, SVG as text that keeps the
document's characters as text (searchable, and checkable word by word against a PDF 한글 saved).
Fonts: the open-licence Nanum fonts shipped in this distribution (``fonts/``, OFL 1.1) stand in for
한글's faces (명조/바탕 kinds → NanumMyeongjo, 고딕/돋움/굴림 kinds → NanumGothic); the fonts in
the directories ``RHWP_FONT_DIR`` names (``os.pathsep``-separated) come first, so a user with
함초롬바탕 or 맑은 고딕 installed sees those.

Caps: a PNG whose base64 would not fit the server's picture cap is rendered again smaller until it
does, and a text block says so; an SVG longer than the text cap is refused with ``too_large``
naming the PNG call that fits. Nothing is imported at server start beyond the host's markers.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field

from rhwp_mcp_host import (
    FilePath,
    Register,
    ToolFailure,
    current_max_chars,
    current_max_image_chars,
    current_password,
    format_call,
    hookimpl,
)

if TYPE_CHECKING:
    from rhwp_core import Document

FONT_DIR_ENV = "RHWP_FONT_DIR"
# Characters kept free for the text block that reports a downscale.
_NOTE_ROOM = 400
# A PNG that does not fit is rendered again at most this many times, each smaller.
_MAX_PASSES = 8

PageNumber = Annotated[
    int,
    Field(ge=1, le=1_000_000, description="The page, 1-based, as 한글 numbers pages from the document's start."),
]
ImageFormat = Annotated[
    Literal["png", "svg"],
    Field(description="`png`: an image to look at. `svg`: the page as SVG text, its words as text."),
]
Dpi = Annotated[
    int,
    Field(
        ge=24,
        le=600,
        description="Pixels per inch of the PNG (96: screen size; 150-200 to read small print).",
    ),
]
MaxSide = Annotated[
    int | None,
    Field(
        ge=16,
        le=20000,
        description="Scale the PNG down so that neither side exceeds this many pixels (e.g. 800 for a cheap glance).",
    ),
]


@cache
def _shipped_fonts() -> str:
    return str(Path(__file__).with_name("fonts"))


def font_dirs() -> list[str]:
    """The user's font directories (``RHWP_FONT_DIR``) first, then the fonts this pack ships."""
    user = [d for d in os.environ.get(FONT_DIR_ENV, "").split(os.pathsep) if d.strip()]
    return [*user, _shipped_fonts()]


def _b64_len(n: int) -> int:
    return 4 * ((n + 2) // 3)


def _page_count(doc: Document) -> int | None:
    pages = doc.summary().get("pages")
    return pages if isinstance(pages, int) else None


def _check_page(path: str, doc: Document, page: int) -> None:
    pages = _page_count(doc)
    if pages is not None and page > pages:
        raise ToolFailure(
            "invalid_input",
            f"page {page} is past the end: the document has {pages} page{'s' if pages != 1 else ''}",
            f"ask for a page from 1 to {pages}, e.g. {format_call('render_page', path=path, page=pages)}",
        )


def _png(doc: Document, page: int, dpi: int, max_side: int | None, password: str | None) -> tuple[bytes, list[str]]:
    """The page as PNG within the picture cap: rendered again smaller while its base64 does not fit."""
    cap = current_max_image_chars() - _NOTE_ROOM
    dirs = font_dirs()
    data = doc.render_page(page, format="png", dpi=dpi, max_side=max_side, font_dirs=dirs, password=password)
    assert isinstance(data, bytes)
    notes: list[str] = []
    side = max_side
    for _ in range(_MAX_PASSES):
        size = _b64_len(len(data))
        if size <= cap:
            return data, notes
        width, height = _png_size(data)
        longer = max(width, height)
        # PNG size grows roughly with the pixel count: shrink the side by the square root, a little more.
        side = max(16, min(longer - 1, int(longer * (cap / size) ** 0.5 * 0.9)))
        data = doc.render_page(page, format="png", dpi=dpi, max_side=side, font_dirs=dirs, password=password)
        assert isinstance(data, bytes)
        notes = [
            f"Rendered at {side} pixels on the longer side to fit the server's picture cap of "
            f"{cap + _NOTE_ROOM} base64 characters (raise --max-image-chars for more detail, or ask "
            'for format="svg" to read the words as text).'
        ]
    if _b64_len(len(data)) <= cap:
        return data, notes
    raise ToolFailure(
        "too_large",
        f"page {page} does not fit the picture cap of {cap + _NOTE_ROOM} characters even at {side} pixels",
        'restart the server with a larger --max-image-chars / RHWP_MCP_MAX_IMAGE_CHARS, or ask for format="svg"',
    )


def _png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR (the renderer writes it first)."""
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def render_page(
    path: FilePath,
    page: PageNumber,
    format: ImageFormat = "png",
    dpi: Dpi = 96,
    max_side: MaxSide = None,
) -> Any:
    """One page of an HWP/HWPX document as 한글 prints it: an image you can look at (PNG), or the
    page as SVG text whose words are text.

    Drawn from the layout 한글 stored in the document (line positions, fonts, table borders,
    pictures), so page N is what 한글 shows as page N — the page numbers parse_hwp_summary's
    `pages` and the `pages=` parameter of the other tools use. `dpi` sets the PNG's resolution
    (96 = screen size; 150-200 to read small print), `max_side` caps its longer side in pixels. To
    quote or search the page's text, use extract_text(path, pages="N") rather than reading the
    image.
    """
    import rhwp_core

    password = current_password()  # the caller's, if any (the host takes it out of the arguments)
    doc = rhwp_core.load(path, password=password)
    _check_page(path, doc, page)
    if format == "svg":
        svg = doc.render_page(page, format="svg", font_dirs=font_dirs(), password=password)
        assert isinstance(svg, str)
        cap = current_max_chars()
        if len(svg) > cap:
            raise ToolFailure(
                "too_large",
                f"page {page} as SVG is {len(svg)} characters, over the response cap of {cap}",
                f"ask for the image instead: {format_call('render_page', path=path, page=page, format='png')}, "
                f"or the page's words: {format_call('extract_text', path=path, pages=str(page))}",
            )
        return svg
    data, notes = _png(doc, page, dpi, max_side, password)
    from fastmcp.utilities.types import Image as ImageContent

    return [ImageContent(data=data, format="png"), *notes]


@hookimpl
def rhwp_mcp_register_tools(register: Register) -> None:
    register(render_page, title="Show a page of an HWP/HWPX document as printed")
