"""Helpers for the IR and view tests: the showcase document, plain text as the reader writes it, recall."""

from __future__ import annotations

import collections
import itertools
import re
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import html5lib
from rhwp_core.ir import Block, Equation, HwpDocument, Paragraph, Picture, Shape, Table, Unknown

SHOWCASE = Path(__file__).resolve().parent / "ir" / "showcase.json"


def showcase() -> HwpDocument:
    return HwpDocument.model_validate_json(SHOWCASE.read_text(encoding="utf-8"))


def _push(line: str, out: list[str]) -> None:
    if line:
        out.append(line)


def _blocks_text(blocks: Sequence[Block], out: list[str]) -> None:
    # Mirrors rhwp_core/reader/src/text.rs (what extract_text returns).
    for block in blocks:
        if isinstance(block, Paragraph):
            _push(block.text, out)
        elif isinstance(block, Table):
            _blocks_text(block.caption, out)
            for cell in block.cells:
                _blocks_text(cell.blocks, out)
        elif isinstance(block, Picture):
            _blocks_text(block.caption, out)
        elif isinstance(block, Equation):
            _push(block.shown, out)
            _blocks_text(block.caption, out)
        elif isinstance(block, Shape):
            _blocks_text(block.blocks, out)
            _blocks_text(block.caption, out)
        elif isinstance(block, Unknown) and block.text:
            _push(block.text, out)


def plain_text(doc: HwpDocument, include_furniture: bool = True) -> str:
    out: list[str] = []
    for section in doc.sections:
        _blocks_text(section.blocks, out)
    if include_furniture:
        seen: set[str] = set()
        for kinds in (("header", "footer"), ("footnote", "endnote")):
            for furniture in (f for f in doc.furniture if f.kind in kinds):
                lines: list[str] = []
                _blocks_text(furniture.blocks, lines)
                text = "\n".join(lines)
                if not text or (furniture.kind in ("header", "footer") and text in seen):
                    continue
                seen.add(text)
                out.append(text)
    return "\n".join(out)


_NOT_WORD = re.compile(r"[\W_]+")


def tokens(text: str) -> collections.Counter[str]:
    """Character bigrams inside words, as /work/shared/tools/recall.py counts them."""
    text = unicodedata.normalize("NFC", text)
    bigrams: collections.Counter[str] = collections.Counter()
    for word in _NOT_WORD.split(text):
        word = "".join(c for c in word if c.isalnum())
        bigrams.update(a + b for a, b in itertools.pairwise(word))
    return bigrams


def recall(reference: str, ours: str) -> float:
    wanted = tokens(reference)
    total = sum(wanted.values())
    if not total:
        return 1.0
    got = tokens(ours)
    return sum(min(n, got[t]) for t, n in wanted.items()) / total


def parse_html_strictly(html: str) -> Any:
    """The html5lib tree (un-namespaced); raises on the first parse error."""
    return html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(html)


def markdown_table_count(markdown: str) -> int:
    """Tables a CommonMark+GFM parser sees (pipe tables, GFM footnotes holding tables, and the
    <table>s inside HTML blocks)."""
    from markdown_it import MarkdownIt
    from mdit_py_plugins.footnote import footnote_plugin

    count = 0
    for token in MarkdownIt("commonmark").enable("table").use(footnote_plugin).parse(markdown):
        if token.type == "table_open":
            count += 1
        elif token.type in ("html_block", "html_inline"):
            count += token.content.count("<table")
    return count


def html_table_count(tree: Any) -> int:
    return len(tree.findall(".//table"))
