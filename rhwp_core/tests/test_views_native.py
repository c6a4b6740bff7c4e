"""The native Markdown view (``NativeDocument.to_markdown``, rendered in Rust from the model) is
byte for byte the Python view (``views.markdown.render_markdown`` over the IR), block starts
included, with and without page furniture; so is the native HTML view (``NativeDocument.to_html``
against ``views.html.render_html``), with and without CSS and page furniture.

Compared on every shared-corpus document (HWP, HWPX, HWP 3.x; in CI a missing corpus fails),
on every fixture, and on fixtures whose texts and character formatting are rewritten at random
with the characters the escaping and delimiter rules are about. A document that still differs
goes in EXPECTED_DIFFERENT (HTML_EXPECTED_DIFFERENT) with the reason (a strict xfail: the list
only shrinks).
"""

from __future__ import annotations

import io
import random
import re
import threading
import zipfile
from pathlib import Path

import pytest
from corpus_support import FIXTURES, SHARED, require_shared
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle_views.html import render_html
from oracle_views.markdown import render_block_markdown, render_markdown
from rhwp_core.navigation import parse_pages

import rhwp_core
from rhwp_core import HwpError

# name -> why the native Markdown still differs from the Python view. Empty: none differs.
EXPECTED_DIFFERENT: dict[str, str] = {}
# name -> why the native HTML still differs from the Python view. Empty: none differs.
HTML_EXPECTED_DIFFERENT: dict[str, str] = {}

_CORPUS_FOLDERS = ("hwp", "hwpx", "legacy-hwp3")


def _corpus() -> list[str]:
    if SHARED is None:
        return ["<corpus missing>"]
    corpus = SHARED / "corpus"
    return sorted(
        str(p.relative_to(corpus)) for folder in _CORPUS_FOLDERS for p in (corpus / folder).glob("*") if p.is_file()
    )


def _fixtures() -> list[str]:
    return sorted(str(p.relative_to(FIXTURES)) for p in FIXTURES.rglob("*") if p.is_file())


def _param(name: str, expected_different: dict[str, str] = EXPECTED_DIFFERENT) -> object:
    if name in expected_different:
        return pytest.param(name, marks=pytest.mark.xfail(reason=expected_different[name], strict=True))
    return name


def _html_param(name: str) -> object:
    return _param(name, HTML_EXPECTED_DIFFERENT)


def _assert_same(source: Path | bytes) -> None:
    try:
        doc = rhwp_core.parse(source)
    except HwpError:
        return  # refused (bad fixtures): nothing to render
    ir = doc.to_ir()
    for include_furniture in (False, True):
        starts: list[int | None] = []
        levels = doc._native.heading_levels()
        expected = render_markdown(ir, include_furniture=include_furniture, block_starts=starts, levels=levels)
        text, native_starts = doc._native.to_markdown(include_furniture)
        assert text == expected, f"include_furniture={include_furniture}"
        assert native_starts == starts, f"include_furniture={include_furniture}"


def _assert_same_html(source: Path | bytes) -> None:
    try:
        doc = rhwp_core.parse(source)
    except HwpError:
        return  # refused (bad fixtures): nothing to render
    ir = doc.to_ir()
    for include_css in (False, True):
        for include_furniture in (False, True):
            levels = doc._native.heading_levels()
            expected = render_html(ir, include_css=include_css, include_furniture=include_furniture, levels=levels)
            html = doc._native.to_html(include_css, include_furniture)
            assert html == expected, f"include_css={include_css}, include_furniture={include_furniture}"


def _page_specs(page_count: int | None) -> list[str]:
    if not page_count:
        return []
    return sorted({"1", "2", "1-2", str(page_count)} if page_count >= 2 else {"1"})


def _assert_same_pages(source: Path | bytes) -> None:
    """``to_markdown``/``to_html`` with ``pages`` (native over the model cut to those pages) are
    the Python views over ``_ir_of_pages``; the chunks' table Markdown (native) is
    ``render_block_markdown`` over the whole IR, for the whole document and for each page spec."""
    try:
        doc = rhwp_core.parse(source)
    except HwpError:
        return
    ir = doc.to_ir()
    for pages in (None, *_page_specs(doc.page_count)):
        expected_tables = [render_block_markdown(ir, b) for b in doc.iter_blocks(pages=pages) if b.kind == "table"]
        assert doc._table_markdown(pages) == expected_tables, f"pages={pages}"
        if pages is None:
            continue
        cut = doc._ir_of_pages(pages)
        # A selection shows the whole document's headings at the kept blocks.
        everywhere = doc._native.heading_levels()
        selection = doc._selection(pages)
        levels = [everywhere[i] for i in selection[0]]
        wanted = sorted(parse_pages(pages, doc.page_count))
        for include_furniture in (False, True):
            # The native views of the selection (Document.to_markdown/to_html add a note to a page
            # with nothing to show, which tests/test_navigation.py checks).
            expected = render_markdown(cut, include_furniture=include_furniture, levels=levels)
            assert doc._native.to_markdown(include_furniture, selection, wanted)[0] == expected, (
                f"pages={pages}, include_furniture={include_furniture}"
            )
            for include_css in (False, True):
                expected = render_html(cut, include_css=include_css, include_furniture=include_furniture, levels=levels)
                html = doc._native.to_html(include_css, include_furniture, selection, wanted)
                assert html == expected, f"pages={pages}, include_css={include_css}, furniture={include_furniture}"


@pytest.mark.corpus
@pytest.mark.parametrize("rel", _corpus())
def test_corpus_document_pages(rel: str) -> None:
    _assert_same_pages(require_shared() / "corpus" / rel)


@pytest.mark.parametrize("rel", _fixtures())
def test_fixture_pages(rel: str) -> None:
    _assert_same_pages(FIXTURES / rel)


@pytest.mark.corpus
@pytest.mark.parametrize("rel", [_param(name) for name in _corpus()])
def test_corpus_document(rel: str) -> None:
    _assert_same(require_shared() / "corpus" / rel)


@pytest.mark.parametrize("rel", [_param(name) for name in _fixtures()])
def test_fixture(rel: str) -> None:
    _assert_same(FIXTURES / rel)


@pytest.mark.corpus
@pytest.mark.parametrize("rel", [_html_param(name) for name in _corpus()])
def test_corpus_document_html(rel: str) -> None:
    _assert_same_html(require_shared() / "corpus" / rel)


@pytest.mark.parametrize("rel", [_html_param(name) for name in _fixtures()])
def test_fixture_html(rel: str) -> None:
    _assert_same_html(FIXTURES / rel)


def test_document_api_renders_natively() -> None:
    """``Document.to_markdown`` is the native view, with pages too."""
    doc = rhwp_core.parse(FIXTURES / "hwpx" / "rhwp-footnote-01.hwpx")
    assert doc.to_markdown() == doc._native.to_markdown(False)[0]
    assert doc.to_markdown(include_furniture=True) == doc._native.to_markdown(True)[0]
    if doc.page_count:
        assert doc.to_markdown(pages=f"1-{doc.page_count}") == doc.to_markdown()


def test_document_api_renders_html_natively() -> None:
    """``Document.to_html`` is the native view, with pages too."""
    doc = rhwp_core.parse(FIXTURES / "hwpx" / "rhwp-footnote-01.hwpx")
    for include_css in (False, True):
        for include_furniture in (False, True):
            html = doc.to_html(include_css=include_css, include_furniture=include_furniture)
            assert html == doc._native.to_html(include_css, include_furniture)
    if doc.page_count:
        assert doc.to_html(pages=f"1-{doc.page_count}") == doc.to_html()


# ---- rewritten fixtures ------------------------------------------------------------------------

# What the rules are about: Markdown syntax, entities, flanking (punctuation, symbols, spaces of
# every kind Python counts), digits of other scripts, Hangul words, chapter and contents lines.
_PIECES = [
    *"\\`*_[]<>|~$&#;!+-=.)(:^{}'\"",
    " ", "  ", "\t", "\u3000", "\xa0", "\x1c", "\u200b", "\u0301", "\ufffe",
    "a", "Z", "7", "٣", "²", "가", "나다", "※", "·", "…", "Ⅱ", "①",
    "&amp;", "&#12;", "1.", "12)", "[^1]:", "--", "---", "...", "제1장", "제 2 절", "목차", "http://x.y/(a b)",
    "over", "sqrt", "LEFT (", "RIGHT )", "matrix{", "#",
]  # fmt: skip
_TEXT = re.compile(rb"<hp:t>([^<]*)</hp:t>")
_CHAR_REF = re.compile(rb'charPrIDRef="(\d+)"')
_CHAR_PR_ID = re.compile(rb'<hh:charPr id="(\d+)"')
_CHAR_PR = re.compile(rb"<hh:charPr [^>]*[^/]>")
_FORMATS = [b"<hh:bold/>", b"<hh:italic/>", b'<hh:strikeout shape="SOLID"/>', b'<hh:underline type="BOTTOM"/>',
            b"<hh:supscript/>", b"<hh:subscript/>"]  # fmt: skip


def _rewritten(path: Path, seed: int) -> bytes:
    """The HWPX fixture with random formatting in each character property set, every plain text
    element redrawn and cut into runs of random property sets (so formatting changes mid-word)."""
    rng = random.Random(seed)
    source = zipfile.ZipFile(path)
    header = next((n for n in source.namelist() if n.lower().endswith("header.xml")), None)
    ids = (_CHAR_PR_ID.findall(source.read(header)) if header else []) or [b"0"]

    def text(_: re.Match[bytes]) -> bytes:
        cuts = [_xml_text(rng) for _ in range(rng.randint(1, 3))]
        return (
            b"<hp:t>"
            + b"".join(
                (b'</hp:t></hp:run><hp:run charPrIDRef="' + rng.choice(ids) + b'"><hp:t>' if i else b"") + cut
                for i, cut in enumerate(cuts)
            )
            + b"</hp:t>"
        )

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        for info in source.infolist():
            data = source.read(info)
            if info.filename == header:
                data = _CHAR_PR.sub(lambda m: m.group() + b"".join(f for f in _FORMATS if rng.random() < 0.3), data)
            if info.filename.startswith("Contents/section"):
                data = _CHAR_REF.sub(lambda _: b'charPrIDRef="' + rng.choice(ids) + b'"', data)
                data = _TEXT.sub(text, data)
            package.writestr(info, data)
    return out.getvalue()


def _xml_text(rng: random.Random) -> bytes:
    text = "".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 12)))
    # XML 1.0 cannot carry most C0 controls: as character references, which the reader decodes.
    escaped = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return "".join(c if c >= " " or c == "\t" else f"&#{ord(c)};" for c in escaped).encode()


_HWPX_FIXTURES = sorted((FIXTURES / "hwpx").glob("*.hwpx"))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(_HWPX_FIXTURES), st.integers(0, 2**32))
def test_rewritten_fixture(path: Path, seed: int) -> None:
    _assert_same(_rewritten(path, seed))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(_HWPX_FIXTURES), st.integers(0, 2**32))
def test_rewritten_fixture_html(path: Path, seed: int) -> None:
    _assert_same_html(_rewritten(path, seed))


def _nested_tables_hwpx(depth: int) -> bytes:
    level = '<hp:tbl rowCnt="1" colCnt="1"><hp:tr><hp:tc><hp:subList><hp:p><hp:run>'
    close = "</hp:run></hp:p></hp:subList></hp:tc></hp:tr></hp:tbl>"
    xml = (
        '<?xml version="1.0" encoding="UTF-8"?><hs:sec xmlns:hs="http://www.hancom.co.kr/hwpml/2011/section"'
        ' xmlns:hp="http://www.hancom.co.kr/hwpml/2011/paragraph"><hp:p><hp:run>'
        + level * depth
        + "<hp:t>deep</hp:t>"
        + close * depth
        + "</hp:run></hp:p></hs:sec>"
    )
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        package.writestr("mimetype", "application/hwp+zip")
        package.writestr("Contents/section0.xml", xml)
    return out.getvalue()


def test_deepest_document_renders_on_a_small_stack() -> None:
    """64 tables in cells (the deepest the reader accepts): rendered natively (Markdown and HTML)
    in a thread with a small stack, and the same as the Python view."""
    data = _nested_tables_hwpx(64)
    _assert_same(data)
    _assert_same_html(data)
    results: list[bool] = []
    previous = threading.stack_size(512 * 1024)
    try:
        worker = threading.Thread(target=lambda: results.append("deep" in rhwp_core.parse(data).to_markdown()))
        worker.start()
        worker.join()
        doc = rhwp_core.parse(data)
        worker = threading.Thread(target=lambda: results.append("deep" in doc._native.to_html(True, True)))
        worker.start()
        worker.join()
    finally:
        threading.stack_size(previous)
    assert results == [True, True]
