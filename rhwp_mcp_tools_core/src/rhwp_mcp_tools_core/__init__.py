"""Tool pack ``core``: what an agent asks first of an HWP/HWPX document.

parse_hwp_summary (what is it), extract_text (all of its words), get_ir (its structure as
JSON) and iter_blocks (its paragraphs, tables, pictures... one page at a time). Every tool
reads through ``rhwp_core.load``, so a second call on an unchanged file does not parse again.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field

from rhwp_mcp_host import (
    FilePath,
    ToolFailure,
    caller_source,
    current_max_chars,
    format_call,
    hookimpl,
    page_list,
    page_text,
)

if TYPE_CHECKING:
    from rhwp_core import Document

BlockKind = Literal["paragraph", "table", "picture", "equation", "shape", "unknown"]
Scope = Literal["body", "furniture", "all"]
Offset = Annotated[int, Field(ge=0, description="Where to start: 0, or the offset a previous page named.")]
MaxChars = Annotated[
    int | None,
    Field(ge=1, description="At most this many characters (lowered to the server's cap; default: the cap)."),
]


def _load(path: str) -> Document:
    # Imported on first use: the server lists tools without loading the reader.
    import rhwp_core

    return rhwp_core.load(path)


def parse_hwp_summary(path: FilePath) -> dict[str, Any]:
    """Summarise an HWP (.hwp) or HWPX (.hwpx) document: format, title, author, created/modified dates,
    page count (as last laid out by the authoring program), and counts of sections, paragraphs, tables,
    pictures, equations, headers/footers and notes, plus warnings about anything skipped while reading.

    Small output (under 1,000 characters). Call this first to decide how to read a document: a few
    thousand characters → extract_text or to_markdown in one call; a long report → page through
    extract_text, or use iter_blocks / chunks.
    """
    summary = _load(path).summary()
    summary["path"] = caller_source(path)
    return summary


def extract_text(
    path: FilePath,
    include_furniture: Annotated[
        bool, Field(description="Append page headers/footers (each distinct one once) and foot/endnotes.")
    ] = True,
    offset: Offset = 0,
    max_chars: MaxChars = None,
) -> str:
    """All the text of an HWP/HWPX document as plain text, one paragraph per line: the body in reading
    order (table cells, text boxes, captions and equation scripts included), then page headers/footers
    and foot/endnotes (include_furniture=False gives the body alone).

    Output is as long as the document (a 200-page report is several hundred thousand characters).
    Long texts come in pages: a cut page ends with a line `[cut at N of TOTAL characters; next: ...]`
    giving the exact call for the next page. Prefer to_markdown when structure (headings, tables)
    matters, chunks for retrieval.
    """
    text = _load(path).extract_text(include_furniture=include_furniture)

    def next_call(next_offset: int) -> str:
        extra: dict[str, Any] = {} if include_furniture else {"include_furniture": False}
        return format_call("extract_text", path=path, **extra, offset=next_offset)

    return page_text(text, offset, max_chars, next_call=next_call)


def get_ir(
    path: FilePath,
    first_section: Annotated[int, Field(ge=0, description="First section to include (0-based).")] = 0,
    last_section: Annotated[
        int | None, Field(ge=0, description="Last section to include (inclusive); default: the last one.")
    ] = None,
) -> dict[str, Any]:
    """The document's full structure as JSON (the HwpDocument IR, schema_version inside): metadata,
    styles, bin data, sections with their blocks (paragraphs with formatted runs, heading levels and
    list markers; tables with cells, spans and nested blocks; pictures; equations; shapes), and the
    furniture (headers, footers, footnotes, endnotes); every block carries its provenance (section,
    paragraph, character offsets, page).

    Large: roughly 3-10x the size of the text. A document too big for one response is refused with
    error too_large; ask for a section range (first_section/last_section), or use iter_blocks,
    which pages blocks.
    """
    doc = _load(path)
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
        raise _too_large(path, len(raw), cap, sections, first_section)
    ir: dict[str, Any] = json.loads(raw)
    if not whole:
        wanted = range(first_section, last + 1)
        ir["sections"] = [s for s in ir["sections"] if s["index"] in wanted]
        ir["furniture"] = [f for f in ir["furniture"] if f["provenance"]["section"] in wanted]
        ir["section_range"] = [first_section, min(last, sections - 1)]
        size = len(json.dumps(ir, ensure_ascii=False, separators=(",", ":")))
        if size > cap:
            raise _too_large(path, size, cap, len(ir["sections"]), first_section)
    return ir


def _too_large(path: str, size: int, cap: int, sections: int, first_section: int) -> ToolFailure:
    if sections > 1:
        hint = format_call("get_ir", path=path, first_section=first_section, last_section=first_section)
        suggestion = f"ask for fewer sections, e.g. {hint}, or page the blocks with iter_blocks"
    else:
        hint = format_call("iter_blocks", path=path, offset=0)
        suggestion = f"page the blocks instead: {hint} (or to_markdown for a readable view)"
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
) -> dict[str, Any]:
    """The document's blocks in reading order, one page at a time: {blocks, total, next_offset}.

    Each block is a JSON object with `kind` (paragraph, table, picture, equation, shape, unknown),
    its content (paragraph text and runs; table cells with spans and nested blocks; picture bin-data
    name and size; equation script) and provenance (section, paragraph, page). Use kind="table" to
    get just the tables, scope="furniture" for headers/footers/notes. Pages are cut to stay under the
    response cap; next_offset (null on the last page) is the offset of the next call.
    """
    doc = _load(path)
    blocks = list(doc.iter_blocks(kind=kind, scope=scope))
    page = page_list(blocks, offset, limit, key="blocks")
    page["blocks"] = [b.model_dump(mode="json") for b in page["blocks"]]
    return page


@hookimpl
def rhwp_mcp_register_tools(register: Any) -> None:
    register(parse_hwp_summary, title="Summarise an HWP/HWPX document")
    register(extract_text, title="Extract the text of an HWP/HWPX document")
    register(get_ir, title="Get the structure (IR) of an HWP/HWPX document")
    register(iter_blocks, title="List the blocks of an HWP/HWPX document")
