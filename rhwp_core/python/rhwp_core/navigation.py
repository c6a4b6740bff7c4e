"""Reading a long document the way a person does: its outline, and its pages.

- **Outline**: the headings in reading order, each with where it starts in the plain text and in
  the Markdown view, and its index among the top-level blocks, so a reader can jump to a chapter.
- **Pages**: ``"3"``, ``"3-5"``, ``"1,4-6"`` select the top-level blocks laid out on those pages
  (as last laid out by the authoring program; a block belongs to the page it starts on).

What counts as a heading (a decision, see the README): a top-level body paragraph that the
document marks as one — an outline style (개요 1–7), a heading style, an outline paragraph head
(the IR's ``heading_level``) — or, in documents that mark none, a short paragraph that opens with
a chapter number of the kinds Korean reports use: ``제1장``/``제 2 편``/``제3부`` (level 1),
``제1절`` (level 2), or a Roman numeral ``Ⅰ.`` (level 1) — but not the table of contents' copy of
such a line, which ends in a page number after a tab or a leader, or stands in a list after a
목차/차례 title until the first chapter line comes again. Numbered paragraphs (``1.``, ``가.``) are
list items, not headings, unless the document styles them as headings.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .errors import InvalidRequestError

if TYPE_CHECKING:
    from .document import BlockText
    from .ir import Block, HwpDocument

_CHAPTER = re.compile(r"^\s*제\s*\d+\s*([장편부절])(?=\s|\.|$)")
_ROMAN = re.compile(r"^\s*[ⅠⅡⅢⅣⅤⅥⅦⅧⅨⅩⅪⅫ]+\s*[.)]?(?=\s)")
# A table of contents repeats the chapter lines with their page numbers after a tab or a leader.
_TOC_LINE = re.compile(r"(\t|\.{3,}|·{3,}|…+|-{3,})\s*\d+\s*$")
# A chapter line is short; a long paragraph that happens to start "제1장에서..." is prose.
_MAX_HEADING_CHARS = 80
MAX_OUTLINE_TEXT = 120


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    block: int
    """Index among the top-level body blocks (``iter_blocks(offset=block)`` starts at it)."""
    page: int | None
    text_offset: int
    """Where the heading starts in ``extract_text()`` (body first, so furniture does not move it)."""
    markdown_offset: int
    """Where the heading's line starts in ``to_markdown()``."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "text": self.text,
            "block": self.block,
            "page": self.page,
            "text_offset": self.text_offset,
            "markdown_offset": self.markdown_offset,
        }


def heading_level(block: Block, *, styled_headings: bool) -> int | None:
    """The outline level of a top-level block, or None when it is no heading."""
    if block.kind != "paragraph":
        return None
    if block.heading_level:
        return int(block.heading_level)
    if styled_headings:
        return None  # the document marks its headings: an unmarked paragraph is not one
    text = block.text
    if len(text) > _MAX_HEADING_CHARS or "\n" in text.strip() or _TOC_LINE.search(text):
        return None
    chapter = _CHAPTER.match(text)
    if chapter:
        return 2 if chapter.group(1) == "절" else 1
    if _ROMAN.match(text):
        return 1
    return None


def detected_heading_levels(doc: HwpDocument) -> dict[int, int]:
    """``id(paragraph) -> level`` for the top-level paragraphs that are headings by their chapter
    number only (the views render them as headings, so the outline and the views agree). Empty
    when the document marks its headings itself.

    A table of contents lists the chapter lines before the chapters: after a paragraph titled
    목차/차례/Contents, lines are contents entries until the first entry's text comes again.
    """
    blocks = [block for section in doc.sections for block in section.blocks]
    if any(b.kind == "paragraph" and b.heading_level for b in blocks):
        return {}
    found = [(i, level) for i, b in enumerate(blocks) if (level := heading_level(b, styled_headings=False))]
    texts = [_squashed(str(getattr(b, "text", "") or "")) if b.kind == "paragraph" else "" for b in blocks]
    contents = next((i for i, text in enumerate(texts) if text in _CONTENTS_TITLES), None)
    if contents is not None:
        entries = [i for i, _ in found if i > contents]
        if entries:
            first = texts[entries[0]]
            again = next((i for i in entries[1:] if texts[i] == first), None)
            if again is not None:
                found = [(i, level) for i, level in found if not contents < i < again]
    return {id(blocks[i]): level for i, level in found}


def _squashed(text: str) -> str:
    return "".join(text.split()).lower()


_CONTENTS_TITLES = frozenset({"목차", "차례", "contents", "tableofcontents"})


def outline(doc: HwpDocument, texts: Sequence[BlockText], markdown_offsets: Sequence[int | None]) -> list[Heading]:
    """The headings of ``doc``. ``texts`` are the body's block texts (``Document.block_texts()``),
    one per top-level body block; ``markdown_offsets`` the start of each block in the Markdown."""
    blocks = [block for section in doc.sections for block in section.blocks]
    detected = detected_heading_levels(doc)
    headings: list[Heading] = []
    offset = 0
    for index, (block, unit) in enumerate(zip(blocks, texts, strict=True)):
        level = (block.heading_level if block.kind == "paragraph" else None) or detected.get(id(block))
        if level and unit.text.strip():
            shown = " ".join(unit.text.split())
            if len(shown) > MAX_OUTLINE_TEXT:
                shown = shown[: MAX_OUTLINE_TEXT - 1] + "…"
            md = markdown_offsets[index]
            headings.append(
                Heading(
                    level=int(level),
                    text=shown,
                    block=index,
                    page=unit.page,
                    text_offset=offset,
                    markdown_offset=md if md is not None else -1,
                )
            )
        if unit.text:
            # extract_text joins the non-empty block texts with one newline.
            offset += len(unit.text) + 1
    return headings


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


__all__ = [
    "MAX_OUTLINE_TEXT",
    "Heading",
    "detected_heading_levels",
    "effective_pages",
    "heading_level",
    "outline",
    "parse_pages",
]
