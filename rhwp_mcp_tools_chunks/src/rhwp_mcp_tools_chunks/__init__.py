"""Tool pack ``chunks``: an HWP/HWPX document cut into retrieval-sized chunks.

Each chunk has LangChain's ``Document`` shape (``page_content`` + ``metadata``), so a RAG
pipeline can load the result as is. Splitting goes through langchain-text-splitters'
``RecursiveCharacterTextSplitter`` (imported on the first call, not at server start).
The chunk list is kept per document and option set, so paging through it chunks once.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field
from typing_extensions import NotRequired, TypedDict

from rhwp_mcp_host import (
    FilePath,
    Pages,
    ToolFailure,
    caller_source,
    format_call,
    hookimpl,
    page_list,
    split_string_field,
)

if TYPE_CHECKING:
    from rhwp_core import Document

Mode = Literal["single", "paragraph", "ir-blocks"]


class Chunk(TypedDict):
    page_content: str
    metadata: dict[str, Any]
    """source, format, section, paragraph, block_kind, page, scope, chunk_index."""


class ChunksPage(TypedDict):
    chunks: list[Chunk]
    total: int
    next_offset: int | None
    part: NotRequired[int]
    """When one chunk is too large for a response: which part of its text this is (1-based)."""
    parts: NotRequired[int]
    next: NotRequired[str]


def _load(path: str) -> Document:
    import rhwp_core

    return rhwp_core.load(path)


def _splitter(size: int, overlap: int) -> Any:
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    return RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=overlap, add_start_index=False)


def _tables_as_markdown(doc: Document, pages: str | None) -> list[str]:
    """Markdown of every top-level body table (on ``pages``), in reading order (that of ``block_texts``)."""
    from rhwp_core.views.markdown import render_block_markdown

    ir = doc.to_ir()
    return [render_block_markdown(ir, block) for block in doc.iter_blocks(pages=pages) if block.kind == "table"]


@functools.lru_cache(maxsize=8)
def _chunks(
    doc: Document, source: str, mode: Mode, size: int, overlap: int, furniture: bool, pages: str | None
) -> list[dict[str, Any]]:
    splitter = _splitter(size, overlap)
    fmt = doc.format
    out: list[dict[str, Any]] = []

    def emit(text: str, meta: dict[str, Any]) -> None:
        pieces = [text] if len(text) <= size else splitter.split_text(text)
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

    units = doc.block_texts(include_furniture=furniture and mode == "ir-blocks", pages=pages)
    if mode == "paragraph":
        # Consecutive blocks are packed into one chunk up to `size`; a longer block is split alone.
        group: list[str] = []
        first = None
        for unit in units:
            if not unit.text:
                continue
            if group and sum(len(t) + 1 for t in group) + len(unit.text) > size:
                emit("\n".join(group), _meta(first))
                group, first = [], None
            if len(unit.text) > size:
                emit(unit.text, _meta(unit))
                continue
            group.append(unit.text)
            first = first or unit
        if group:
            emit("\n".join(group), _meta(first))
        return out

    # ir-blocks: one chunk per top-level block (tables as Markdown), long ones split.
    tables = iter(_tables_as_markdown(doc, pages))
    for unit in units:
        text = unit.text
        if unit.kind == "table" and unit.scope == "body":
            text = next(tables, text)
        if text:
            emit(text, _meta(unit))
    return out


def _meta(unit: Any) -> dict[str, Any]:
    return {
        "section": unit.section,
        "paragraph": unit.paragraph,
        "block_kind": unit.kind,
        "page": unit.page,
        "scope": unit.scope,
    }


def chunks(
    path: FilePath,
    mode: Annotated[
        Mode,
        Field(
            description="single: the whole text, split by size; paragraph: paragraph-aligned chunks; "
            "ir-blocks: one chunk per block (tables as Markdown)."
        ),
    ] = "paragraph",
    size: Annotated[int, Field(ge=50, le=20_000, description="Target chunk size in characters.")] = 500,
    overlap: Annotated[int, Field(ge=0, le=5_000, description="Characters shared by neighbouring chunks.")] = 50,
    include_furniture: Annotated[
        bool,
        Field(description="ir-blocks only: headers, footers, footnotes and endnotes become chunks too."),
    ] = False,
    offset: Annotated[int, Field(ge=0, description="First chunk to return (next_offset of a previous page).")] = 0,
    limit: Annotated[int, Field(ge=1, le=1000, description="At most this many chunks.")] = 50,
    pages: Pages = None,
    part: Annotated[
        int | None, Field(ge=1, description="For a chunk too large for one response: which of its parts (1-based).")
    ] = None,
) -> ChunksPage:
    """Chunks of an HWP/HWPX document for retrieval (RAG), in LangChain Document shape:
    {chunks: [{page_content, metadata}], total, next_offset}. Metadata on every chunk: source,
    format, section, paragraph, block_kind, page (when known), scope (body/furniture), chunk_index.

    Modes: "paragraph" (default; chunks follow paragraph and table boundaries), "single" (the whole
    text split by size), "ir-blocks" (one chunk per block, tables as Markdown; with include_furniture,
    headers/footers/notes become chunks with scope="furniture"). Pages of `limit` chunks, cut to stay
    under the response cap; next_offset (null on the last page) is the offset of the next call.
    `pages="3-5"` chunks what lies on those pages.
    """
    if overlap >= size:
        raise ToolFailure(
            "invalid_input", f"overlap ({overlap}) must be smaller than size ({size})", "e.g. overlap=size//10"
        )
    if include_furniture and mode != "ir-blocks":
        raise ToolFailure(
            "invalid_input",
            f"include_furniture applies to mode='ir-blocks' only, not mode={mode!r}",
            "use mode='ir-blocks' with include_furniture=True",
        )
    doc = _load(path)
    chunked = _chunks(doc, caller_source(path), mode, size, overlap, include_furniture, pages)

    def next_call(next_offset: int, next_part: int | None) -> str:
        options = {"mode": mode, "size": size, "overlap": overlap, "include_furniture": include_furniture}
        defaults = {"mode": "paragraph", "size": 500, "overlap": 50, "include_furniture": False}
        extra: dict[str, Any] = {k: v for k, v in options.items() if v != defaults[k]}
        if pages is not None:
            extra["pages"] = pages
        if limit != 50:
            extra["limit"] = limit
        if next_part is not None:
            extra["part"] = next_part
        return format_call("chunks", path=path, **extra, offset=next_offset)

    # A chunk larger than a response (a big size under a small cap) comes in parts of its text.
    page = page_list(
        chunked,
        offset,
        limit,
        key="chunks",
        part=part,
        split=lambda chunk, room: split_string_field(chunk, "page_content", room),
        next_call=next_call,
    )
    return page  # type: ignore[return-value]


@hookimpl
def rhwp_mcp_register_tools(register: Any) -> None:
    register(chunks, title="Chunk an HWP/HWPX document for retrieval")
