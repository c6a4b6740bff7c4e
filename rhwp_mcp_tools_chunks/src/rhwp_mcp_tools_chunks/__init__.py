"""Tool pack ``chunks``: an HWP/HWPX document cut into retrieval-sized chunks.

Each chunk has LangChain's ``Document`` shape (``page_content`` + ``metadata``, the shape
``rhwp_core.chunking.Chunk``), so a RAG pipeline can load the result as is. The chunking itself is
``rhwp_core.chunking`` (the ``rhwp-core[chunks]`` extra), the same code ``rhwp-batch`` runs, so the
tool and a bulk run give the same chunks; its text splitter is imported on the first call, not at
server start. This pack adds what is
MCP's: the parameters and their schema, paging, parts of oversized chunks, the caller's name for
the source. The chunk list is kept per document and option set, so paging through it chunks once.
"""

from __future__ import annotations

import functools
from typing import Annotated

from pydantic import Field
from rhwp_core.chunking import Chunk, Mode, check_options, chunk_document
from rhwp_core.document import Document
from typing_extensions import NotRequired, TypedDict

import rhwp_core
from rhwp_mcp_host import (
    FilePath,
    Pages,
    Register,
    caller_source,
    current_password,
    hookimpl,
    next_call_of,
    page_list,
    split_string_field,
)


class ChunksPage(TypedDict):
    chunks: list[Chunk]
    total: int
    next_offset: int | None
    part: NotRequired[int]
    """When one chunk is too large for a response: which part of its text this is (1-based)."""
    parts: NotRequired[int]
    next: NotRequired[str]


def _load(path: str) -> Document:
    # The password the caller gave (the host takes it out of the arguments), if any.
    return rhwp_core.load(path, password=current_password())


@functools.lru_cache(maxsize=8)
def _chunks(
    doc: Document, source: str, mode: Mode, size: int, overlap: int, furniture: bool, pages: str | None
) -> list[Chunk]:
    # Kept per document and option set, so paging through one document chunks it once.
    return chunk_document(
        doc, source=source, mode=mode, size=size, overlap=overlap, include_furniture=furniture, pages=pages
    )


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
    format, section, paragraph, block_kind, page (when known), scope (body/furniture/annotation),
    headings (the outline headings the chunk sits under, e.g. ["Ⅰ. 사업개요", "1. 추진배경"]), chunk_index.

    Modes: "paragraph" (default; chunks follow paragraph and table boundaries), "single" (the whole
    text split by size), "ir-blocks" (one chunk per block, tables as Markdown; with include_furniture,
    headers/footers/notes become chunks with scope="furniture"). Pages of `limit` chunks, cut to stay
    under the response cap; next_offset (null on the last page) is the offset of the next call.
    `pages="3-5"` chunks what lies on those pages.
    """
    # Inconsistent options are refused (invalid_input) before the document is read.
    check_options(mode, size, overlap, include_furniture)
    doc = _load(path)
    chunked = _chunks(doc, caller_source(path), mode, size, overlap, include_furniture, pages)

    next_call = next_call_of(
        chunks,
        path=path,
        mode=mode,
        size=size,
        overlap=overlap,
        include_furniture=include_furniture,
        pages=pages,
        limit=limit,
    )

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
def rhwp_mcp_register_tools(register: Register) -> None:
    register(chunks, title="Chunk an HWP/HWPX document for retrieval")
