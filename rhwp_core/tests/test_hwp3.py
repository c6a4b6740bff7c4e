"""HWP 3.x (한글 3.0–97): the fixtures, every view, refusals, mutations, and the shared corpus.

The oracle for a 3.x document is Hancom's own conversion of it (its "twin", HWP 5.0 or HWPX),
which the other readers here read faithfully: our text must hold the twin's content and nothing
else (bigram recall >= 0.99 both ways), and lose at most 1% of its hanja and symbols.
"""

from __future__ import annotations

import collections
import unicodedata
from pathlib import Path

import pytest
from corpus_support import SHARED, require_shared
from rhwp_core_test_support import parse_html_strictly, recall

import rhwp_core
from rhwp_core import HwpError

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "hwp3"
DOCS = sorted(FIXTURES.glob("*.hwp"))
LEGACY = SHARED / "corpus" / "legacy-hwp3" if SHARED else None
CORPUS_DOCS = sorted(LEGACY.glob("*.hwp")) if LEGACY and LEGACY.is_dir() else []

# Documents we do not read well enough yet, with the reason. This list only ever shrinks.
XFAIL: dict[str, str] = {}


def twins(doc: Path) -> list[Path]:
    return [
        t
        for t in (doc.parent / "twins" / f"{doc.stem}.hwp5.hwp", doc.parent / "twins" / f"{doc.stem}.hwpx")
        if t.is_file()
    ]


def symbols(text: str) -> collections.Counter[str]:
    """Letters and symbols other than Hangul, ASCII and spacing (as ../shared/tools/corpus_report.py)."""
    return collections.Counter(
        c
        for c in unicodedata.normalize("NFC", text)
        if ord(c) > 127
        and not c.isspace()
        and not ("\uac00" <= c <= "\ud7a3")
        and not ("\u1100" <= c <= "\u11ff")
        and not ("\u3130" <= c <= "\u318f")
        and unicodedata.category(c)[0] in "LNS"
        and not 0xE000 <= ord(c) <= 0xF8FF
        and ord(c) < 0xF0000
    )


def check_against_twins(doc: Path) -> None:
    text = rhwp_core.parse(doc).extract_text()
    assert text.strip(), "no text"
    assert "\ufffd" not in text
    for twin in twins(doc):
        theirs = rhwp_core.parse(twin).extract_text()
        assert recall(theirs, text) >= 0.99, f"twin {twin.name}'s content missing from ours"
        assert recall(text, theirs) >= 0.99, f"our text holds what twin {twin.name} does not"
        want, got = symbols(theirs), symbols(text)
        lost = want - got
        assert sum(lost.values()) <= max(2, sum(want.values()) // 100), "".join(list(lost.elements())[:20])


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_fixture_reads_as_hwp3(path: Path) -> None:
    doc = rhwp_core.parse(path)
    assert doc.format == "hwp3"
    assert doc.summary()["format"] == "hwp3"
    assert doc.to_ir().format == "hwp3"
    check_against_twins(path)


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_every_view_works(path: Path) -> None:
    doc = rhwp_core.parse(path)
    text = doc.extract_text()
    markdown = doc.to_markdown(include_furniture=True)
    html = doc.to_html(include_css=True, include_furniture=True)
    parse_html_strictly(html)
    assert list(doc.iter_blocks(scope="all"))
    words = [w for w in text.split() if w.isalnum()][:50]
    for w in words:
        assert w in markdown and w in html.replace("&amp;", "&")


def test_hanja_symbols_tables_pictures() -> None:
    doc = rhwp_core.parse(FIXTURES / "rhwp-hwp3-sample.hwp")
    text = doc.extract_text()
    assert "代理人" in text
    ir = doc.to_ir()
    assert ir.metadata.title == "Creating Linux Virtual Servers"
    assert ir.metadata.created and ir.metadata.created.startswith("1999-09-08")
    assert ir.pages == 16
    kinds = collections.Counter(b.kind for b in doc.iter_blocks(scope="all"))
    assert kinds["table"] == 6 and kinds["picture"] >= 4
    assert len(ir.bin_data) >= 4
    form = rhwp_core.parse(FIXTURES / "rhwp-hwp3-drawing-group.hwp").extract_text()
    assert "※" in form and "주민등록번호" in form


def test_refusals() -> None:
    good = (FIXTURES / "rhwp-hwp3-tab.hwp").read_bytes()
    # Password flag (document information offset 96, after the 30-byte signature).
    locked = bytearray(good)
    locked[30 + 96] = 1
    with pytest.raises(HwpError) as e:
        rhwp_core.parse(bytes(locked))
    assert e.value.code == "password_required" and "password" in e.value.suggestion
    older = bytearray(good)
    older[:23] = b"HWP Document File V2.00"
    with pytest.raises(HwpError) as e:
        rhwp_core.parse(bytes(older))
    assert e.value.code == "unsupported_format" and e.value.suggestion
    # Signature and header with no body; and a header cut short.
    for data in (good[:1166], good[:30], good[:1166] + bytes(3000)):
        with pytest.raises(HwpError) as e:
            rhwp_core.parse(data)
        assert e.value.code == "corrupt_document", data[:40]


# Mutations of the 3.x fixtures run with the others' in test_mutation.py (its seeds include them).


@pytest.mark.parametrize(
    "path",
    [
        pytest.param(p, marks=pytest.mark.xfail(reason=XFAIL[p.name], strict=True)) if p.name in XFAIL else p
        for p in CORPUS_DOCS
    ]
    or [None],
    ids=lambda p: p.name if p else "corpus-missing",
)
def test_corpus_documents_match_their_twins(path: Path | None) -> None:
    require_shared()
    if path is None:
        pytest.fail("../shared/corpus/legacy-hwp3 holds no HWP 3.x documents")
    check_against_twins(path)


def _shape_text(blocks: list, inside: bool = False) -> list[str]:
    """Paragraph texts that sit inside drawing shapes, at any depth."""
    out: list[str] = []
    for b in blocks:
        kind = b.kind
        if kind == "paragraph" and inside and b.text.strip():
            out.append(b.text)
        elif kind == "shape":
            out += _shape_text(b.blocks, True) + _shape_text(b.caption, True)
        elif kind == "table":
            for c in b.cells:
                out += _shape_text(c.blocks, inside)
    return out


@pytest.mark.parametrize("path", DOCS + CORPUS_DOCS, ids=lambda p: p.name)
def test_drawing_text_is_in_the_text(path: Path) -> None:
    # No 3.x document whose drawings hold text reads empty: every word of a shape is in the text.
    doc = rhwp_core.parse(path)
    ir = doc.to_ir()
    text = doc.extract_text()
    blocks = [b for s in ir.sections for b in s.blocks] + [b for f in ir.furniture for b in f.blocks]
    for para in _shape_text(blocks):
        assert para in text


def _para(text: str, controls: bytes = b"") -> bytes:
    """A paragraph (spec §4) following the previous one's shape: ASCII text, then `controls`
    (whole control codes with their data, counted in hchar units by the caller), then 13."""
    chars = b"".join(c.to_bytes(2, "little") for c in text.encode()) + controls + (13).to_bytes(2, "little")
    units = len(text) + controls.count(b"\x0b\x00\x00\x00\x00\x00\x0b\x00") * 4 + 1
    return bytes([1]) + units.to_bytes(2, "little") + bytes(40) + chars


def _list(*paras: bytes) -> bytes:
    return b"".join(paras) + bytes(43)


def _object(kind: int, links: int, flags: int = 0, in_header: bytes = b"", d2: bytes = b"") -> bytes:
    head = kind.to_bytes(2, "little") + links.to_bytes(2, "little") + bytes(80) + flags.to_bytes(4, "little")
    head += in_header
    return len(head).to_bytes(4, "little") + head + bytes(4) + len(d2).to_bytes(4, "little") + d2


def _drawing(objects: bytes) -> bytes:
    extra = (24).to_bytes(4, "little") + bytes(24) + objects
    info = bytearray(348)
    info[:4] = len(extra).to_bytes(4, "little")
    info[74] = 3  # a drawing
    code = (11).to_bytes(2, "little") + bytes(4) + (11).to_bytes(2, "little")
    return code + bytes(info) + extra + _list()


def test_hand_built_group_of_text_boxes() -> None:
    # {group: a rectangle made into a text box (flag bit 19), {group: a text box}}: as 한글 97
    # writes text drawn on the drawing layer; both texts, in order, and nothing else lost.
    boxed = _list(_para("drawn on a rectangle"))
    rect = _object(2, 0x01, 1 << 19, bytes(4) + len(boxed).to_bytes(4, "little") + boxed)
    inner = _object(0, 0x02) + _object(6, 0x00, d2=_list(_para("in a nested group")))
    body = bytes(16) + _para("body", _drawing(_object(0, 0x02) + rect + inner)) + bytes(43) + bytes(8)
    head = bytearray(b"HWP Document File V3.00 \x1a\x01\x02\x03\x04\x05" + bytes(128 + 1008))
    head[30 + 125] = 1
    doc = rhwp_core.parse(bytes(head) + body)
    assert doc.format == "hwp3"
    assert doc.extract_text() == "body\ndrawn on a rectangle\nin a nested group"
    markdown, html = doc.to_markdown(), doc.to_html()
    for words in ("drawn on a rectangle", "in a nested group"):
        assert words in markdown and words in html
