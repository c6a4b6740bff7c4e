"""Heading levels for the oracle views.

The product finds headings natively (``rhwp_reader::outline``: outline styles, the table
of contents, the numbering ladder) and ``test_views_native.py`` hands those levels to the oracle,
so the oracle checks how headings are *rendered*, not which ones are found (that is tested on its
own, in Rust and in ``test_outline.py``). For IR built by hand (the showcase) there is no native
document: the oracle then uses the rule the views began with -- a paragraph's own outline level,
or, in a document that marks none, a short chapter line (``제1장``, ``제1절``, ``Ⅰ.``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rhwp_core.ir import HwpDocument

_CHAPTER = re.compile(r"^\s*제\s*\d+\s*([장편부절])(?=\s|\.|$)")
_ROMAN = re.compile(r"^\s*[ⅠⅡⅢⅣⅤⅥⅦⅧⅨⅩⅪⅫ]+\s*[.)]?(?=\s)")
_TOC_LINE = re.compile(r"(\t|\.{3,}|·{3,}|…+|-{3,})\s*\d+\s*$")


def chapter_levels(doc: HwpDocument) -> list[int | None]:
    """Each top-level body block's level by the simple chapter rule."""
    blocks = [b for section in doc.sections for b in section.blocks]
    if any(b.kind == "paragraph" and b.heading_level for b in blocks):
        return [None] * len(blocks)
    out: list[int | None] = []
    for b in blocks:
        text = b.text if b.kind == "paragraph" else ""
        level = None
        if text and len(text) <= 80 and "\n" not in text.strip() and not _TOC_LINE.search(text):
            chapter = _CHAPTER.match(text)
            if chapter:
                level = 2 if chapter.group(1) == "절" else 1
            elif _ROMAN.match(text):
                level = 1
        out.append(level)
    return out


def paragraph_levels(doc: HwpDocument, levels: Sequence[int | None] | None) -> dict[int, int]:
    """``id(paragraph) -> level`` for the top-level paragraphs rendered as headings beyond their own
    ``heading_level``; ``levels`` per top-level body block (None: the chapter rule)."""
    blocks = [b for section in doc.sections for b in section.blocks]
    given = chapter_levels(doc) if levels is None else list(levels)
    return {
        id(b): int(level)
        for b, level in zip(blocks, given, strict=True)
        if level and b.kind == "paragraph" and not b.heading_level
    }
