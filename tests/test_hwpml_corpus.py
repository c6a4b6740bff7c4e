"""HWPML (``.hml``) through the Python API: every ``hml/`` document of the shared corpus reads
as ``hwpml`` without U+FFFD, and where Hancom's own HWP 5.0 save of it exists (``hml/twins/``)
the text is the same both ways (bigram recall >= 0.99), so are the letters and symbols outside
Hangul and ASCII, and the tables (count and grid sizes), notes and headers in the IR. The
licence-noted fixtures (``tests/fixtures/hml/``) run always, through every view and
``read_bin_item``."""

from __future__ import annotations

import collections
import unicodedata
from pathlib import Path

import pytest
from rhwp_core.media import read_bin_item

import rhwp_core
from tests.corpus_support import FIXTURES, SHARED

RECALL_BAR = 0.99


def _bigrams(text: str) -> collections.Counter[str]:
    s = "".join(text.split())
    return collections.Counter(s[k : k + 2] for k in range(len(s) - 1))


def _recall(got: str, want: str) -> float:
    g, w = _bigrams(got), _bigrams(want)
    total = sum(w.values())
    return 1.0 if total == 0 else sum((g & w).values()) / total


def _symbols(text: str) -> set[str]:
    return {c for c in text if ord(c) > 0x7F and not c.isspace() and not unicodedata.name(c, "").startswith("HANGUL")}


def _shape(doc: rhwp_core.Document) -> list[str]:
    out: list[str] = []

    def walk(blocks: list) -> None:  # type: ignore[type-arg]
        for b in blocks:
            if b.kind == "table":
                out.append(f"table {b.rows}x{b.cols}")
                for cell in b.cells:
                    walk(cell.blocks)
            elif b.kind == "shape":
                out.append("shape")
                walk(b.blocks)
            else:
                out.append(b.kind)

    ir = doc.to_ir()
    for section in ir.sections:
        walk(section.blocks)
    for f in ir.furniture:
        out.append(f.kind)
        walk(f.blocks)
    return sorted(out)


def _corpus_docs() -> list[Path]:
    if SHARED is None:
        return []
    return sorted((SHARED / "corpus" / "hml").glob("*.hml"))


@pytest.mark.parametrize("path", _corpus_docs(), ids=lambda p: p.name)
def test_hml_document_equals_its_twin(path: Path) -> None:
    doc = rhwp_core.parse(path)
    assert doc.format == "hwpml"
    assert doc.summary()["format"] == "hwpml"
    text = doc.extract_text()
    assert "\ufffd" not in text
    twin = path.parent / "twins" / f"{path.stem}.hwp5.hwp"
    if not twin.exists():
        return
    twin_doc = rhwp_core.parse(twin)
    want = twin_doc.extract_text()
    assert _recall(text, want) >= RECALL_BAR, "twin's content missing from ours"
    assert _recall(want, text) >= RECALL_BAR, "ours has content the twin lacks"
    assert _symbols(text) == _symbols(want)
    assert _shape(doc) == _shape(twin_doc)


@pytest.mark.parametrize("path", sorted((FIXTURES / "hml").glob("*.hml")), ids=lambda p: p.name)
def test_hml_fixture_every_view(path: Path) -> None:
    data = path.read_bytes()
    doc = rhwp_core.parse(data)
    assert doc.format == "hwpml"
    text = doc.extract_text()
    assert text.strip()
    md, html = doc.to_markdown(), doc.to_html()
    for line in (ln for ln in text.splitlines() if ln.strip()):
        # Every word reaches both views (markup may split lines, not words).
        for word in line.split():
            if word.isalnum():
                assert word in md or word in html, word
    assert html.startswith("<!DOCTYPE html>")
    # The same document under an .hwp name is still HWPML: the bytes decide.
    assert rhwp_core.parse(data).format == "hwpml"


def test_hml_bin_data_through_get_image_path() -> None:
    path = FIXTURES / "hml" / "nodehwp-sample-sample-1.hml"
    item = read_bin_item(path, "BIN0001.OLE")
    assert item.data[:8] == bytes.fromhex("d0cf11e0a1b11ae1")
