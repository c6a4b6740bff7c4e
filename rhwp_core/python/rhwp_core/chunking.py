"""Retrieval chunks of a document, in LangChain's ``Document`` shape (``page_content`` + ``metadata``).

This is the one chunking implementation: the ``chunks`` tool pack and ``rhwp_core.batch`` both
call :func:`chunk_document`, so a chunk produced in bulk is the chunk an agent gets for the same
arguments. Splitting long text goes through langchain-text-splitters'
``RecursiveCharacterTextSplitter`` (the ``rhwp-core[chunks]`` extra), imported on first use so
that ``import rhwp_core`` stays light.

Modes:

- ``"single"``: the body text (``extract_text(include_furniture=False)``), split by ``size``.
- ``"paragraph"``: consecutive top-level blocks packed into chunks of up to ``size`` characters;
  a block longer than ``size`` is split on its own.
- ``"ir-blocks"``: one chunk per top-level block, body tables as Markdown; with
  ``include_furniture``, headers, footers and notes become chunks with ``scope="furniture"``.

Every chunk's metadata has, in this order: ``source``, ``format``, ``section``, ``paragraph``,
``block_kind``, ``page``, ``scope``, ``headings`` (the outline headings the chunk's first block sits
under, outermost first), ``chunk_index`` (``single`` mode has no section/paragraph/page/headings).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, get_args

from typing_extensions import TypedDict

from .errors import InvalidRequestError

if TYPE_CHECKING:
    from .document import Document
    from .navigation import BlockText

Mode = Literal["single", "paragraph", "ir-blocks"]
MODES: tuple[str, ...] = get_args(Mode)

__all__ = ["MODES", "Chunk", "Mode", "check_options", "chunk_document", "require_splitter"]


# Also the shape the chunks pack answers with. No class docstring: it would become the shape's
# description in the tool's output schema.
class Chunk(TypedDict):
    page_content: str
    metadata: dict[str, Any]
    """source, format, section, paragraph, block_kind, page, scope, headings, chunk_index (see the
    module doc)."""


_INSTALL_HINT = 'pip install "rhwp-core[chunks]"'


def check_options(mode: str, size: int, overlap: int, include_furniture: bool) -> None:
    """Refuse option sets :func:`chunk_document` cannot honour (``InvalidRequestError``, code
    ``invalid_input``). Callers that must refuse before reading a document call this first."""
    if mode not in MODES:
        raise InvalidRequestError(f"unknown chunking mode {mode!r}", f"use one of: {', '.join(MODES)}")
    if size < 1:
        raise InvalidRequestError(f"size ({size}) must be at least 1", "e.g. size=500")
    if overlap < 0:
        raise InvalidRequestError(f"overlap ({overlap}) must not be negative", "e.g. overlap=size//10")
    if overlap >= size:
        raise InvalidRequestError(f"overlap ({overlap}) must be smaller than size ({size})", "e.g. overlap=size//10")
    if include_furniture and mode != "ir-blocks":
        raise InvalidRequestError(
            f"include_furniture applies to mode='ir-blocks' only, not mode={mode!r}",
            "use mode='ir-blocks' with include_furniture=True",
        )


@functools.lru_cache(maxsize=16)
def _splitter(size: int, overlap: int) -> Any:
    # One splitter per option set: a batch worker chunks thousands of documents with the same one.
    try:
        from langchain_text_splitters import RecursiveCharacterTextSplitter
    except ImportError as e:
        raise ImportError(f"chunking needs langchain-text-splitters, which is not installed: {_INSTALL_HINT}") from e
    return RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=overlap, add_start_index=False)


def require_splitter() -> None:
    """Raise the ``ImportError`` that names the install when langchain-text-splitters is missing
    (a batch run checks this once, before any document, instead of failing on each)."""
    _splitter(500, 50)


def _tables_as_markdown(doc: Document, pages: str | None) -> list[str]:
    """Markdown of every top-level body table (on ``pages``), in reading order (that of ``block_texts``)."""
    # Rendered natively (Document._table_markdown): what views.markdown.render_block_markdown gives
    # for each table over the IR (tests/test_views_native.py compares them), without the IR.
    return doc._table_markdown(pages)


def _meta(unit: BlockText, paths: list[list[str]]) -> dict[str, Any]:
    return {
        "section": unit.section,
        "paragraph": unit.paragraph,
        "block_kind": unit.kind,
        "page": unit.page,
        "scope": unit.scope,
        # The headings the chunk sits under (outline's words, outermost first): a retrieved chunk
        # says where it is. Furniture and memos sit under none.
        "headings": paths[unit.block] if unit.scope == "body" and 0 <= unit.block < len(paths) else [],
    }


def chunk_document(
    doc: Document,
    *,
    source: str,
    mode: Mode = "paragraph",
    size: int = 500,
    overlap: int = 50,
    include_furniture: bool = False,
    pages: str | None = None,
) -> list[Chunk]:
    """The chunks of ``doc``: ``[{"page_content": str, "metadata": {...}}, ...]`` (see the module doc).

    ``source`` is what ``metadata["source"]`` says (a path, a URL, a ``doc:`` handle). ``size`` and
    ``overlap`` are in characters; ``pages`` (``"3"``, ``"3-5"``, ``"1,4-6"``) keeps what lies on those
    pages. Blank pieces are dropped, so a document without text gives ``[]``. Raises
    ``InvalidRequestError`` for inconsistent options and ``ImportError`` without the ``[chunks]`` extra.
    """
    check_options(mode, size, overlap, include_furniture)
    splitter = _splitter(size, overlap)
    fmt = doc.format
    out: list[Chunk] = []

    def emit(text: str, meta: dict[str, Any]) -> None:
        pieces: Sequence[str] = [text] if len(text) <= size else splitter.split_text(text)
        for piece in pieces:
            if piece.strip():
                out.append(
                    {
                        "page_content": piece,
                        "metadata": {"source": source, "format": fmt, **meta, "chunk_index": len(out)},
                    }
                )

    if mode == "single":
        emit(doc.extract_text(include_furniture=False, pages=pages), {"block_kind": "text", "scope": "body"})
        return out

    units = doc.block_texts(include_furniture=include_furniture and mode == "ir-blocks", pages=pages)
    paths = doc.heading_paths()
    if mode == "paragraph":
        # Consecutive blocks are packed into one chunk up to `size`; a longer block is split alone.
        group: list[str] = []
        first: BlockText | None = None
        for unit in units:
            if not unit.text:
                continue
            if group and first is not None and sum(len(t) + 1 for t in group) + len(unit.text) > size:
                emit("\n".join(group), _meta(first, paths))
                group, first = [], None
            if len(unit.text) > size:
                emit(unit.text, _meta(unit, paths))
                continue
            group.append(unit.text)
            first = first or unit
        if group and first is not None:
            emit("\n".join(group), _meta(first, paths))
        return out

    # ir-blocks: one chunk per top-level block (tables as Markdown), long ones split.
    # The IR (for the tables' Markdown) costs more than the text; a document without tables skips it.
    has_tables = any(u.kind == "table" and u.scope == "body" for u in units)
    tables = iter(_tables_as_markdown(doc, pages) if has_tables else [])
    for unit in units:
        text = unit.text
        if unit.kind == "table" and unit.scope == "body":
            text = next(tables, text)
        if text:
            emit(text, _meta(unit, paths))
    return out
