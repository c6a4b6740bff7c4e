"""Reading a long document the way a person does: its outline, and its pages.

- **Outline**: the headings in reading order, each with where it starts in the plain text and in
  the Markdown view, and its index among the top-level blocks, so a reader can jump to a chapter.
- **Pages**: ``"3"``, ``"3-5"``, ``"1,4-6"`` select what is printed on those pages (as last laid
  out by the authoring program): the top-level blocks that start there, and the part of a table
  that runs on through them (its rows on those pages, with a line saying which rows and that the
  table continues).

What counts as a heading (a decision, docs/decisions.md "What counts as a heading"): a top-level body paragraph that the
document marks as one — an outline style (개요 1–7), a heading style, an outline paragraph head
(the IR's ``heading_level``) — or, in documents that mark none, a short paragraph that opens with
a chapter number of the kinds Korean reports use: ``제1장``/``제 2 편``/``제3부`` (level 1),
``제1절`` (level 2), or a Roman numeral ``Ⅰ.`` (level 1) — but not the table of contents' copy of
such a line, which ends in a page number after a tab or a leader, or stands in a list after a
목차/차례 title until the first chapter line comes again. Numbered paragraphs (``1.``, ``가.``) are
list items, not headings, unless the document styles them as headings.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from .errors import InvalidRequestError

if TYPE_CHECKING:
    from .ir import Block, HwpDocument, Paragraph, Table


class BlockText(NamedTuple):
    """One top-level block's plain text and where it comes from (``Document.block_texts``).

    ``scope`` is ``body``, ``furniture`` (headers, footers, notes) or ``annotation`` (memos).
    """

    scope: str
    section: int
    paragraph: int
    kind: str
    page: int | None
    text: str
    block: int = -1
    """Its index among the body's top-level blocks (``iter_blocks(offset=block)``), or among the
    furniture items."""


MAX_OUTLINE_TEXT = 120


# One outline entry: what Document.outline() gives, and the shape the tool packs answer with (the
# summary's outline, search's suggestions). No class docstring: it would become the description of
# that shape in every tool's output schema.
@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    block: int
    """Index among the top-level body blocks: ``iter_blocks(offset=block)`` starts at it."""
    page: int | None
    text_offset: int
    """Where the heading starts in ``extract_text()`` (default arguments: body first, so furniture
    does not move it): ``extract_text(offset=text_offset)``."""
    markdown_offset: int
    """Where the heading's line starts in ``to_markdown()`` (default arguments):
    ``to_markdown(offset=markdown_offset)``."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "text": self.text,
            "block": self.block,
            "page": self.page,
            "text_offset": self.text_offset,
            "markdown_offset": self.markdown_offset,
        }


@dataclass(frozen=True)
class Place:
    """Where one top-level block shows in the text and Markdown views: the addresses the outline
    and search hand out, computed in one place so they always agree with the views."""

    scope: str
    """``body`` or ``furniture`` (headers, footers, foot/endnotes)."""
    block: int
    """Its index for ``iter_blocks(scope=scope, offset=block)`` (furniture: among the furniture's
    top-level blocks; with scope="all" add the number of body blocks)."""
    page: int | None
    """The page it is laid out on, as stored (None: no page of its own, or no layout)."""
    text: str
    """Its plain text (as ``extract_text`` writes it)."""
    text_offset: int | None
    """Where that text starts in ``extract_text()`` (default arguments); None when the block shows
    no text there (empty, or a header/footer whose words were already shown once)."""
    markdown_offset: int | None
    """Where it starts in ``to_markdown()`` (default arguments: the body); None for furniture and
    for blocks that render empty."""


def paragraph_marker(paragraph: Paragraph) -> str:
    """The number or bullet the text shows before a paragraph (reader/src/text.rs
    ``marker_prefix``): its list marker, stripped, when it and the paragraph's text are not empty."""
    marker = paragraph.list.marker.strip() if paragraph.list is not None else ""
    return marker if marker and paragraph.text else ""


def paragraph_plain_text(paragraph: Paragraph) -> str:
    """A paragraph's line in ``extract_text``: ``{marker} {text}``, or its text alone."""
    marker = paragraph_marker(paragraph)
    return f"{marker} {paragraph.text}" if marker else paragraph.text


def block_plain_text(block: Block) -> str:
    """The plain text of one IR block, as the native ``extract_text`` writes it (reader/src/text.rs:
    non-empty lines joined by a newline; tables: caption, then cells in order)."""
    from .ir import child_blocks

    if block.kind == "paragraph":
        return paragraph_plain_text(block)
    if block.kind == "unknown":
        return block.text or ""
    if block.kind == "form_control":
        return block.shown
    lines = [block.shown] if block.kind == "equation" else []
    lines.extend(block_plain_text(child) for child in child_blocks(block))
    return "\n".join(line for line in lines if line)


def places(
    units: Sequence[BlockText], markdown_offsets: Sequence[int | None], doc: HwpDocument | None = None
) -> list[Place]:
    """Each top-level block's place in ``extract_text()`` and ``to_markdown()``.

    ``units`` are ``Document.block_texts(include_furniture=doc is not None)``: the body's blocks,
    then one unit per furniture item; ``markdown_offsets`` the start of each body block in the
    Markdown. With ``doc`` (the IR) the furniture's top-level blocks follow the body's: the text
    writes the headers and footers first (each distinct text once), then the notes, so their
    offsets follow that order, not the document's.
    """
    body = [u for u in units if u.scope == "body"]
    out: list[Place] = []
    offset = 0
    for index, unit in enumerate(body):
        out.append(Place("body", index, unit.page, unit.text, offset if unit.text else None, markdown_offsets[index]))
        if unit.text:
            # extract_text joins the non-empty block texts with one newline.
            offset += len(unit.text) + 1
    if doc is None:
        return out
    items = [u for u in units if u.scope != "body"]
    first_block: list[int] = []
    count = 0
    for item in doc.furniture:
        first_block.append(count)
        count += len(item.blocks)
    placed: dict[int, list[Place]] = {}
    seen: set[str] = set()
    order = [i for i, u in enumerate(items) if u.kind in ("header", "footer")]
    order += [i for i, u in enumerate(items) if u.kind not in ("header", "footer")]
    for i in order:
        unit, item = items[i], doc.furniture[i]
        shown = bool(unit.text) and not (unit.kind in ("header", "footer") and unit.text in seen)
        seen.add(unit.text)
        texts = [block_plain_text(b) for b in item.blocks]
        if "\n".join(t for t in texts if t) != unit.text:
            # A memo's text starts with its label (text.rs memo_label); anything else should not
            # happen (tests compare on the corpus). The item's first block then holds it all.
            texts = [unit.text] + [""] * (len(item.blocks) - 1)
        placed[i] = []
        start = offset
        for j, text in enumerate(texts):
            at = start if shown and text else None
            placed[i].append(Place("furniture", first_block[i] + j, unit.page, text, at, None))
            if text:
                start += len(text) + 1
        if shown:
            offset += len(unit.text) + 1
    for i in range(len(items)):
        out.extend(placed.get(i, []))
    return out


def outline(found: Sequence[tuple[int, int, str | None]], body: Sequence[Place]) -> list[Heading]:
    """The headings: ``found`` are the native ``outline_headings`` -- (top-level body block, level,
    line), the line set for a heading inside a table -- and ``body`` the blocks' places
    (``places``). A heading inside a table points at the table's block, and its ``text_offset`` at
    its own line in the text."""
    headings: list[Heading] = []
    searched_from: dict[int, int] = {}
    for index, level, line in found:
        place = body[index]
        if place.text_offset is None or not place.text.strip():
            continue
        text_offset = place.text_offset
        shown = place.text
        if line is not None:
            at = place.text.find(line, searched_from.get(index, 0))
            if at < 0:
                continue
            searched_from[index] = at + len(line)
            text_offset += at
            shown = line
        shown = shown_heading(shown)
        md = place.markdown_offset
        headings.append(
            Heading(
                level=int(level),
                text=shown,
                block=index,
                page=place.page,
                text_offset=text_offset,
                markdown_offset=md if md is not None else -1,
            )
        )
    return headings


def heading_paths(headings: Sequence[tuple[int, int, str]]) -> tuple[list[int], list[list[str]]]:
    """Each heading's block and its path (the headings above it, outermost first, itself last),
    from ``(block, level, text)`` in reading order: what a block sits under is the path of the last
    heading at or before it (``path_at``)."""
    stack: list[tuple[int, str]] = []
    blocks: list[int] = []
    paths: list[list[str]] = []
    for block, level, text in headings:
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, text))
        blocks.append(block)
        paths.append([t for _, t in stack])
    return blocks, paths


def shown_heading(text: str) -> str:
    """A heading's text as the outline gives it: whitespace squeezed, at most MAX_OUTLINE_TEXT."""
    shown = " ".join(text.split())
    return shown if len(shown) <= MAX_OUTLINE_TEXT else shown[: MAX_OUTLINE_TEXT - 1] + "…"


def path_at(blocks: Sequence[int], paths: Sequence[list[str]], block: int) -> list[str]:
    """The heading path where top-level body block ``block`` starts (see ``heading_paths``): that
    of its own first heading when it holds one, else of the last heading before it."""
    i = bisect.bisect_left(blocks, block)
    if i < len(blocks) and blocks[i] == block:
        return list(paths[i])
    return list(paths[i - 1]) if i > 0 else []


# -- pages ----------------------------------------------------------------------------------------

_RANGE = re.compile(r"^\s*(\d+)\s*(?:[-–~]\s*(\d+)\s*)?$")


def parse_pages(spec: str, page_count: int | None) -> frozenset[int]:
    """The pages ``spec`` names (``"3"``, ``"3-5"``, ``"1,4-6"``), checked against the document.

    InvalidRequestError when the document has no page information, the spec is malformed, or
    it names no page the document has. Ranges reaching past the last page are cut at it.
    """
    if page_count is None:
        raise InvalidRequestError(
            "this document has no page information (the program that wrote it stored no layout), so it "
            "cannot be read by pages",
            "read it by position instead: offset/max_chars for text, offset/limit for blocks and chunks",
        )
    pages: set[int] = set()
    for part in spec.split(","):
        match = _RANGE.match(part)
        if match is None:
            raise InvalidRequestError(
                f"pages={spec!r} is not a page list",
                f'write pages as "3", "3-5" or "1,4-6" (1-based; the document has {page_count} pages)',
            )
        first = int(match.group(1))
        last = int(match.group(2) or first)
        if first < 1 or last < first:
            raise InvalidRequestError(
                f"pages={spec!r}: the range {part.strip()!r} is empty",
                f'pages count from 1 and a range goes up: e.g. "1-{min(3, page_count)}"',
            )
        pages.update(range(first, min(last, page_count) + 1))
    if not pages:
        raise InvalidRequestError(
            f"pages={spec!r} names no page of this document, which has {page_count} page(s)",
            f'ask for pages between 1 and {page_count}, e.g. pages="{page_count}"',
        )
    return frozenset(pages)


def effective_pages(pages: Iterable[int | None]) -> list[int]:
    """Each block's page, a block without one taking its predecessor's (the first, page 1): every
    block of a paged document then belongs to exactly one page, so single pages add up to the whole."""
    out: list[int] = []
    current = 1
    for page in pages:
        if page is not None:
            current = page
        out.append(current)
    return out


def furniture_on_pages(items: Sequence[tuple[str, str | None, int | None]], wanted: frozenset[int]) -> list[bool]:
    """Which furniture items ``(kind, applies_to, page)`` belong to the ``wanted`` pages.

    A page header or footer is printed on every page from the one it is defined on until another
    of its kind for the same pages (``both``, ``odd`` or ``even``) replaces it, so a page shows the
    one in force there, wherever it was defined; a note or memo belongs to its own page
    (``effective_pages``).
    """
    placed = effective_pages(page for _, _, page in items)
    keep = [False] * len(items)
    # For each kind, the items in force on odd and on even pages, as (from page, item) in order.
    slots: dict[tuple[str, int], list[tuple[int, int]]] = {}
    for i, ((kind, applies_to, _), page) in enumerate(zip(items, placed, strict=True)):
        if kind not in ("header", "footer"):
            keep[i] = page in wanted
            continue
        for parity in (1, 0):
            if applies_to in (None, "both") or applies_to == ("odd" if parity else "even"):
                slots.setdefault((kind, parity), []).append((page, i))
    for (_, parity), runs in slots.items():
        for p in wanted:
            if p % 2 != parity:
                continue
            current = [i for start, i in runs if start <= p]
            if current:
                keep[current[-1]] = True
    return keep


def block_spans(first_pages: Iterable[int | None], last_pages: Iterable[int | None]) -> list[tuple[int, int]]:
    """Each top-level block's first and last page: its own (``effective_pages``) and the last its
    content runs on to (a table laid out over several pages ends on its last row's page)."""
    firsts = effective_pages(first_pages)
    return [(first, max(first, last or first)) for first, last in zip(firsts, last_pages, strict=True)]


def _first_page(blocks: Sequence[Block]) -> int | None:
    return next((b.provenance.page for b in blocks if b.provenance.page is not None), None)


def table_part(table: Table, pages: frozenset[int], first: int, last: int) -> tuple[Table, str]:
    """The rows of ``table`` (laid out from page ``first`` to ``last``) that are on ``pages``: a copy
    holding only their cells (the caption only with the first page), and a line that says which
    rows these are and that the table continues, as a reader of those pages sees it."""
    kept = []
    current = first
    for cell in table.cells:
        # A cell's page is its row's (its blocks carry it); an empty cell is on its predecessor's.
        current = _first_page(cell.blocks) or current
        if current in pages:
            kept.append(cell)
    part = table.model_copy(update={"cells": kept, "caption": table.caption if first in pages else []})
    rows = sorted({c.row for c in kept})
    said = [f"rows {rows[0] + 1}-{rows[-1] + 1} of {table.rows}" if rows else f"no rows of {table.rows}"]
    if min(pages) > first:
        said.append(f"continued from page {first}")
    if max(pages) < last:
        said.append(f"continues on page {max(pages) + 1}")
    return part, f"[table {', '.join(said)}]"


__all__ = [
    "MAX_OUTLINE_TEXT",
    "BlockText",
    "Heading",
    "Place",
    "block_plain_text",
    "block_spans",
    "effective_pages",
    "heading_paths",
    "outline",
    "parse_pages",
    "path_at",
    "places",
    "shown_heading",
    "table_part",
]
