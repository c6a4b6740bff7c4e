"""The document IR: frozen Pydantic v2 models mirroring ``rhwp_core/reader/src/model.rs``.

The native reader builds these models directly from its model (``Document.to_ir``, see
``rhwp_core/src/ir_objects.rs``): the same objects ``HwpDocument.model_validate_json`` makes of
its JSON (``Document.to_json``), without the JSON and the validation. ``model.rs`` is the
source: field names, order, nesting and the ``kind`` tag of blocks are its serde JSON shape, and
these models add only what Python needs (descriptions, defaults for hand-built documents,
forward compatibility). Two checks make a difference fail a test: ``rhwp_core/tests/test_ir.py``
holds the JSON Schema exported from these models (``rhwp_core/schema``) equal to ``model.rs``
field by field (names, order, required, the type serde writes, nullable exactly for an
``Option``, integer widths, enum values), and ``tests/test_ir_native.py`` holds, on every
fixture and corpus document, the native build equal to the validated one and its JSON equal to
``to_json`` byte for byte.

Lengths are HWPUNIT (1/7200 inch). Character offsets count Python string indices into the
paragraph's ``text``.

Forward compatibility: fields this version does not know are ignored, and a block whose
``kind`` this version does not know (written by a newer reader) is read as an ``Unknown``
block whose ``object`` is that kind, so older consumers keep working on newer IR.
"""

from __future__ import annotations

import builtins
import json
from collections.abc import Iterable, Iterator
from itertools import chain
from operator import attrgetter
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError
from pydantic.json_schema import SkipJsonSchema

__all__ = [
    "BLOCK_KINDS",
    "SCHEMA_VERSION",
    "BinData",
    "Block",
    "BlockKind",
    "Equation",
    "FieldRange",
    "FormControl",
    "Furniture",
    "HwpDocument",
    "ListMarker",
    "Metadata",
    "NoteRef",
    "PageDefinition",
    "Paragraph",
    "Picture",
    "Provenance",
    "Run",
    "Section",
    "Shape",
    "Style",
    "Table",
    "TableCell",
    "TrackedChange",
    "Unknown",
    "child_blocks",
    "document_json_schema",
    "iter_blocks",
]

#: The schema version this module reads and writes (``model.rs``'s ``SCHEMA_VERSION``).
SCHEMA_VERSION = "1.2"

BlockKind = Literal["paragraph", "table", "picture", "equation", "shape", "form_control", "unknown"]
BLOCK_KINDS: tuple[str, ...] = ("paragraph", "table", "picture", "equation", "shape", "form_control", "unknown")

U32 = Annotated[int, Field(ge=0, le=0xFFFF_FFFF)]
U8 = Annotated[int, Field(ge=0, le=0xFF)]


class _Model(BaseModel):
    # Frozen: a parsed document is shared between threads and cached. Unknown fields are ignored so
    # that IR from a newer reader still validates. In the serialization-mode JSON Schema every field
    # is required, because the reader always writes every field (the defaults are for hand-built IR).
    model_config = ConfigDict(frozen=True, extra="ignore", json_schema_serialization_defaults_required=True)


class Metadata(_Model):
    """Document summary properties as stored by the authoring program."""

    title: str | None = None
    subject: str | None = None
    author: str | None = None
    keywords: str | None = None
    comments: str | None = None
    last_saved_by: str | None = None
    created: str | None = Field(default=None, description="ISO 8601 (UTC when the file says so), as stored.")
    modified: str | None = Field(default=None, description="ISO 8601 (UTC when the file says so), as stored.")


class BinData(_Model):
    """An entry of the document's binary-data table (pictures, OLE objects)."""

    id: U32 = Field(description="The id controls refer to (HWP: 1-based DocInfo index; HWPX: the item id's number).")
    storage: str = Field(description="`embedding`, `link` or `storage` (HWP); `embedding` for HWPX package items.")
    name: str = Field(description="File name inside the package (`BIN0001.png`, `BinData/image1.png`) or linked path.")
    extension: str | None = Field(
        default=None, description="Lower-case extension without the dot (`png`, `jpg`, `ole`)."
    )
    size: int | None = Field(
        default=None, ge=0, description="Stored (possibly compressed) size in bytes, when it exists."
    )


class Style(_Model):
    """A named paragraph or character style."""

    id: U32
    name: str
    english_name: str | None = None
    kind: str = Field(description="`paragraph` or `character`.")


class Provenance(_Model):
    """Where a block comes from. Offsets count Unicode scalar values (Python string indices) in `text`."""

    section: U32 = Field(default=0, description="0-based section index.")
    paragraph: U32 = Field(
        default=0, description="0-based index of the section-level paragraph the block is in or anchored to."
    )
    char_start: U32 = 0
    char_end: U32 = 0
    page: U32 | None = Field(
        default=None, description="1-based page as last laid out by the authoring program; null without layout data."
    )


class Run(_Model):
    """A stretch of paragraph text with one character formatting."""

    text: str
    bold: bool = False
    italic: bool = False
    underline: bool = False
    strike: bool = False
    superscript: bool = False
    subscript: bool = False
    link: str | None = Field(default=None, description="Hyperlink target when the run lies inside a hyperlink field.")
    change: TrackedChange | None = Field(
        default=None,
        description="Set when the run is a tracked change. A deleted run's text is not in its paragraph's "
        "`text` (the text is the final view); every other run's is.",
    )


class TrackedChange(_Model):
    """A tracked change (변경 내용 추적): who inserted or deleted a run's text, and when."""

    kind: str = Field(description="`inserted` or `deleted`.")
    author: str | None = None
    time: str | None = Field(default=None, description="As stored; null when absent.")


class FieldRange(_Model):
    """A field (필드): a stretch of a paragraph's text the document marks as one thing.

    Click-here fields (누름틀) to fill in, dates, cross-references, mail-merge slots, formulas,
    bookmarks. Hyperlinks are runs' ``link``, not fields.
    """

    kind: str = Field(
        description="`click_here`, `date`, `page_number`, `cross_reference`, `mail_merge`, `formula`, "
        "`bookmark`, `table_of_contents`, `summary`, `user_info`, `file_path` or `other`."
    )
    name: str | None = None
    guide: str | None = Field(default=None, description="The instruction an empty click-here field shows.")
    editable: bool = Field(default=False, description="Whether a form-mode reader may fill it in.")
    value: str = Field(default="", description="What the document holds between the field's start and end.")
    start: U32 = Field(
        default=0,
        description="First character of the paragraph's `text` the field spans (its value, or the guide "
        "shown in place of an empty click-here field).",
    )
    end: U32 = Field(default=0, description="One past the field's last character in the paragraph's `text`.")
    continued: bool = Field(
        default=False,
        description="The field began in an earlier paragraph: a field over several paragraphs is listed in each, "
        "over the part that paragraph holds (`value` is that part); set in all but the first.",
    )


class ListMarker(_Model):
    """The list item marker of a numbered or bulleted paragraph."""

    kind: str = Field(description="`bullet` or `number`.")
    level: U8 = Field(description="1-based nesting level.")
    marker: str = Field(description="The marker as the document shows it (`•`, `1.`, `가)`), best effort.")


class NoteRef(_Model):
    """A reference from body text to a footnote or endnote."""

    kind: str = Field(description="`footnote` or `endnote`.")
    number: U32 = Field(description="The note's number as shown.")
    offset: U32 = Field(description="Character offset in the paragraph text where the reference mark sits.")


class Paragraph(_Model):
    """A paragraph: its plain text, formatted runs, heading level, list marker and note references."""

    kind: Literal["paragraph"] = "paragraph"
    text: str = Field(
        description="The text as 한글 shows it: Hancom's private-use characters (its symbol area, symbol "
        "fonts, Hanyang old Hangul) as the characters drawn for them."
    )
    stored_text: str | None = Field(
        default=None,
        description="The text as the file stores it, only where it differs from `text` (a private-use "
        "character shown otherwise). Offsets count in `text`.",
    )
    # `builtins.list`: the field named `list` below shadows the builtin inside this class body.
    runs: builtins.list[Run] = Field(
        default_factory=builtins.list,
        description="The text cut where formatting or links change. Empty when nothing in the paragraph is "
        "formatted or linked: the text is then one plain run.",
    )
    style: str | None = None
    heading_level: U8 | None = Field(
        default=None, description="1..=6 when the paragraph is an outline/heading paragraph."
    )
    list: ListMarker | None = None
    note_refs: builtins.list[NoteRef] = Field(default_factory=builtins.list)
    break_before: str | None = Field(
        default=None, description="`page` or `column` when the paragraph starts with a break."
    )
    fields: builtins.list[FieldRange] = Field(
        default_factory=builtins.list, description="Fields whose value lies in this paragraph, in text order."
    )
    provenance: Provenance = Field(default_factory=Provenance)


class TableCell(_Model):
    """A table cell: its top-left grid address, spans and content."""

    row: U32 = Field(description="0-based row of the cell's top-left grid position.")
    col: U32 = Field(description="0-based column of the cell's top-left grid position.")
    row_span: U32 = 1
    col_span: U32 = 1
    header: bool = False
    field_name: str | None = Field(default=None, description="The cell's field name, by which forms address it.")
    blocks: list[Block] = Field(default_factory=list)


class Table(_Model):
    """A table: its grid size and cells (in reading order: row, then column)."""

    kind: Literal["table"] = "table"
    rows: U32
    cols: U32
    cells: list[TableCell] = Field(default_factory=list)
    caption: list[Block] = Field(default_factory=list)
    provenance: Provenance = Field(default_factory=Provenance)


class Picture(_Model):
    """A picture: its bin-data reference and size."""

    kind: Literal["picture"] = "picture"
    bin_data_id: U32 | None = None
    bin_data_name: str | None = Field(default=None, description="The bin data's name (`BIN0001.png`), resolved.")
    width: U32 = 0
    height: U32 = 0
    description: str | None = None
    caption: list[Block] = Field(default_factory=list)
    provenance: Provenance = Field(default_factory=Provenance)


class Equation(_Model):
    """An equation: 한글's equation script as stored, and the same as LaTeX when it translates."""

    kind: Literal["equation"] = "equation"
    script: str
    latex: str | None = Field(
        default=None,
        description=(
            "The script as LaTeX (KaTeX reads it); null when it does not translate: unbalanced braces or quotes, "
            "an operator missing its operand, a construct LaTeX has no counterpart for."
        ),
    )
    caption: list[Block] = Field(default_factory=list)
    provenance: Provenance = Field(default_factory=Provenance)

    @property
    def shown(self) -> str:
        """The equation as the text shows it (``Equation::shown`` in model.rs): ``$LaTeX$``, or
        the script as it is when it does not translate."""
        return f"${self.latex}$" if self.latex is not None else self.script.strip()


class Shape(_Model):
    """A drawing object that carries text: a text box, a shape with text, or a group of such objects."""

    kind: Literal["shape"] = "shape"
    shape_kind: str = Field(description="`rectangle`, `ellipse`, `polygon`, `line`, `arc`, `curve`, `container`, ...")
    blocks: list[Block] = Field(default_factory=list)
    caption: list[Block] = Field(default_factory=list)
    provenance: Provenance = Field(default_factory=Provenance)


class FormControl(_Model):
    """A form control (양식 개체): a checkbox, radio button, combo/list/edit box or button."""

    kind: Literal["form_control"] = "form_control"
    control: str = Field(description="`checkbox`, `radio`, `combo_box`, `list_box`, `edit`, `button` or `scroll_bar`.")
    name: str | None = None
    caption: str | None = None
    value: str | None = Field(default=None, description="An edit or combo box's text, a list box's selection.")
    checked: bool | None = Field(default=None, description="Ticked (checkbox, radio button); null for other controls.")
    options: list[str] = Field(default_factory=list, description="A combo or list box's choices, where stored.")
    group: str | None = Field(default=None, description="A radio button's group.")
    provenance: Provenance = Field(default_factory=Provenance)

    @property
    def shown(self) -> str:
        """What the page shows, as every view writes it (``FormControl::shown`` in model.rs): a
        checkbox as ☑/☐ and a radio button as ◉/○ before the caption, a button as ``[caption]``,
        other controls as their value."""
        caption = (self.caption or "").strip()
        if self.control in ("checkbox", "radio"):
            on = self.checked is True
            mark = ("☑" if on else "☐") if self.control == "checkbox" else ("◉" if on else "○")
            return f"{mark} {caption}" if caption else mark
        if self.control == "button" and caption:
            return f"[{caption}]"
        return (self.value or "").strip()


class Unknown(_Model):
    """An object the reader recognised but does not model further (OLE, chart, video, form, ...).

    A block of a kind this version does not know (from a newer reader) is read as one of these,
    with ``object`` set to that kind.
    """

    kind: Literal["unknown"] = "unknown"
    object: str = Field(description="The control id (`gso `, `ole`, `chart`, `form`, ...) or element name.")
    bin_data_id: U32 | None = None
    text: str | None = Field(default=None, description="Any text the object carries (e.g. a form control's caption).")
    provenance: Provenance = Field(default_factory=Provenance)


def _read_future_block(value: Any) -> Any:
    """Read a block of a kind this version does not know as an ``Unknown`` block (forward compatibility).

    Only reached when the tagged union has rejected the block; a block of a known kind that is
    invalid stays an error (it is not silently turned into an ``Unknown``).
    """
    kind = value.get("kind") if isinstance(value, dict) else None
    if not isinstance(value, dict) or kind in BLOCK_KINDS:
        raise ValueError("not a block of a newer kind")
    text = value.get("text")
    provenance = value.get("provenance")
    return {
        "kind": "unknown",
        "object": kind if isinstance(kind, str) else "unknown",
        "text": text if isinstance(text, str) else None,
        "provenance": provenance if isinstance(provenance, dict) else {},
    }


# The tagged union first (pydantic-core validates it without calling Python); only a block it
# rejects is tried as a block of a newer kind. That fallback is left out of the JSON Schema.
_TaggedBlock = Annotated[
    Union[Paragraph, Table, Picture, Equation, Shape, FormControl, Unknown],  # noqa: UP007 -- a runtime type expression
    Field(discriminator="kind"),
]
Block = Annotated[
    Union[_TaggedBlock, SkipJsonSchema[Annotated[Unknown, BeforeValidator(_read_future_block)]]],  # noqa: UP007
    Field(union_mode="left_to_right"),
]
"""A body or furniture block, tagged by ``kind``."""


class Furniture(_Model):
    """Page headers/footers, foot/endnotes and memos: what is not the running body."""

    kind: str = Field(
        description="`header`, `footer`, `footnote`, `endnote` or `memo` (a reviewer's note on a stretch of "
        "the text, never part of that text)."
    )
    applies_to: str | None = Field(
        default=None, description="`both`, `even` or `odd` for headers/footers; null for notes."
    )
    number: U32 | None = Field(default=None, description="The note number (notes only).")
    author: str | None = Field(default=None, description="A memo's author, when stored.")
    date: str | None = Field(default=None, description="A memo's date, when stored.")
    anchor_text: str | None = Field(default=None, description="The text a memo is attached to.")
    blocks: list[Block] = Field(default_factory=list)
    provenance: Provenance = Field(default_factory=Provenance)


class PageDefinition(_Model):
    """Paper size, orientation and margins of a section (HWPUNIT)."""

    width: U32 = 0
    height: U32 = 0
    landscape: bool = False
    margin_left: U32 = 0
    margin_right: U32 = 0
    margin_top: U32 = 0
    margin_bottom: U32 = 0


class Section(_Model):
    """A body section and its blocks in reading order."""

    index: U32 = 0
    page: PageDefinition | None = None
    columns: U32 = Field(default=1, description="Number of text columns the section starts with.")
    paragraph_count: U32 = Field(
        default=0, description="Section-level paragraphs, including empty ones (which carry no block)."
    )
    blocks: list[Block] = Field(default_factory=list)


class HwpDocument(_Model):
    """A whole HWP 5.0, HWPX or HWP 3.x document: metadata, body sections and furniture."""

    schema_version: str = Field(default=SCHEMA_VERSION, description="Version of this JSON shape.")
    format: Literal["hwp", "hwpx", "hwp3", "hwpml"]
    version: str = Field(
        default="", description="`5.0.3.4` for HWP; the package's version for HWPX; `3.0.0.1` for HWP 3.x."
    )
    compressed: bool = False
    distribution: bool = False
    metadata: Metadata = Field(default_factory=Metadata)
    styles: list[Style] = Field(default_factory=list)
    bin_data: list[BinData] = Field(default_factory=list)
    sections: list[Section] = Field(default_factory=list)
    furniture: list[Furniture] = Field(default_factory=list)
    pages: U32 | None = Field(default=None, description="Page count as last laid out by the authoring program.")
    warnings: list[str] = Field(default_factory=list, description="What lenient reading skipped or repaired.")

    @classmethod
    def model_validate_json(cls, json_data: str | bytes | bytearray, **kwargs: Any) -> HwpDocument:
        """Validate the reader's JSON, however deeply its tables and boxes nest.

        pydantic-core's JSON parser stops at 200 levels of JSON nesting, which is about 49
        tables nested in cells (each costs four levels); the reader allows deeper documents
        (``Limits.max_depth``). Those are parsed with the standard library and validated as
        Python objects instead.
        """
        try:
            return super().model_validate_json(json_data, **kwargs)
        except ValidationError as error:
            if not any(e["type"] == "json_invalid" and "recursion" in e["msg"] for e in error.errors()):
                raise
        return cls.model_validate(json.loads(json_data), **kwargs)


for _model in (Run, Paragraph, TableCell, Table, Picture, Equation, Shape, Furniture, Section, HwpDocument):
    _model.model_rebuild()


#: The IR class of each ``model.rs`` struct, by the struct's name: what the native reader needs to
#: build the IR objects directly (``Document.to_ir``), without JSON and without validation.
MODEL_CLASSES: dict[str, type[BaseModel]] = {
    "Document": HwpDocument,
    # ``model.rs``'s ``Field`` (the name pydantic's ``Field`` already has here).
    "Field": FieldRange,
    **{
        model.__name__: model
        for model in (
            Metadata,
            BinData,
            Style,
            Provenance,
            Run,
            TrackedChange,
            ListMarker,
            NoteRef,
            Paragraph,
            TableCell,
            Table,
            Picture,
            Equation,
            Shape,
            FormControl,
            Unknown,
            Furniture,
            PageDefinition,
            Section,
        )
    },
}


def document_json_schema() -> dict[str, Any]:
    """The JSON Schema of the IR as ``get_ir`` returns it (checked in as ``schema/hwp_document.schema.json``)."""
    schema = HwpDocument.model_json_schema(mode="serialization")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema


def child_blocks(block: Block) -> Iterator[Block]:
    """The blocks nested directly in ``block``, in reading order (as ``extract_text`` reads them)."""
    yield from _nested_blocks(block)


_cell_blocks = attrgetter("blocks")


def _nested_blocks(block: Block) -> Iterator[Block]:
    # Iterators chained in C: a walk through a table of thousands of cells resumes no Python frame per cell.
    if isinstance(block, Table):
        return chain(block.caption, chain.from_iterable(map(_cell_blocks, block.cells)))
    if isinstance(block, Shape):
        return chain(block.blocks, block.caption)
    if isinstance(block, (Picture, Equation)):
        return iter(block.caption)
    return iter(())


def _walk(blocks: Iterable[Block], kind: str) -> Iterator[Block]:
    """The blocks of ``kind`` among ``blocks`` and all they nest, in reading order."""
    # An explicit stack instead of recursion: nesting depth comes from the file. Paragraphs and
    # unknown objects (most blocks) hold no blocks: no child iterator is made for them.
    stack: list[Iterator[Block]] = [iter(blocks)]
    while stack:
        for block in stack[-1]:
            if block.kind == kind:
                yield block
            if not isinstance(block, (Paragraph, Unknown)):
                stack.append(_nested_blocks(block))
                break
        else:
            stack.pop()


def iter_blocks(doc: HwpDocument, kind: str | None = None, scope: str = "body") -> Iterator[Block]:
    """Blocks of ``doc`` in reading order.

    ``scope``: ``body`` (the sections), ``furniture`` (headers, footers, foot/endnotes, in the
    document's order) or ``all`` (body, then furniture). ``kind=None`` yields the top-level
    blocks; with ``kind`` set, every block of that kind at any depth (a table in a cell, a
    paragraph in a text box), in reading order.
    """
    if scope not in ("body", "furniture", "all"):
        raise ValueError(f"scope must be 'body', 'furniture' or 'all', not {scope!r}")
    if kind is not None and kind not in BLOCK_KINDS:
        raise ValueError(f"kind must be one of {', '.join(BLOCK_KINDS)}, not {kind!r}")

    if kind is None:
        return (block for blocks in _top_level_lists(doc, scope) for block in blocks)
    # (Chained in C: no Python frame is resumed per top-level block on the way to the walk.)
    return _walk(chain.from_iterable(_top_level_lists(doc, scope)), kind)


def _top_level_lists(doc: HwpDocument, scope: str) -> Iterator[list[Block]]:
    if scope in ("body", "all"):
        for section in doc.sections:
            yield section.blocks
    if scope in ("furniture", "all"):
        for furniture in doc.furniture:
            yield furniture.blocks
