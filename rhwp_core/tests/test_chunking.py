"""rhwp_core.chunking: the one chunking implementation (the chunks pack and batch call it)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from rhwp_core.chunking import chunk_document
from rhwp_core.errors import InvalidRequestError

import rhwp_core
from rhwp_core import chunking

pytest.importorskip("langchain_text_splitters", reason='chunking needs the extra: pip install "rhwp-core[chunks]"')

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures"
GOOD = sorted((FIXTURES / "hwp").glob("*.hwp")) + sorted((FIXTURES / "hwpx").glob("*.hwpx"))
SAMPLE = FIXTURES / "hwp" / "rhwp-nested-cell-pagination.hwp"
TABLES = FIXTURES / "hwpx" / "hwpxlib-SimpleTable.hwpx"
FURNITURE = FIXTURES / "hwpx" / "hwpxlib-HeaderFooter.hwpx"
META_KEYS = ["source", "format", "section", "paragraph", "block_kind", "page", "scope", "headings", "chunk_index"]


@pytest.mark.parametrize("mode", ["paragraph", "single", "ir-blocks"])
@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.name)
def test_chunks_have_the_langchain_shape_and_numbered_metadata(path: Path, mode: str) -> None:
    doc = rhwp_core.parse(path)
    chunks = chunk_document(doc, source="src-name", mode=mode, size=200, overlap=20)  # type: ignore[arg-type]
    for i, chunk in enumerate(chunks):
        assert list(chunk) == ["page_content", "metadata"]
        meta = chunk["metadata"]
        if mode == "single":
            assert list(meta) == ["source", "format", "block_kind", "scope", "chunk_index"]
        else:
            assert list(meta) == META_KEYS
        assert meta["source"] == "src-name" and meta["format"] == doc.format and meta["chunk_index"] == i
        assert chunk["page_content"].strip() and len(chunk["page_content"]) <= 200
        assert meta["scope"] == "body"


def test_paragraph_chunks_cover_the_body_text_in_order() -> None:
    doc = rhwp_core.parse(SAMPLE)
    chunks = chunk_document(doc, source=str(SAMPLE), size=400, overlap=0)
    joined = "\n".join(c["page_content"] for c in chunks)
    body = [u.text for u in doc.block_texts() if u.text]
    # Blocks no longer than size are packed whole, so each appears verbatim, in order.
    pos = 0
    for text in body:
        if len(text) <= 400:
            found = joined.find(text, pos)
            assert found >= 0, text[:40]
            pos = found


def test_ir_blocks_give_tables_as_markdown_and_furniture_on_request() -> None:
    chunks = chunk_document(rhwp_core.parse(TABLES), source="t", mode="ir-blocks", size=5000, overlap=0)
    tables = [c for c in chunks if c["metadata"]["block_kind"] == "table"]
    assert tables and all(c["page_content"].lstrip().startswith(("|", "<table")) for c in tables)

    doc = rhwp_core.parse(FURNITURE)
    without = chunk_document(doc, source="f", mode="ir-blocks")
    with_furniture = chunk_document(doc, source="f", mode="ir-blocks", include_furniture=True)
    assert all(c["metadata"]["scope"] == "body" for c in without)
    assert any(c["metadata"]["scope"] == "furniture" for c in with_furniture)


def test_pages_select_what_lies_on_them() -> None:
    doc = rhwp_core.parse(SAMPLE)
    if not doc.page_count:
        pytest.skip("the sample stores no page layout")
    everything = chunk_document(doc, source="s", mode="ir-blocks", size=5000, overlap=0)
    first = chunk_document(doc, source="s", mode="ir-blocks", size=5000, overlap=0, pages="1")
    assert 0 < len(first) <= len(everything)
    assert all(c["metadata"]["page"] in (1, None) for c in first)


@pytest.mark.parametrize(
    ("options", "needle"),
    [
        ({"size": 100, "overlap": 100}, "overlap (100) must be smaller than size (100)"),
        ({"size": 0, "overlap": 0}, "size"),
        ({"overlap": -1}, "overlap"),
        ({"mode": "paragraph", "include_furniture": True}, "include_furniture applies to mode='ir-blocks' only"),
        ({"mode": "sentences"}, "unknown chunking mode"),
    ],
)
def test_inconsistent_options_are_invalid_input(options: dict[str, object], needle: str) -> None:
    doc = rhwp_core.parse(SAMPLE)
    with pytest.raises(InvalidRequestError) as info:
        chunk_document(doc, source="s", **options)  # type: ignore[arg-type]
    assert info.value.code == "invalid_input" and needle in str(info.value) and info.value.suggestion


def test_a_document_without_text_gives_no_chunks() -> None:
    doc = rhwp_core.parse(FIXTURES / "hwp" / "hwplib-making_caption.hwp")
    if doc.extract_text(include_furniture=False).strip():
        pytest.skip("this fixture has text now")
    for mode in ("paragraph", "single", "ir-blocks"):
        assert chunk_document(doc, source="s", mode=mode) == []  # type: ignore[arg-type]


def test_without_the_extra_the_error_names_the_install(monkeypatch: pytest.MonkeyPatch) -> None:
    chunking._splitter.cache_clear()
    monkeypatch.setitem(sys.modules, "langchain_text_splitters", None)  # import fails as if not installed
    try:
        with pytest.raises(ImportError, match=r'pip install "rhwp-core\[chunks\]"'):
            chunk_document(rhwp_core.parse(SAMPLE), source="s")
        with pytest.raises(ImportError, match="rhwp-core"):
            chunking.require_splitter()
    finally:
        chunking._splitter.cache_clear()


def test_importing_rhwp_core_does_not_import_langchain() -> None:
    import subprocess

    code = "import sys, rhwp_core, rhwp_core.chunking; print('langchain_text_splitters' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "False"
