"""Paragraph and outline numbers (문단 번호, 개요 번호) and bullets in ``extract_text``, checked on
every shared-corpus HWPX document against markers derived here, independently of the reader, from
the package's own XML: ``header.xml``'s numberings (``paraHead`` level, ``start``, ``numFormat``,
template text), bullets and paragraph properties (``heading type/idRef/level``), and each
section's ``secPr outlineShapeIDRef`` for outline headings. Every numbered or bulleted paragraph
with text shows as ``{marker} {text}``, in document order.

Counting (the reader's rule, reader/src/numbering.rs): one set of counters per numbering id for
the whole document; a paragraph at level L advances L, restarts deeper levels and fixes unused
shallower ones at their start number.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from corpus_support import SHARED, require_shared

import rhwp_core

HH = "{http://www.hancom.co.kr/hwpml/2011/head}"
HP = "{http://www.hancom.co.kr/hwpml/2011/paragraph}"

_SYLLABLES = "가나다라마바사아자차카타파하"
# Roman numerals in Latin letters, as 한글's own generated tables of contents write them.
_ROMAN = ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII"]
# Wingdings bullets stored as private-use code points, as 한글 writes them.
_BULLETS = {"\uf06c": "●", "\uf06e": "■", "\uf09f": "•", "\xad": "-"}


def _number(n: int, fmt: str) -> str:
    if fmt == "DIGIT":
        return str(n)
    if fmt == "HANGUL_SYLLABLE" and n <= len(_SYLLABLES):
        return _SYLLABLES[n - 1]
    if fmt == "CIRCLED_DIGIT" and n <= 20:
        return chr(0x2460 + n - 1)
    if fmt == "ROMAN_CAPITAL" and n <= len(_ROMAN):
        return _ROMAN[n - 1]
    raise AssertionError(f"number format {fmt} ({n}) not covered here")


def _count(levels: dict[int, tuple[int, str, str]], c: list[int], level: int) -> str:
    """Number a paragraph at ``level`` with counters ``c`` of a numbering (its ``levels``): the marker."""

    def start(lv: int) -> int:
        return max(1, levels.get(lv, (1, "", ""))[0])

    for lv in range(len(c)):
        if lv < level and c[lv] == 0:
            c[lv] = start(lv)
        elif lv == level:
            c[lv] = c[lv] + 1 if c[lv] else start(lv)
        elif lv > level:
            c[lv] = 0

    def number(m: re.Match[str]) -> str:
        lv = int(m.group(1)) - 1
        return _number(c[lv] or start(lv), levels.get(lv, (1, "DIGIT", ""))[1])

    return re.sub(r"\^(\d)", number, levels.get(level, (1, "DIGIT", ""))[2]).strip()


def _expected_lines(path: Path) -> list[tuple[str, str]]:
    """(marker, text) of each numbered or bulleted paragraph with text, in document order."""
    with zipfile.ZipFile(path) as z:
        head = ET.fromstring(z.read("Contents/header.xml"))
        sections = sorted(
            (n for n in z.namelist() if re.fullmatch(r"Contents/section\d+\.xml", n)),
            key=lambda n: int(re.findall(r"\d+", n)[0]),
        )
        parts = [z.read(n) for n in sections]
    numberings: dict[str, dict[int, tuple[int, str, str]]] = {}
    for numbering in head.iter(f"{HH}numbering"):
        levels = numberings.setdefault(numbering.get("id", ""), {})
        for ph in numbering.iter(f"{HH}paraHead"):
            levels[int(ph.get("level", "1")) - 1] = (
                int(ph.get("start", "1")),
                ph.get("numFormat", "DIGIT"),
                ph.text or "",
            )
    bullets = {b.get("id", ""): b.get("char", "") for b in head.iter(f"{HH}bullet")}
    headings: dict[str, tuple[str, str, int]] = {}
    for pr in head.iter(f"{HH}paraPr"):
        h = pr.find(f".//{HH}heading")
        if h is not None and h.get("type") in ("NUMBER", "OUTLINE", "BULLET"):
            headings[pr.get("id", "")] = (h.get("type", ""), h.get("idRef", ""), int(h.get("level", "0")))
    counters: dict[str, list[int]] = {}
    out: list[tuple[str, str]] = []
    for raw in parts:
        outline = re.search(rb'outlineShapeIDRef="(\d+)"', raw)
        section = ET.fromstring(raw)
        for p in section.iter(f"{HP}p"):
            heading = headings.get(p.get("paraPrIDRef", ""))
            if heading is None:
                continue
            kind, id_ref, level = heading
            # The paragraph's own text: not that of notes or text boxes anchored in it.
            text = "".join(t.text or "" for t in p.findall(f"{HP}run/{HP}t"))
            if kind == "BULLET":
                char = bullets.get(id_ref, "")
                marker = _BULLETS.get(char[:1], char) or "•"
            else:
                numbering_id = outline.group(1).decode() if kind == "OUTLINE" and outline else id_ref
                levels = numberings.get(numbering_id, {})
                marker = _count(levels, counters.setdefault(numbering_id, [0] * 10), level)
            if text and marker:
                out.append((marker, text))
    return out


def _numbered_documents() -> list[str]:
    if SHARED is None:
        return ["<corpus missing>"]
    corpus = SHARED / "corpus"
    names = []
    for path in sorted(corpus.rglob("*.hwpx")):
        if "bad" in path.parts or "encrypted" in path.parts:
            continue
        try:
            with zipfile.ZipFile(path) as z:
                header = z.read("Contents/header.xml").decode("utf-8", "replace")
        except (zipfile.BadZipFile, KeyError):
            continue
        if re.search(r'heading type="(NUMBER|OUTLINE|BULLET)"', header):
            names.append(str(path.relative_to(corpus)))
    return names


@pytest.mark.corpus
@pytest.mark.parametrize("name", _numbered_documents())
def test_numbers_in_extract_text(name: str) -> None:
    path = require_shared() / "corpus" / name
    expected = _expected_lines(path)
    doc = rhwp_core.parse(str(path))
    lines = doc.extract_text(include_furniture=False).split("\n")
    # Headers, footers, notes and memos (after their label) come after the body, each distinct
    # one once: looked up there without order.
    furniture = doc.extract_text(include_furniture=True).split("\n")[len(lines) :]
    at = 0
    for marker, text in expected:
        # The reader's text of a paragraph may differ from its <t> texts past the first few
        # characters (tabs, fields, objects); the number and the start of the text may not.
        prefix = f"{marker} {text[:8]}"
        found = next((i for i in range(at, len(lines)) if lines[i].startswith(prefix)), None)
        if found is None and any(prefix in line for line in furniture):
            continue
        assert found is not None, f"{prefix!r} not found after line {at}"
        at = found + 1


def test_some_documents_are_numbered() -> None:
    """The corpus test above has numbered documents to check (outline, number and bullet)."""
    if SHARED is None:
        pytest.skip("no shared corpus")
    markers = [m for name in _numbered_documents() for m, _ in _expected_lines(SHARED / "corpus" / name)]
    assert {"1.", "가.", "4.1.2.", "●"} <= set(markers)
