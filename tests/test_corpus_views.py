"""The views over every corpus document (issue: Markdown and HTML views).

For each document: the Markdown parses with a CommonMark+GFM parser and the HTML with a strict
HTML5 parser (not one parse error); both hold as many tables as the IR; and the words of
`extract_text()` survive in each (bigram recall >= 0.99, as ../shared/tools/recall.py counts).
"""

from __future__ import annotations

from typing import Any

import pytest
from corpus_support import SHARED, require_shared
from rhwp_core.ir import iter_blocks
from rhwp_core_test_support import html_table_count, markdown_table_count, parse_html_strictly, recall

import rhwp_core

BAR = 0.99


def _documents() -> list[str]:
    if SHARED is None:
        return ["<corpus missing>"]
    corpus = SHARED / "corpus"
    return sorted(str(p.relative_to(corpus)) for p in [*corpus.glob("hwp/*.hwp"), *corpus.glob("hwpx/*.hwpx")])


@pytest.mark.corpus
@pytest.mark.parametrize("rel", _documents())
def test_views_parse_keep_tables_and_words(rel: str) -> None:
    doc = rhwp_core.parse(require_shared() / "corpus" / rel)
    ir = doc.to_ir()
    # Both views render the body and the foot/endnotes (page headers/footers only on request).
    notes = [f for f in ir.furniture if f.kind in ("footnote", "endnote")]
    tables = sum(1 for _ in doc.iter_blocks(kind="table", scope="body")) + sum(
        1
        for f in notes
        for _ in iter_blocks(ir.model_copy(update={"sections": [], "furniture": [f]}), "table", "furniture")
    )
    body = doc.extract_text(include_furniture=False)

    markdown = doc.to_markdown()
    assert markdown_table_count(markdown) == tables
    assert recall(body, markdown) >= BAR

    html = doc.to_html(include_css=True)
    tree = parse_html_strictly(html)  # raises on the first parse error
    assert html_table_count(tree) == tables
    # Scored on the text a reader of the page sees: tags inside a word (`<u>밑줄</u>없음`) are not gaps,
    # and a numbered list item shows its number (`<li value="12">`, drawn by the browser).
    assert recall(body, seen_text(tree)) >= BAR
    assert html.startswith("<!DOCTYPE html>") and '<meta charset="utf-8">' in html


def seen_text(element: Any) -> str:
    """The text of an HTML tree as a browser shows it: text nodes in order, and each numbered list
    item's number (its ``data-marker``) before its text."""
    out: list[str] = []

    def walk(e: Any) -> None:
        if e.tag == "li" and e.get("value") is not None and e.get("data-marker"):
            out.append(e.get("data-marker") + " ")
        if e.text:
            out.append(e.text)
        for child in e:
            walk(child)
            if child.tail:
                out.append(child.tail)

    walk(element)
    return "".join(out)
