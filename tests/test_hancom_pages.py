"""Pages against the PDFs 한글 itself saved (``../shared/hancom``): where our page count is one of
Hancom's, no page on which 한글 prints words answers empty or as a blank page.

Known misses (expected failures, each with its cause) are listed in ``KNOWN_EMPTY``; a miss that
is fixed makes the test fail until it is taken off the list.
"""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from corpus_support import ROOT, require_shared

import rhwp_core

# (document, page): why ours answers nothing there.
KNOWN_EMPTY: dict[tuple[str, int], str] = {
    # HWP 3.x and its HWPX twin: the 3.x page tracker (and the twin's stored layout) put page 7's
    # paragraphs on page 6 or 8; no table involved.
    ("docs/hwp3-sample.hwp", 7): "HWP 3.x page tracker",
    ("docs/hwp3-sample-hwpx.hwpx", 7): "the HWPX twin's line segments",
}

_WORD = re.compile(r"[^\W_]{2,}")
_PAGE_NUMBER = re.compile(r"^\W*\d+\W*$")


def _hancom() -> Path:
    path = require_shared() / "hancom"
    if not (path / "MANIFEST.tsv").is_file():
        pytest.skip("../shared/hancom is missing")
    return path


def _printed(page: str) -> bool:
    """Whether 한글 prints words on the page (a lone page number aside)."""
    lines = [line for line in page.splitlines() if line.strip() and not _PAGE_NUMBER.match(line)]
    return any(_WORD.search(line) for line in lines)


def test_no_printed_page_answers_empty() -> None:
    hancom = _hancom()
    rows: dict[str, list[dict[str, str]]] = {}
    with (hancom / "MANIFEST.tsv").open(encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            rows.setdefault(row["doc"], []).append(row)
    empty: dict[tuple[str, int], str] = {}
    compared = 0
    for doc, pdfs in rows.items():
        try:
            document = rhwp_core.parse(hancom / doc)
        except rhwp_core.HwpError:
            continue
        same = [r for r in pdfs if int(r["pdf_pages"]) == document.page_count]
        if not same:
            continue
        compared += 1
        pages: list[str] = json.loads((hancom / "pages" / f"{same[0]['pdf_sha256']}.json").read_text("utf-8"))
        for number, page in enumerate(pages, start=1):
            if not _printed(page):
                continue
            ours = document.extract_text(pages=str(number))
            if not ours.strip() or ours == "[blank page]":
                empty[(doc, number)] = ours
    assert compared >= 50
    assert set(empty) == set(KNOWN_EMPTY), sorted(set(empty) ^ set(KNOWN_EMPTY))


def test_pages_bench_runs_and_prints_the_totals() -> None:
    hancom = _hancom()
    script = ROOT / "benches" / "pages_bench.py"
    done = subprocess.run(
        [sys.executable, str(script), "--hancom", str(hancom), "--json", "--only", "hwpctl_Action"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    (doc,) = result["documents"]
    assert doc["hancom_pages"] == [16] and doc["ours"] == 16 and doc["empty_pages"] == []
    assert result["summary"]["count_equal"] == 1


def test_endnotes_printed_at_the_end_add_their_pages() -> None:
    """A two-column exam whose answers are endnotes (미주): 한글 prints them after the last body
    line, line by line through the columns, over ten more pages (body 10 pages, printed 20)."""
    hancom = _hancom()
    document = rhwp_core.parse(hancom / "docs" / "3-09월_교육_통합_2023.hwp")
    assert document.page_count == 20
    # The body alone ends on page 10: its last paragraph is there.
    assert document.extract_text(pages="10").strip()
    # Each endnote is on the page it is printed on: the ten pages after the body hold them.
    notes = [b for b in document.iter_blocks(scope="furniture") if b.provenance.page is not None]
    assert notes and {b.provenance.page for b in notes} >= set(range(11, 21))
    assert all(document.extract_text(pages=str(p), include_furniture=True).strip() for p in range(11, 21))
