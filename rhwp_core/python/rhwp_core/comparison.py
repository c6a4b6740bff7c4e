"""What changed between two documents of any formats we read: :func:`compare`.

The work is native (``rhwp_reader::diff``, without the GIL): the top-level blocks of both are
aligned in order (unique equal blocks anchor the alignment, so two versions of one report align
in close to linear time), equal blocks out of that order are moves, and what is left is paired
by kind and likeness (modified) or reported inserted or deleted. A modified block's text is
diffed by character (Korean glues particles to words: ``계약금액을`` → ``계약금액은`` is one
character), a table cell by cell (rows and columns inserted or deleted recognised), a picture
by its content, fields and form controls by name. Every change carries its address in both
documents: ``block`` as ``Document.iter_blocks`` counts it, ``page``, ``heading_path`` and
``text_offset``. Empty paragraphs are not compared. Too much work (documents that share
nothing, hostile pairs) raises ``TooLargeError`` with a suggestion, never hangs.

>>> import rhwp_core
>>> result = rhwp_core.compare("rfp-2025.hwp", "rfp-2026.hwpx")
>>> result.summary.modified, [c.kind for c in result.changes][:3]
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Literal

from . import _native
from .cache import load
from .document import Document, _cyclic_gc_paused, parse
from .errors import DocumentNotFoundError, from_native, opening

Scope = Literal["body", "all"]
ChangeKind = Literal["modified", "inserted", "deleted", "moved"]


@dataclass(slots=True)
class Span:
    """A run of a character diff: ``equal`` text, text only the old document has (``delete``) or
    only the new one (``insert``)."""

    op: Literal["equal", "delete", "insert"]
    text: str


@dataclass(slots=True)
class CellAt:
    """A table cell at its grid position (0-based; a merged cell at its top-left), with the texts
    of the cells that start in its row (itself among them), to read it in its row."""

    row: int
    col: int
    row_span: int
    col_span: int
    text: str
    row_cells: list[str]


@dataclass(slots=True)
class Line:
    """A row or column (0-based ``index``) one table has and the other has not, with the texts of
    the cells that start in it."""

    index: int
    cells: list[str]


@dataclass(slots=True)
class CellChange:
    """A cell that differs between two aligned tables: its text (``spans``) or its span."""

    kind: Literal["modified", "inserted", "deleted"]
    old: CellAt | None
    new: CellAt | None
    spans: list[Span] = field(default_factory=list)


@dataclass(slots=True)
class TableDiff:
    """What differs between two tables: cells of aligned rows and columns, and the rows and
    columns one side has and the other has not."""

    cells: list[CellChange]
    rows_deleted: list[Line]
    rows_inserted: list[Line]
    columns_deleted: list[Line]
    columns_inserted: list[Line]


@dataclass(slots=True)
class FieldChange:
    """A named field (click-here field, ...) or form control whose value changed; ``None`` on the
    side that does not have it."""

    name: str
    old: str | None
    new: str | None


@dataclass(slots=True)
class Diff:
    """What changed inside a modified block."""

    spans: list[Span] = field(default_factory=list)
    table: TableDiff | None = None
    picture_replaced: bool = False
    fields: list[FieldChange] = field(default_factory=list)


@dataclass(slots=True)
class Address:
    """Where a block is in one document. ``scope="body"``: ``block`` is its index for
    ``iter_blocks(offset=block)``; ``"furniture"`` (a header, footer, note or memo): the offset
    of its first block in ``iter_blocks(scope="furniture")``. ``text_offset``: where the first
    change starts in the block's text (modified text)."""

    scope: Literal["body", "furniture"]
    block: int
    kind: str
    section: int
    page: int | None
    heading_path: list[str]
    text_offset: int | None


@dataclass(slots=True)
class Place:
    """A block's address and its text (as ``extract_text`` shows it)."""

    address: Address
    text: str


@dataclass(slots=True)
class Change:
    """One change. ``old`` is None for an insertion, ``new`` for a deletion; ``diff`` is set for a
    modification."""

    kind: ChangeKind
    old: Place | None
    new: Place | None
    diff: Diff | None


@dataclass(slots=True)
class Where:
    """The changes under one heading path (the new document's; the old one's for a deletion)."""

    heading_path: list[str]
    modified: int
    inserted: int
    deleted: int
    moved: int


@dataclass(slots=True)
class Summary:
    """Counts by kind, ``unchanged`` blocks, and where the changes are (by heading, in order).
    ``pictures_compared_by``: ``content`` when both documents' picture bytes were compared,
    ``name_and_size`` otherwise (a ``Document`` passed in carries no bytes)."""

    unchanged: int
    modified: int
    inserted: int
    deleted: int
    moved: int
    by_heading: list[Where]
    pictures_compared_by: Literal["content", "name_and_size"]


@dataclass(slots=True)
class Comparison:
    """The result of :func:`compare`: the summary, then the changes in the new document's order
    (a deletion where the old block stood). ``dataclasses.asdict`` gives its JSON shape."""

    summary: Summary
    changes: list[Change]


# Built by hand from the native JSON (the native side's serde structs are the schema) with the
# cyclic GC paused, as the IR is built: a validating model layer cost 40-75 µs a change (1.5 s for
# 20,000 moved paragraphs, ten times the comparison itself), frozen dataclasses 35 µs (each field
# set through object.__setattr__); these cost a few.


def _spans(raw: list[dict[str, Any]]) -> list[Span]:
    return [Span(s["op"], s["text"]) for s in raw]


def _cell(raw: dict[str, Any] | None) -> CellAt | None:
    if raw is None:
        return None
    return CellAt(raw["row"], raw["col"], raw["row_span"], raw["col_span"], raw["text"], raw["row_cells"])


def _lines(raw: list[dict[str, Any]]) -> list[Line]:
    return [Line(line["index"], line["cells"]) for line in raw]


def _diff(raw: dict[str, Any] | None) -> Diff | None:
    if raw is None:
        return None
    table = raw.get("table")
    return Diff(
        spans=_spans(raw.get("spans", [])),
        table=None
        if table is None
        else TableDiff(
            cells=[
                CellChange(c["kind"], _cell(c["old"]), _cell(c["new"]), _spans(c.get("spans", [])))
                for c in table["cells"]
            ],
            rows_deleted=_lines(table["rows_deleted"]),
            rows_inserted=_lines(table["rows_inserted"]),
            columns_deleted=_lines(table["columns_deleted"]),
            columns_inserted=_lines(table["columns_inserted"]),
        ),
        picture_replaced=raw.get("picture_replaced", False),
        fields=[FieldChange(f["name"], f["old"], f["new"]) for f in raw.get("fields", [])],
    )


def _place(raw: dict[str, Any] | None) -> Place | None:
    if raw is None:
        return None
    a = raw["address"]
    address = Address(a["scope"], a["block"], a["kind"], a["section"], a["page"], a["heading_path"], a["text_offset"])
    return Place(address, raw["text"])


def _comparison(raw: str) -> Comparison:
    with _cyclic_gc_paused():
        return _built(raw)


def _built(raw: str) -> Comparison:
    data = json.loads(raw)
    s = data["summary"]
    summary = Summary(
        s["unchanged"],
        s["modified"],
        s["inserted"],
        s["deleted"],
        s["moved"],
        [Where(w["heading_path"], w["modified"], w["inserted"], w["deleted"], w["moved"]) for w in s["by_heading"]],
        s["pictures_compared_by"],
    )
    changes = [Change(c["kind"], _place(c["old"]), _place(c["new"]), _diff(c["diff"])) for c in data["changes"]]
    return Comparison(summary, changes)


Source = str | os.PathLike[str] | bytes | Document


def _opened(source: Source, password: str | None) -> tuple[Document, bytes | None]:
    """The document and, when it came from a path or bytes, its bytes (for picture content)."""
    if isinstance(source, Document):
        return source, None
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        return parse(data, password), data
    doc = load(source, password)
    path = os.fspath(source)
    if path.startswith("file://"):
        from urllib.parse import unquote, urlparse

        path = unquote(urlparse(path).path)
    try:
        with opening(path), open(path, "rb") as f:
            return doc, f.read()
    except DocumentNotFoundError:
        # Gone between reading and now: compare the pictures by name and size.
        return doc, None


def compare(
    a: Source,
    b: Source,
    password_a: str | None = None,
    password_b: str | None = None,
    *,
    scope: Scope = "body",
    pages: str | None = None,
) -> Comparison:
    """What changed from ``a`` (the old document) to ``b`` (the new one): paths, bytes or
    ``Document`` objects of any formats we read. ``scope="all"`` compares the page headers,
    footers, notes and memos too; ``pages`` (``"1-20"``) compares what lies on those pages of
    each (as ``iter_blocks(pages=...)`` selects it; addresses stay the whole document's).
    Raises the ``HwpError`` family as :func:`rhwp_core.parse` does (``InvalidRequestError``
    for pages a document does not have), and ``TooLargeError`` when the two need more work than
    the bound allows."""
    doc_a, bytes_a = _opened(a, password_a)
    doc_b, bytes_b = _opened(b, password_b)
    only_a = None if pages is None else doc_a._selection(pages)
    only_b = None if pages is None else doc_b._selection(pages)
    try:
        raw = _native.compare(
            doc_a._native, doc_b._native, bytes_a, bytes_b, password_a, password_b, scope, only_a, only_b
        )
    except _native.ReaderError as e:
        code, message, suggestion = e.args
        raise from_native(code, message, suggestion) from None
    return _comparison(raw)


__all__ = [
    "Address",
    "CellAt",
    "CellChange",
    "Change",
    "ChangeKind",
    "Comparison",
    "Diff",
    "FieldChange",
    "Line",
    "Place",
    "Scope",
    "Span",
    "Summary",
    "TableDiff",
    "Where",
    "compare",
]
