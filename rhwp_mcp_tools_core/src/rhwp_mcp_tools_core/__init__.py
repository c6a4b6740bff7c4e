"""Tool pack ``core``: what an agent asks first of an HWP/HWPX document.

parse_hwp_summary (what is it), extract_text (all of its words), get_ir (its structure as
JSON) and iter_blocks (its paragraphs, tables, pictures... one page at a time). Every tool
reads through ``rhwp_core.load``, so a second call on an unchanged file does not parse again.

Each tool reports its phases as progress (when the client asks for it) and stops between them
when the client cancels the call: a native step already running (the parse) runs to its end.
"""

from __future__ import annotations

import functools
import itertools
import json
import threading
import weakref
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import Field
from rhwp_core.document import Document, DocumentSummary, Scope
from rhwp_core.navigation import Heading
from typing_extensions import NotRequired, TypedDict

import rhwp_core
from rhwp_mcp_host import (
    FilePath,
    MaxChars,
    Offset,
    Pages,
    Register,
    ToolFailure,
    caller_source,
    checkpoint,
    current_max_chars,
    current_password,
    format_call,
    hookimpl,
    next_call_of,
    page_list,
    page_text,
    phase,
)

from .parts import size as json_size
from .parts import split_block

# rhwp_core.ir.BlockKind, spelled out: the schema is built when the server starts, and the IR's
# models take a third of a second to build (tests/test_e2e_tools.py holds the two equal).
BlockKind = Literal["paragraph", "table", "picture", "equation", "shape", "form_control", "unknown"]
MAX_OUTLINE = 200


class Summary(DocumentSummary):
    path: str
    outline: list[Heading]
    outline_truncated: bool


class BlocksPage(TypedDict):
    blocks: list[dict[str, Any]]
    total: int
    next_offset: int | None
    part: NotRequired[int]
    """When one block is too large for a response: which part of it this is (1-based)."""
    parts: NotRequired[int]
    next: NotRequired[str]
    """The exact next call while parts remain."""


class IrDocument(TypedDict):
    schema_version: str
    format: str
    version: str
    compressed: bool
    distribution: bool
    metadata: dict[str, Any]
    styles: list[dict[str, Any]]
    bin_data: list[dict[str, Any]]
    sections: list[dict[str, Any]]
    furniture: list[dict[str, Any]]
    pages: int | None
    warnings: list[str]
    section_range: NotRequired[list[int]]


def _load(path: str) -> Document:
    # The password the caller gave (the host takes it out of the arguments), if any.
    return rhwp_core.load(path, password=current_password())


def parse_hwp_summary(path: FilePath) -> Summary:
    """Summarise an HWP (.hwp) or HWPX (.hwpx) document: format, title, author, created/modified dates,
    page count (as last laid out by the authoring program), counts of sections, paragraphs, tables,
    pictures, equations, headers/footers and notes, warnings about anything skipped while reading, and
    the outline: the headings in order, each with its level, text, page, `block` (its iter_blocks
    offset), `text_offset` and `markdown_offset` (where extract_text / to_markdown with default
    arguments reach it: pass them as `offset` to start reading at that chapter).

    Call this first to decide how to read a document: a few thousand characters → extract_text or
    to_markdown in one call; a long report → its outline, then the chapter or the pages you need
    (`pages="12-14"` on the text, view, block and chunk tools), or iter_blocks / chunks. A long outline
    keeps its upper levels (outline_truncated says so).
    """
    phase(0, 3, "reading the document")
    doc = _load(path)
    phase(1, 3, "summarising")
    outlined = _outlined(doc)
    summary: dict[str, Any] = json.loads(outlined.summary_json)
    summary["path"] = caller_source(path)
    phase(2, 3, "placing the outline")
    headings, sizes = outlined.headings, outlined.sizes
    budget = current_max_chars() - json_size(summary) - 200
    kept = list(range(len(headings)))
    if len(headings) > MAX_OUTLINE or _list_size(sizes) > budget:
        kept = _outline_that_fits(headings, sizes, budget)
    summary["outline"] = [headings[i] for i in kept]
    summary["outline_truncated"] = len(kept) < len(headings)
    return summary  # type: ignore[return-value]


@dataclass(frozen=True)
class _Outlined:
    """What parse_hwp_summary needs of a document whatever the call: worked out on its first
    summary and kept while the document is (rhwp_core.load keeps it while the file is unchanged)."""

    summary_json: str
    """The summary as JSON: each call reads its own copy (and adds its path)."""
    headings: list[Heading]
    sizes: list[int]
    """Each heading's size as compact JSON (what fitting the outline into the cap counts)."""


_outlined_documents: weakref.WeakKeyDictionary[Document, _Outlined] = weakref.WeakKeyDictionary()
_outlined_lock = threading.Lock()


def _outlined(doc: Document) -> _Outlined:
    with _outlined_lock:
        found = _outlined_documents.get(doc)
    if found is None:
        headings = doc.outline()
        found = _Outlined(json.dumps(doc.summary()), headings, [json_size(h.to_dict()) for h in headings])
        with _outlined_lock:
            _outlined_documents[doc] = found
    return found


def _list_size(sizes: list[int]) -> int:
    """The size of the compact JSON list of entries of these sizes: brackets, entries, commas."""
    return 2 + sum(sizes) + max(len(sizes) - 1, 0)


def _outline_that_fits(headings: list[Heading], sizes: list[int], budget: int) -> list[int]:
    """Which headings to keep so their JSON list stays within ``budget`` characters and
    MAX_OUTLINE entries: the deepest levels go first (chapters before sub-sections), then the
    longest prefix that fits."""
    levels = sorted({h.level for h in headings})

    def too_big(kept: list[int]) -> bool:
        return len(kept) > MAX_OUTLINE or _list_size([sizes[i] for i in kept]) > budget

    kept = list(range(len(headings)))
    while len(levels) > 1 and too_big(kept):
        levels.pop()
        kept = [i for i in kept if headings[i].level in levels]
    if too_big(kept):
        # The longest prefix that fits, its size kept as it grows (one pass, not one sum per entry).
        fitting: list[int] = []
        used = 2
        for i in kept:
            grown = used + sizes[i] + (1 if fitting else 0)
            if len(fitting) + 1 > MAX_OUTLINE or grown > budget:
                break
            fitting.append(i)
            used = grown
        kept = fitting
    return kept


def extract_text(
    path: FilePath,
    include_furniture: Annotated[
        bool, Field(description="Append page headers/footers (each distinct one once) and foot/endnotes.")
    ] = True,
    offset: Offset = 0,
    max_chars: MaxChars = None,
    pages: Pages = None,
) -> str:
    """All the text of an HWP/HWPX document as plain text, one paragraph per line: the body in reading
    order (table cells, text boxes, captions and equations as $LaTeX$ included), then page headers/footers
    and foot/endnotes (include_furniture=False gives the body alone). `pages` keeps what lies on
    those pages; `offset` may be an outline entry's text_offset (see parse_hwp_summary).

    Output is as long as the document (a 200-page report is several hundred thousand characters).
    Long texts come in pages: a cut page ends with a line `[cut at N of TOTAL characters; next: ...]`
    giving the exact call for the next page. Prefer to_markdown when structure (headings, tables)
    matters, chunks for retrieval.
    """
    phase(0, 3, "reading the document")
    doc = _load(path)
    phase(1, 3, "extracting the text")
    text = doc.extract_text(include_furniture=include_furniture, pages=pages)
    phase(2, 3, "cutting the page")

    next_call = next_call_of(
        extract_text, path=path, include_furniture=include_furniture, pages=pages, max_chars=max_chars
    )
    return page_text(text, offset, max_chars, next_call=next_call)


def get_ir(
    path: FilePath,
    first_section: Annotated[int, Field(ge=0, description="First section to include (0-based).")] = 0,
    last_section: Annotated[
        int | None, Field(ge=0, description="Last section to include (inclusive); default: the last one.")
    ] = None,
) -> IrDocument:
    """The document's full structure as JSON (the HwpDocument IR, schema_version inside): metadata,
    styles, bin data, sections with their blocks (paragraphs with formatted runs, heading levels and
    list markers; tables with cells, spans and nested blocks; pictures; equations; shapes), and the
    furniture (headers, footers, footnotes, endnotes); every block carries its provenance (section,
    paragraph, character offsets, page).

    Large: roughly 3-10x the size of the text. A document too big for one response is refused with
    error too_large; ask for a section range (first_section/last_section), or use iter_blocks,
    which pages blocks.
    """
    phase(0, 3, "reading the document")
    doc = _load(path)
    phase(1, 3, "building the IR")
    raw = doc.to_json()
    cap = current_max_chars()
    sections = doc.summary()["sections"]
    last = sections - 1 if last_section is None else last_section
    if first_section > last or first_section >= sections:
        raise ToolFailure(
            "invalid_input",
            f"section range {first_section}..{last} is empty: the document has {sections} section(s)",
            f"use first_section between 0 and {sections - 1}",
        )
    whole = (first_section, last) == (0, sections - 1)
    # The whole document's JSON is already known: refuse before decoding it.
    if whole and len(raw) > cap:
        raise _too_large(path, doc, len(raw), cap, first_section)
    phase(2, 3, "decoding the IR")
    ir: dict[str, Any] = json.loads(raw)
    if not whole:
        wanted = range(first_section, last + 1)
        ir["sections"] = [s for s in ir["sections"] if s["index"] in wanted]
        ir["furniture"] = [f for f in ir["furniture"] if f["provenance"]["section"] in wanted]
        ir["section_range"] = [first_section, min(last, sections - 1)]
        size = json_size(ir)
        if size > cap:
            raise _too_large(path, doc, size, cap, first_section)
    checkpoint()  # before the server turns megabytes of IR into the response
    return ir  # type: ignore[return-value]


def _too_large(path: str, doc: Document, size: int, cap: int, first_section: int) -> ToolFailure:
    """too_large naming a call that succeeds: the longest run of sections from first_section that
    fits, or iter_blocks (which cuts even one huge block into parts) when one section alone does not."""
    ir = json.loads(doc.to_json())
    shell = {k: v for k, v in ir.items() if k not in ("sections", "furniture")}
    used = json_size(shell) + len('"sections":[],"furniture":[],"section_range":[0,0]') + 20
    last = None
    for section in ir["sections"][first_section:]:
        index = section["index"]
        notes = [f for f in ir["furniture"] if f["provenance"]["section"] == index]
        used += json_size(section) + json_size(notes) + 2
        if used > cap:
            break
        last = index
    if last is not None:
        hint = format_call("get_ir", path=path, first_section=first_section, last_section=last)
        suggestion = f"ask for fewer sections: {hint}; or page the blocks with iter_blocks"
    else:
        hint = format_call("iter_blocks", path=path, offset=0)
        suggestion = f"section {first_section} alone is too large; page its blocks instead: {hint}"
    return ToolFailure(
        "too_large", f"the IR asked for is {size} characters, more than the response cap of {cap}", suggestion
    )


def iter_blocks(
    path: FilePath,
    kind: Annotated[
        BlockKind | None,
        Field(description="Only blocks of this kind, at any depth (tables in cells too); default: top-level blocks."),
    ] = None,
    scope: Annotated[
        Scope, Field(description="body (the running text), furniture (headers, footers, notes), or all.")
    ] = "body",
    offset: Offset = 0,
    limit: Annotated[int, Field(ge=1, le=1000, description="At most this many blocks.")] = 50,
    pages: Pages = None,
    part: Annotated[
        int | None, Field(ge=1, description="For a block too large for one response: which of its parts (1-based).")
    ] = None,
) -> BlocksPage:
    """The document's blocks in reading order, one page at a time: {blocks, total, next_offset}.

    Each block is a JSON object with `kind` (paragraph, table, picture, equation, shape,
    form_control, unknown), its content (paragraph text, runs and fields; table cells with spans,
    field names and nested blocks; picture bin-data name and size; equation script and its LaTeX; a form
    control's name, caption, value and checked state) and provenance (section, paragraph, page). Use kind="table" to
    get just the tables, scope="furniture" for headers/footers/notes, pages="3-5" for what lies on
    those pages; an outline entry's `block` (parse_hwp_summary) is the offset of its heading.
    Pages are cut to stay under the response cap; next_offset (null on the last page) is the offset
    of the next call. A single block too large for a response comes in parts (a table by rows, each
    part repeating the header row; a paragraph by characters): the page then says part, parts and
    the exact next call.
    """
    phase(0, 3, "reading the document")
    doc = _load(path)
    phase(1, 3, "listing the blocks")
    blocks = list(doc.iter_blocks(kind=kind, scope=scope, pages=pages))
    phase(2, 3, "cutting the page")

    next_call = next_call_of(iter_blocks, path=path, kind=kind, scope=scope, pages=pages, limit=limit)

    page = page_list(
        blocks,
        offset,
        limit,
        key="blocks",
        part=part,
        split=lambda _block, room: _parts(doc, kind, scope, pages, offset, room),
        next_call=next_call,
    )
    page["blocks"] = [b if isinstance(b, dict) else b.model_dump(mode="json") for b in page["blocks"]]
    return page  # type: ignore[return-value]


# Keyed on the Document (the same object while the file is unchanged): walking a 300-part table
# cuts it once, not once per part.
@functools.lru_cache(maxsize=8)
def _parts(
    doc: Document, kind: str | None, scope: str, pages: str | None, index: int, room: int
) -> list[dict[str, Any]]:
    block = next(itertools.islice(doc.iter_blocks(kind=kind, scope=scope, pages=pages), index, None))  # type: ignore[arg-type]
    return split_block(block.model_dump(mode="json"), room)


@hookimpl
def rhwp_mcp_register_tools(register: Register) -> None:
    register(parse_hwp_summary, title="Summarise an HWP/HWPX document")
    register(extract_text, title="Extract the text of an HWP/HWPX document")
    register(get_ir, title="Get the structure (IR) of an HWP/HWPX document")
    register(iter_blocks, title="List the blocks of an HWP/HWPX document")
