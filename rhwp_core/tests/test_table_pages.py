"""Pages that answer: a table laid out over several pages gives each page its rows there.

The fixture is Hancom's HwpCtrl action table (one 313-row table of one-line rows, repeated header
row, from page 2 to page 13; 16 pages as 한글 2022 prints it). Its rows move wholly to the next
page when the page is full, which the cells' own line positions cannot show: the pages come from
the rows' heights against the page. The words checked are from the PDF 한글 saved of it, taken
from the middle of each page: at a page's end our rows may be a row or two off (a row's height is
its cells' stored height, not re-measured).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import rhwp_core

FIXTURE = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "hwp" / "rhwp-hwpctl-action-table.hwp"
NOTE = re.compile(r"^\[table rows (\d+)-(\d+) of (\d+)(, continued from page \d+)?(, continues on page \d+)?\]$")


@pytest.fixture(scope="module")
def doc() -> rhwp_core.Document:
    return rhwp_core.parse(FIXTURE)


def test_the_page_count_is_hancoms(doc: rhwp_core.Document) -> None:
    assert doc.page_count == 16


@pytest.mark.parametrize(
    ("page", "printed", "not_printed"),
    [
        (2, ["AllReplace", "BackwardFind"], ["CharShapeTextColorBlue", "ExecReplace"]),
        (3, ["CharShapeTextColorBlue", "CharShapeWidth", "DeleteLine"], ["AllReplace", "ExecReplace"]),
        (4, ["ExecReplace", "InputCodeTable", "InsertFile"], ["CharShapeWidth", "ViewZoomNormal"]),
        (13, ["TableSplitCell", "ViewZoomNormal"], ["AllReplace", "InsertFile"]),
        (14, ["FileSetSecurity"], ["ViewZoomNormal"]),
    ],
)
def test_a_page_inside_the_table_holds_its_rows(
    doc: rhwp_core.Document, page: int, printed: list[str], not_printed: list[str]
) -> None:
    text = doc.extract_text(pages=str(page))
    for word in printed:
        assert word in text, (page, word)
    for word in not_printed:
        assert word not in text, (page, word)


def test_the_part_says_which_rows_and_that_it_continues(doc: rhwp_core.Document) -> None:
    first = doc.extract_text(pages="3").split("\n")[0]
    match = NOTE.match(first)
    assert match is not None, first
    assert int(match.group(1)) > 1 and int(match.group(2)) < int(match.group(3)) == 313
    assert match.group(4) == ", continued from page 2" and match.group(5) == ", continues on page 4"
    # The blocks of the page: the table cut to the rows the note names.
    (table,) = doc.iter_blocks(pages="3")
    assert table.kind == "table"
    rows = sorted({cell.row for cell in table.cells})
    assert (rows[0] + 1, rows[-1] + 1) == (int(match.group(1)), int(match.group(2)))
    # The views cut it the same way.
    assert "CharShapeWidth" in doc.to_markdown(pages="3") and "AllReplace" not in doc.to_markdown(pages="3")


def test_single_pages_add_up_to_the_whole(doc: rhwp_core.Document) -> None:
    assert doc.page_count is not None
    texts = [doc.extract_text(include_furniture=False, pages=str(p)) for p in range(1, doc.page_count + 1)]
    assert all(texts), [p for p, t in enumerate(texts, 1) if not t]
    joined = "\n".join(line for t in texts for line in t.split("\n") if not NOTE.match(line))
    assert joined == doc.extract_text(include_furniture=False)
    # Each row once over all pages: the parts of the table hold every cell exactly once.
    (whole,) = (b for b in doc.iter_blocks() if b.kind == "table" and len(b.cells) > 300)
    parts = [b for p in range(1, doc.page_count + 1) for b in doc.iter_blocks(pages=str(p)) if b.kind == "table"]
    cells = [(c.row, c.col) for b in parts if b.provenance == whole.provenance for c in b.cells]
    assert sorted(cells) == sorted((c.row, c.col) for c in whole.cells)


def test_a_range_gives_the_rows_of_every_page_in_it(doc: rhwp_core.Document) -> None:
    both = doc.extract_text(pages="3-4")
    assert "CharShapeWidth" in both and "InsertFile" in both and "AllReplace" not in both
    note = NOTE.match(both.split("\n")[0])
    assert note is not None and note.group(5) == ", continues on page 5"
