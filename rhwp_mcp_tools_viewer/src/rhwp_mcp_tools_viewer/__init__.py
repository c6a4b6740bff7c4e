"""Tool pack ``viewer``: look at a document page by page inside the chat (MCP Apps).

``view_document`` is the tool the model calls; it carries ``_meta.ui.resourceUri`` so hosts that
render MCP Apps show ``ui://rhwp/viewer.html`` beside the result. Its result is small (title,
pages, the outline, a handle the app passes back) and reads well as text for hosts without Apps.
The page bodies come through app-only tools (``_meta.ui.visibility = ["app"]``): the model never
sees them listed, so a whole page's HTML never lands in its context by accident.

Every response stays under the server's cap: a page whose HTML and text do not fit comes in
parts (``part``/``parts``), which the viewer fetches and joins before showing. The pictures a part
names come with it as MCP image content (the kind of block the server's picture cap counts, not
the text cap), as stored when the browser shows that format; the viewer turns them into ``data:``
URIs, the only pictures its sanitiser and CSP allow.
"""

from __future__ import annotations

import base64
import html as html_lib
import re
from importlib.resources import files
from typing import TYPE_CHECKING, Annotated, Any

import pydantic_core
from fastmcp.tools.base import ToolResult
from mcp.types import ImageContent, TextContent
from pydantic import Field
from typing_extensions import TypedDict

from rhwp_mcp_host import (
    FilePath,
    Register,
    RegisterResource,
    ToolFailure,
    caller_source,
    current_max_chars,
    current_max_image_chars,
    current_password,
    hookimpl,
    phase,
)

if TYPE_CHECKING:
    from rhwp_core import Document

VIEWER_URI = "ui://rhwp/viewer.html"
VIEWER_MIME = "text/html;profile=mcp-app"
MAX_OUTLINE = 200
"""view_document carries at most this many headings (the viewer asks viewer_outline for more)."""
EXCERPT_CHARS = 600
"""The start of the page on screen, in view_document's text for hosts without Apps."""
ENVELOPE_CHARS = 600
"""Room kept in each page part for the JSON keys, the source and the numbers."""

WEB_PICTURES = frozenset({"image/png", "image/jpeg", "image/gif", "image/bmp", "image/webp"})
"""Formats every browser decodes itself, so they go as stored (no conversion, no Pillow). Others
(TIFF, WMF/EMF, OLE) stay placeholders; get_image converts what can be converted."""

VIEWER_RESOURCE_META: dict[str, Any] = {"ui": {"csp": {"resourceDomains": ["data:"]}}}
"""The sandbox the viewer asks the host for: nothing from the network, and ``data:`` for the
document's pictures (the only source of them). The MCP Apps default CSP allows ``data:`` pictures
already, but a host may be stricter when nothing is declared (the MCP Inspector 2.12.0 then sets
``img-src 'none'``). Hosts also add it to ``script-src`` and ``style-src``, next to the
``'unsafe-inline'`` the viewer needs anyway, so scripts gain nothing they could not already do; and
document HTML never carries script (the viewer rebuilds it from an allow-list)."""

_APP_ONLY: dict[str, Any] = {"ui": {"resourceUri": VIEWER_URI, "visibility": ["app"]}}


class OutlineEntry(TypedDict):
    level: int
    text: str
    page: int | None


class ViewResult(TypedDict):
    source: str
    """Pass this back as `path` to the viewer's tools (a doc: handle stays a handle)."""
    title: str | None
    format: str
    pages: int | None
    """Pages as last laid out by the authoring program; None when the document does not say."""
    page: int
    """The page the viewer opens on."""
    outline: list[OutlineEntry]
    outline_total: int
    excerpt: str
    """The start of that page's text (for hosts that show no app)."""


class PictureRef(TypedDict):
    name: str
    """The bin-data name, as the page HTML's ``data-bin-data`` gives it."""
    media_type: str | None
    block: int | None
    """Index of the image block holding it in the result's content; None when not sent."""
    note: str | None
    """Why it is not sent (format, or the picture cap), for the placeholder."""


class PageResult(TypedDict):
    source: str
    page: int
    pages: int | None
    part: int
    parts: int
    html: str
    """This part of the page's body HTML (rhwp-core's escaped renderer); join the parts in order."""
    text: str
    """This part of the page's text, as extract_text(pages=page) gives it."""
    pictures: list[PictureRef]
    """The pictures this part's HTML names, in order; their bytes are image content blocks."""
    continues: int | None
    """When the page holds no block of its own (it lies inside a long table that runs over it), the
    page that block starts on, where the viewer shows it; else None."""


class OutlineResult(TypedDict):
    source: str
    outline: list[OutlineEntry]
    total: int
    next_offset: int | None


def _load(path: str) -> Document:
    import rhwp_core

    # The password the caller gave (the host takes it out of the arguments), if any.
    return rhwp_core.load(path, password=current_password())


def _json_size(value: Any) -> int:
    return len(pydantic_core.to_json(value))


def _check_page(doc: Document, page: int | None) -> int:
    count = doc.page_count
    if page is None:
        return 1
    if count is None:
        if page != 1:
            raise ToolFailure(
                "invalid_input",
                "this document does not record its pages, so it is shown as one page",
                "use page=1",
            )
        return 1
    if page > count:
        raise ToolFailure(
            "invalid_input", f"page {page} is past the last page ({count})", f"use a page from 1 to {count}"
        )
    return page


def _outline(doc: Document) -> list[OutlineEntry]:
    return [{"level": h.level, "text": h.text, "page": h.page} for h in doc.outline()]


_BODY = re.compile(r"<main>\s*(.*?)\s*</main>", re.S)


def _page_body(doc: Document, page: int) -> tuple[str, str]:
    """The body HTML (inside <main>) and the text of one page (the whole document when it has no pages)."""
    pages = str(page) if doc.page_count is not None else None
    html = doc.to_html(pages=pages)
    match = _BODY.search(html)
    body = match.group(1) if match else html
    return body, doc.extract_text(pages=pages)


def _holds_no_block(text: str) -> bool:
    """Whether a page's text is only what the reader says of it (``[table rows …, continued from
    page 5]``, ``[blank page]``): no block starts there, so the viewer offers the page one does."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return all(line.startswith("[") and line.endswith("]") for line in lines)


def _continues(doc: Document, page: int) -> int | None:
    """The page where the block that runs over ``page`` starts, when ``page`` has no block of its
    own (a block belongs to the page it starts on: a table over ten pages shows on its first)."""
    from rhwp_core.navigation import effective_pages

    body, _ = doc._native.block_pages()
    placed = effective_pages(p for _, p in body)
    before = [p for p in placed if p is not None and p < page]
    if not before or any(p == page for p in placed):
        return None
    return max(before)


def _cut_points(text: str, parts: int, snap_to_tag: bool) -> list[int]:
    """Where to cut ``text`` into ``parts`` nearly equal pieces; HTML is cut after a '>' so no tag
    or entity is split (the viewer joins the parts anyway, but each stays readable alone)."""
    cuts = [0]
    for i in range(1, parts):
        at = len(text) * i // parts
        if snap_to_tag:
            gt = text.rfind(">", cuts[-1], at)
            at = gt + 1 if gt >= 0 else at
        cuts.append(max(at, cuts[-1]))
    cuts.append(len(text))
    return cuts


def view_document(
    path: FilePath,
    page: Annotated[int | None, Field(ge=1, description="The page to open on (1-based); default the first.")] = None,
) -> ViewResult:
    """Show an HWP/HWPX/HWPML/HWP 3.x document to the person, page by page, in a viewer inside the
    chat (hosts with MCP Apps), with its outline to jump around. Returns the title, the page count,
    the page opened, the outline (level, text, page) and the start of that page's text. The viewer
    tells you which page the person is looking at. To read the text yourself use extract_text."""
    phase(0, 3, "reading the document")
    doc = _load(path)
    current = _check_page(doc, page)
    summary = doc.summary()
    phase(1, 3, "placing the outline")
    outline = _outline(doc)
    phase(2, 3, "laying out the page")
    _, text = _page_body(doc, current)
    result: ViewResult = {
        "source": caller_source(path),
        "title": summary.get("title"),
        "format": str(summary.get("format")),
        "pages": doc.page_count,
        "page": current,
        "outline": [],
        "outline_total": len(outline),
        "excerpt": text[:EXCERPT_CHARS],
    }
    budget = current_max_chars() - _json_size(result) - 100
    kept: list[OutlineEntry] = []
    for entry in outline[:MAX_OUTLINE]:
        if _json_size([*kept, entry]) > budget:
            break
        kept.append(entry)
    result["outline"] = kept
    return result


def viewer_page(
    path: FilePath,
    page: Annotated[int, Field(ge=1, description="The page (1-based).")],
    part: Annotated[int, Field(ge=1, description="Which part of a page too large for one response.")] = 1,
) -> ToolResult:
    """One page for the viewer: its body HTML (escaped renderer) and its text, in parts when large,
    with the pictures that part shows as image content (a PageResult as structured content)."""
    phase(0, 2, "reading the document")
    doc = _load(path)
    current = _check_page(doc, page)
    phase(1, 2, "laying out the page")
    body, text = _page_body(doc, current)
    source = caller_source(path)
    room = current_max_chars() - ENVELOPE_CHARS - _json_size(source)
    parts = max(1, -(-(_json_size(body) + _json_size(text)) // max(room, 1)))
    while True:
        html_cuts = _cut_points(body, parts, snap_to_tag=True)
        text_cuts = _cut_points(text, parts, snap_to_tag=False)
        pieces = [(body[html_cuts[i] : html_cuts[i + 1]], text[text_cuts[i] : text_cuts[i + 1]]) for i in range(parts)]
        fits = all(_json_size(h) + _json_size(t) + _refs_room(h) <= room for h, t in pieces)
        if fits or parts > len(body) + len(text):
            break
        parts += 1
    if part > parts:
        raise ToolFailure("invalid_input", f"page {current} has {parts} part(s), not {part}", f"use part 1 to {parts}")
    html_part, text_part = pieces[part - 1]
    pictures, images = _pictures(path, html_part)
    result: PageResult = {
        "source": source,
        "page": current,
        "pages": doc.page_count,
        "part": part,
        "parts": parts,
        "html": html_part,
        "text": text_part,
        "pictures": pictures,
        "continues": _continues(doc, current) if _holds_no_block(text) else None,
    }
    # The text block repeats the structured content (clients without it read that); the room kept
    # by ENVELOPE_CHARS covers the picture list of an ordinary page.
    text_block = TextContent(type="text", text=pydantic_core.to_json(result).decode())
    return ToolResult(content=[text_block, *images], structured_content=dict(result))


_BIN_NAME = re.compile(r'<img\b[^>]*\bdata-bin-data="([^"]*)"')


_REF_ROOM = 260
"""Text a picture's entry in ``pictures`` takes beyond its name: the keys, a media type, a note."""


def _refs_room(html: str) -> int:
    """An upper bound on the text the ``pictures`` list of this piece of HTML adds to the response."""
    return sum(_json_size(html_lib.unescape(m)) + _REF_ROOM for m in set(_BIN_NAME.findall(html)))


def _pictures(path: str, html: str) -> tuple[list[PictureRef], list[Any]]:
    """The pictures ``html`` names: what each is, and image blocks for those sent, in order, within
    the server's picture cap (a picture beyond it stays a placeholder, with a note saying why)."""
    import rhwp_core

    names = list(dict.fromkeys(html_lib.unescape(m) for m in _BIN_NAME.findall(html)))
    budget = current_max_image_chars()
    refs: list[PictureRef] = []
    blocks: list[Any] = []
    for name in names:
        ref: PictureRef = {"name": name, "media_type": None, "block": None, "note": None}
        refs.append(ref)
        try:
            item = rhwp_core.read_bin_item(path, name, password=current_password())
        except rhwp_core.UnknownBinDataError:
            ref["note"] = "not stored in the document (a linked picture?)"
            continue
        except rhwp_core.HwpError as exc:
            # One damaged picture leaves a placeholder; the page's text still shows.
            ref["note"] = f"cannot be read ({type(exc).__name__})"
            continue
        ref["media_type"] = item.media_type
        if item.media_type not in WEB_PICTURES:
            ref["note"] = f"{item.media_type or 'an unknown format'} is not shown in the browser; get_image converts it"
            continue
        size = 4 * ((len(item.data) + 2) // 3)
        if size > budget:
            ref["note"] = f"over the server's picture cap ({size} base64 characters, {budget} left); use get_image"
            continue
        budget -= size
        ref["block"] = 1 + len(blocks)  # after the text block
        data = base64.b64encode(item.data).decode("ascii")
        blocks.append(ImageContent(type="image", data=data, mime_type=item.media_type))
    return refs, blocks


def viewer_outline(
    path: FilePath,
    offset: Annotated[int, Field(ge=0, description="The first heading to return.")] = 0,
) -> OutlineResult:
    """The document's outline for the viewer: headings (level, text, page) from offset, as many as fit."""
    phase(0, 2, "reading the document")
    doc = _load(path)
    phase(1, 2, "placing the outline")
    outline = _outline(doc)
    if offset > len(outline):
        raise ToolFailure(
            "invalid_input", f"offset {offset} is past the outline ({len(outline)} headings)", "use offset=0"
        )
    source = caller_source(path)
    budget = current_max_chars() - _json_size(source) - 200
    kept: list[OutlineEntry] = []
    used = 2
    for entry in outline[offset:]:
        size = _json_size(entry) + 1
        if used + size > budget:
            break
        kept.append(entry)
        used += size
    end = offset + len(kept)
    return {
        "source": source,
        "outline": kept,
        "total": len(outline),
        "next_offset": end if end < len(outline) else None,
    }


def viewer_html() -> str:
    """The viewer page (one self-contained file shipped in this package)."""
    return files(__package__).joinpath("viewer.html").read_text(encoding="utf-8")


@hookimpl
def rhwp_mcp_register_tools(register: Register) -> None:
    register(view_document, title="View document", meta={"ui": {"resourceUri": VIEWER_URI}})
    register(viewer_page, title="Viewer: one page", meta=_APP_ONLY)
    register(viewer_outline, title="Viewer: outline", meta=_APP_ONLY)


@hookimpl
def rhwp_mcp_register_resources(register: RegisterResource) -> None:
    register(
        VIEWER_URI,
        viewer_html,
        name="rhwp document viewer",
        description="Shows an HWP/HWPX document page by page with its outline (MCP Apps).",
        mime_type=VIEWER_MIME,
        meta=VIEWER_RESOURCE_META,
    )
