"""Pages as 한글 prints them: our page count and per-page text against the PDFs 한글 itself saved.

    .venv/bin/python benches/pages_bench.py [--hancom ../shared/hancom] [--json] [--only NAME]

For every document of ``MANIFEST.tsv`` (one row per PDF; a document with several PDFs was saved by
several 한글 versions, which may differ by a page, so any of them is accepted):

- **count**: our ``page_count`` against each PDF's page count; the PDF compared is the one whose
  count is nearest ours (an equal one when there is one).
- **per page**: the share of the words 한글 prints on page N that our ``extract_text(pages="N")``
  holds. Words are the whitespace-split tokens of the PDF page's text (``pages/<sha256>.json``,
  poppler's ``pdftotext -layout``), NFC-normalised with punctuation and symbols stripped. Running
  headers and footers aside: a line that repeats (digits aside, so "- 3 -" repeats) on more than
  half of the pages of a document of three or more pages is furniture and its words are not
  counted. A word counts as found when our page has it as a word, or else holds it inside its text
  with the whitespace removed (``-layout`` cuts a vertically set cell or a letter-spaced title into
  single characters, and joins cells of one printed line into one line). Per-page figures are
  taken only where the count agrees (elsewhere pages do not line up).
- **empty**: a page where 한글 prints words and ours answers nothing of the document's (or
  raises): our own notes (``[blank page]``, ``[picture]``, a table part's ``[table rows …]``)
  are not the document's words and count for nothing in the shares either.

The totals are the issue's acceptance: documents whose count equals (target >= 97 %), documents
off by more than one (target none), documents whose every page holds >= 95 % of 한글's words
(among those whose count agrees; target all), pages that answer empty (target none).
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
import unicodedata
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

import rhwp_core

ROOT = Path(__file__).resolve().parents[1]
# ../shared/hancom beside the checkout (a worktree sits one folder deeper).
DEFAULT_HANCOM = next(
    (up / "shared" / "hancom" for up in ROOT.parents if (up / "shared" / "hancom").is_dir()),
    ROOT.parent / "shared" / "hancom",
)
PAGE_SHARE_TARGET = 0.95


@dataclass
class DocResult:
    doc: str
    hancom_pages: list[int]
    ours: int | None
    layout: str | None = None
    error: str | None = None
    compared_pdf: str | None = None
    page_shares: list[float | None] = field(default_factory=list)
    empty_pages: list[int] = field(default_factory=list)

    @property
    def count_equal(self) -> bool:
        return self.ours is not None and self.ours in self.hancom_pages

    @property
    def off_by(self) -> int | None:
        if self.ours is None:
            return None
        return min(abs(self.ours - n) for n in self.hancom_pages)

    @property
    def worst_share(self) -> float | None:
        shares = [s for s in self.page_shares if s is not None]
        return min(shares) if shares else None


def _is_word_char(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "LNM"


def words(text: str) -> list[str]:
    """Whitespace-split tokens, NFC, punctuation and symbols stripped, empty tokens dropped."""
    out = []
    for token in unicodedata.normalize("NFC", text).split():
        kept = "".join(ch for ch in token if _is_word_char(ch))
        if kept:
            out.append(kept)
    return out


_DIGITS = re.compile(r"\d+")
# What our page text says beside the document's own (which rows of a table running over pages,
# a page of pictures, a blank page): not the document's words.
_PAGE_NOTE = re.compile(
    r"^\[(table (no )?rows [^\]]*|picture|shape|equation|unknown|form control|table|blank page)\]$", re.M
)


def _line_key(line: str) -> str:
    return _DIGITS.sub("#", " ".join(words(line)))


def furniture_lines(pages: list[str]) -> set[str]:
    """Line keys that repeat on more than half the pages: running headers, footers, page numbers."""
    if len(pages) < 3:
        return set()
    seen: Counter[str] = Counter()
    for page in pages:
        seen.update({key for line in page.splitlines() if (key := _line_key(line))})
    return {key for key, n in seen.items() if n > len(pages) / 2}


def share_found(theirs: list[str], ours_text: str) -> float | None:
    """The share of ``theirs`` (a multiset) found in our page text; None when there is none to find."""
    if not theirs:
        return None
    ours_words = Counter(words(ours_text))
    squeezed = "".join(words(ours_text))
    found = 0
    for word in theirs:
        if ours_words[word] > 0:
            ours_words[word] -= 1
            found += 1
        elif word in squeezed:
            found += 1
    return found / len(theirs)


def hancom_page_words(pages: list[str]) -> list[list[str]]:
    furniture = furniture_lines(pages)
    return [
        [w for line in page.splitlines() if _line_key(line) not in furniture for w in words(line)] for page in pages
    ]


def measure(hancom: Path, only: str | None) -> list[DocResult]:
    rows: dict[str, list[dict[str, str]]] = {}
    with (hancom / "MANIFEST.tsv").open(encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            rows.setdefault(row["doc"], []).append(row)
    results = []
    for doc, pdfs in rows.items():
        if only and only not in doc:
            continue
        result = DocResult(doc=doc, hancom_pages=sorted({int(r["pdf_pages"]) for r in pdfs}), ours=None)
        results.append(result)
        try:
            document = rhwp_core.parse(hancom / doc)
            result.ours = document.page_count
            result.layout = document.summary().get("layout")  # type: ignore[assignment]
        except rhwp_core.HwpError as e:
            result.error = f"{type(e).__name__}: {e}"
            continue
        if result.ours is None:
            continue
        chosen = min(pdfs, key=lambda r: (abs(int(r["pdf_pages"]) - (result.ours or 0)), r["pdf"]))
        result.compared_pdf = chosen["pdf"]
        if int(chosen["pdf_pages"]) != result.ours:
            continue
        their_pages: list[str] = json.loads((hancom / "pages" / f"{chosen['pdf_sha256']}.json").read_text("utf-8"))
        for number, theirs in enumerate(hancom_page_words(their_pages), start=1):
            try:
                ours_text = document.extract_text(pages=str(number))
            except rhwp_core.HwpError:
                ours_text = ""
            ours_text = _PAGE_NOTE.sub("", ours_text)
            share = share_found(theirs, ours_text)
            result.page_shares.append(share)
            if theirs and not words(ours_text):
                result.empty_pages.append(number)
    return results


def summary(results: list[DocResult]) -> dict[str, object]:
    n = len(results)
    equal = [r for r in results if r.count_equal]
    far = [r for r in results if r.off_by is None or r.off_by > 1]
    full = [r for r in equal if r.worst_share is None or r.worst_share >= PAGE_SHARE_TARGET]
    pages = [s for r in equal for s in r.page_shares if s is not None]
    return {
        "documents": n,
        "count_equal": len(equal),
        "count_equal_pct": round(100 * len(equal) / n, 1) if n else 0.0,
        "off_by_more_than_one_or_none": len(far),
        "off_by_more_than_one": sorted(r.doc for r in far),
        "count_agrees_every_page_95": len(full),
        "pages_compared": len(pages),
        "pages_under_95": sum(1 for s in pages if s < PAGE_SHARE_TARGET),
        "mean_page_share": round(sum(pages) / len(pages), 4) if pages else None,
        "empty_pages": sum(len(r.empty_pages) for r in results),
        "documents_with_empty_pages": sorted(r.doc for r in results if r.empty_pages),
    }


def _table(results: list[DocResult]) -> str:
    lines = [f"{'document':58} {'hancom':>9} {'ours':>5} {'off':>4} {'worst%':>7} {'<95%':>5} {'empty':>5}"]
    for r in results:
        hancom = "/".join(map(str, r.hancom_pages))
        ours = "err" if r.error else ("-" if r.ours is None else str(r.ours))
        off = "-" if r.off_by is None else str(r.off_by)
        worst = "" if r.worst_share is None else f"{100 * r.worst_share:.1f}"
        under = sum(1 for s in r.page_shares if s is not None and s < PAGE_SHARE_TARGET)
        mark = "" if r.count_equal else " *"
        empty = ",".join(map(str, r.empty_pages[:6])) + ("…" if len(r.empty_pages) > 6 else "")
        lines.append(
            f"{r.doc.removeprefix('docs/')[:58]:58} {hancom:>9} {ours:>5} {off:>4} {worst:>7} "
            f"{under if r.page_shares else '':>5} {empty:>5}{mark}"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hancom", type=Path, default=DEFAULT_HANCOM)
    parser.add_argument("--json", action="store_true", help="print one JSON object (documents + summary)")
    parser.add_argument("--only", help="only documents whose path contains this")
    args = parser.parse_args()
    results = measure(args.hancom, args.only)
    totals = summary(results)
    if args.json:
        docs = [
            asdict(r) | {"count_equal": r.count_equal, "off_by": r.off_by, "worst_share": r.worst_share}
            for r in results
        ]
        json.dump({"documents": docs, "summary": totals}, sys.stdout, ensure_ascii=False, indent=1)
        print()
        return 0
    print(_table(results))
    print()
    for key, value in totals.items():
        print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
