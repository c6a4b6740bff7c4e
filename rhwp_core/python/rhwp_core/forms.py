"""What a form says: its fields, named cells, form controls and memos as one list of entries.

``form_entries(doc)`` walks the document in reading order and gives one ``FormEntry`` per

- field (``click_here`` 누름틀 with its name, guide and value; ``date``, ``cross_reference``,
  ``mail_merge``, ``formula``, ``bookmark``, ... with name and value);
- named table cell (``cell``: the cell's field name and its text as the value);
- form control (``checkbox``, ``radio``, ``combo_box``, ``list_box``, ``edit``, ``button``,
  ``scroll_bar``: name, caption, value, checked state, options);
- memo (``memo``: the note as the value, its author as the name, what it is attached to).

Every entry carries the addresses the other tools take: ``block`` (``iter_blocks(offset=block)``
starts at the top-level body block holding it), ``page`` and ``text_offset`` (where it shows in
``extract_text()`` with default arguments; for a field, where its value -- or the
``[name: guide]`` blank shown in place of an empty click-here field -- starts). Entries inside a
table cell say which (``cell``: its row, column and field name).

The offsets follow the text exactly as ``extract_text`` writes it (reader/src/text.rs: non-empty
lines joined by one newline; a table's caption, then its cells; an equation as ``$LaTeX$`` (its
script when it does not translate), then its caption; a shape's text, then its caption);
``test_forms.py`` holds every offset against the text.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, get_args

from typing_extensions import TypedDict

from .navigation import block_plain_text, paragraph_marker, paragraph_plain_text

# The IR's models are imported where a form is read, not here: the forms pack declares its result
# with this module's shapes when the server starts, and the models take a third of a second to build.
if TYPE_CHECKING:
    from .document import Document
    from .ir import Block, Furniture, Paragraph, Table, TableCell

FieldKind = Literal[
    "click_here",
    "date",
    "page_number",
    "cross_reference",
    "mail_merge",
    "formula",
    "bookmark",
    "table_of_contents",
    "summary",
    "user_info",
    "file_path",
    "other",
]
ControlKind = Literal["checkbox", "radio", "combo_box", "list_box", "edit", "button", "scroll_bar"]
EntryKind = Literal[FieldKind, "cell", ControlKind, "memo"]
"""Every ``kind`` an entry may have (the literals nest: ``get_args`` gives them flat)."""

FIELD_KINDS: tuple[str, ...] = get_args(FieldKind)
CONTROL_KINDS: tuple[str, ...] = get_args(ControlKind)
ENTRY_KINDS: tuple[str, ...] = get_args(EntryKind)
KIND_GROUPS: dict[str, tuple[str, ...]] = {"field": FIELD_KINDS, "form_control": CONTROL_KINDS}
"""Filter names that stand for several kinds."""
KindFilter = Literal["field", "form_control", EntryKind]
"""What ``select`` takes as ``kind`` (and the forms pack offers): a group of kinds, or one kind."""


# CellAddress and FormEntry are also the shapes the forms pack answers with. No class docstrings:
# they would become the shapes' descriptions in the tool's output schema.
class CellAddress(TypedDict):
    row: int
    col: int
    name: str | None
    """The cell's field name, when it has one."""


class FormEntry(TypedDict):
    kind: str
    """A field kind (click_here, date, ...), ``cell``, a control kind (checkbox, ...) or ``memo``."""
    name: str | None
    """The field's, cell's or control's name; a memo's author."""
    value: str | None
    """A field's value ("" when an empty click-here field waits to be filled), a cell's text, a
    control's value (an edit or combo box's text), a memo's text."""
    guide: str | None
    """A click-here field's instruction (안내문)."""
    caption: str | None
    """A control's caption (the words beside a checkbox)."""
    checked: bool | None
    """A checkbox or radio button: ticked or not; None for everything else."""
    options: list[str]
    """A combo or list box's choices, where the document stores them."""
    editable: bool | None
    """A field: whether a form-mode reader may fill it in."""
    anchor: str | None
    """A memo: the words it is attached to."""
    date: str | None
    """A memo: when it was written, as stored."""
    scope: str
    """``body``, ``furniture`` (in a page header or footer, a foot/endnote) or ``annotation`` (a memo)."""
    block: int | None
    """iter_blocks(scope=scope, offset=block) starts at the top-level block holding the entry (a
    memo: the body block holding the words it is attached to)."""
    page: int | None
    text_offset: int | None
    """Where the entry shows in extract_text() (default arguments); None when it shows nothing."""
    cell: CellAddress | None
    """The table cell the entry sits in (the innermost), or the named cell itself."""


def _entry(kind: str, **values: object) -> FormEntry:
    entry: dict[str, object] = {
        "kind": kind,
        "name": None,
        "value": None,
        "guide": None,
        "caption": None,
        "checked": None,
        "options": [],
        "editable": None,
        "anchor": None,
        "date": None,
        "scope": "body",
        "block": None,
        "page": None,
        "text_offset": None,
        "cell": None,
    }
    entry.update(values)
    return entry  # type: ignore[return-value]


@dataclass
class _Walk:
    """The walk of one top-level block: where the next line of its text starts."""

    block: int
    at: int | None
    page: int | None
    scope: str = "body"
    cell: CellAddress | None = None
    out: list[FormEntry] = field(default_factory=list)
    parts: dict[int, list[str]] = field(default_factory=dict)
    """The later parts of fields over several paragraphs, by the index in ``out`` of their first
    part's entry (joined once at the end: appending to the value each time is quadratic)."""
    chains: dict[tuple[str, str | None, str], dict[int, None]] = field(default_factory=dict)
    """Entries whose field may go on into a later paragraph (its last part reaches the end of its
    paragraph), by kind, name and scope, oldest first."""

    def line(self, text: str) -> int | None:
        """Account for one line the text view writes (nothing for an empty one); its start."""
        if not text or self.at is None:
            return None
        start = self.at
        self.at += len(text) + 1
        return start

    def visit(self, block: Block) -> None:
        if block.kind == "paragraph":
            self.paragraph(block)
        elif block.kind == "form_control":
            at = self.line(block.shown)
            self.out.append(
                _entry(
                    block.control,
                    name=block.name,
                    value=block.value,
                    caption=block.caption,
                    checked=block.checked,
                    options=list(block.options),
                    scope=self.scope,
                    block=self.block,
                    page=block.provenance.page or self.page,
                    text_offset=at,
                    cell=self.cell,
                )
            )
        elif block.kind == "table":
            for child in block.caption:
                self.visit(child)
            for cell in block.cells:
                self.table_cell(cell, block)
        elif block.kind == "unknown":
            self.line(block.text or "")
        else:
            from .ir import child_blocks

            if block.kind == "equation":
                self.line(block.shown)
            for child in child_blocks(block):
                self.visit(child)

    def paragraph(self, p: Paragraph) -> None:
        at = self.line(paragraph_plain_text(p))
        marker = paragraph_marker(p)
        if at is not None and marker:
            at += len(marker) + 1  # the text starts after the number and its space
        extended: set[int] = set()
        for f in p.fields:
            reaches_end = f.end >= len(p.text)
            if f.continued and self.go_on(f.kind, f.name, f.value, extended, reaches_end):
                continue
            if reaches_end:
                self.chains.setdefault((f.kind, f.name, self.scope), {})[len(self.out)] = None
            self.out.append(
                _entry(
                    f.kind,
                    name=f.name,
                    value=f.value,
                    guide=f.guide,
                    editable=f.editable,
                    scope=self.scope,
                    block=self.block,
                    page=p.provenance.page or self.page,
                    text_offset=None if at is None else at + f.start,
                    cell=self.cell,
                )
            )

    def go_on(self, kind: str, name: str | None, value: str, extended: set[int], reaches_end: bool) -> bool:
        """A later part of a field over several paragraphs: joined to the entry of its first part,
        after a line break. The model does not say which entry that is: the latest of its kind and
        name whose field reached the end of its paragraph and that this paragraph has not extended
        yet (fields alike in both can only be told apart by order, and each goes on by one part per
        paragraph). False if there is none."""
        chain = self.chains.get((kind, name, self.scope), {})
        for index in reversed(chain):
            if index in extended:
                continue
            self.parts.setdefault(index, []).append(value)
            extended.add(index)
            if not reaches_end:
                del chain[index]  # it ends here
            return True
        return False

    def table_cell(self, cell: TableCell, table: Table) -> None:
        outer = self.cell
        self.cell = CellAddress(row=cell.row, col=cell.col, name=cell.field_name)
        if cell.field_name:
            text = "\n".join(t for t in (block_plain_text(b) for b in cell.blocks) if t)
            self.out.append(
                _entry(
                    "cell",
                    name=cell.field_name,
                    value=text,
                    scope=self.scope,
                    block=self.block,
                    page=table.provenance.page or self.page,
                    text_offset=self.at if text else None,
                    cell=self.cell,
                )
            )
        for child in cell.blocks:
            self.visit(child)
        self.cell = outer


def _memo(memo: Furniture, blocks: dict[tuple[int, int], list[tuple[int, int | None, str]]]) -> FormEntry:
    text = "\n".join(t for t in (block_plain_text(b) for b in memo.blocks) if t)
    where = memo.provenance
    anchor = memo.anchor_text or ""
    block, at = None, None
    # The top-level block of the anchoring paragraph (a paragraph may hold several: a text box
    # and a table) that shows the words the memo is attached to; there, where they start.
    candidates = blocks.get((where.section, where.paragraph), [])
    for index, start, shown in candidates:
        found = shown.find(anchor) if anchor else -1
        if start is not None and found >= 0:
            block, at = index, start + found
            break
    else:
        if candidates:
            block, at, _ = candidates[0]
    return _entry(
        "memo",
        scope="annotation",
        name=memo.author,
        value=text,
        anchor=memo.anchor_text,
        date=memo.date,
        block=block,
        page=where.page,
        text_offset=at,
    )


def form_entries(doc: Document) -> list[FormEntry]:
    """Every field, named cell, form control and memo of ``doc``: the body's in reading order, then
    those in headers, footers and notes, then the memos."""
    ir = doc.to_ir()
    body = [b for section in ir.sections for b in section.blocks]
    furniture = [(f, b) for f in ir.furniture for b in f.blocks]
    places = doc.places(include_furniture=any(f.kind != "memo" for f, _ in furniture))
    out: list[FormEntry] = []
    by_paragraph: dict[tuple[int, int], list[tuple[int, int | None, str]]] = {}
    # Every walk adds to the one list: a field over several paragraphs goes on across blocks.
    parts: dict[int, list[str]] = {}
    chains: dict[tuple[str, str | None, str], dict[int, None]] = {}
    for index, (block, place) in enumerate(zip(body, places, strict=False)):
        where = (block.provenance.section, block.provenance.paragraph)
        by_paragraph.setdefault(where, []).append((index, place.text_offset, place.text))
        _Walk(index, place.text_offset, place.page, out=out, parts=parts, chains=chains).visit(block)
    for index, ((item, block), place) in enumerate(zip(furniture, places[len(body) :], strict=False)):
        if item.kind != "memo":
            walk = _Walk(index, place.text_offset, place.page, scope="furniture", out=out, parts=parts, chains=chains)
            walk.visit(block)
    for index, more in parts.items():
        out[index]["value"] = "\n".join([out[index]["value"] or "", *more])
    out.extend(_memo(f, by_paragraph) for f in ir.furniture if f.kind == "memo")
    return out


def select(
    entries: list[FormEntry], kind: str | None = None, name: str | None = None, pages: frozenset[int] | None = None
) -> Iterator[FormEntry]:
    """The entries of ``kind`` (a kind, or ``field`` / ``form_control`` for a group), named ``name``
    (exactly, surrounding spaces ignored), on ``pages``."""
    kinds = None if kind is None else set(KIND_GROUPS.get(kind, (kind,)))
    wanted = None if name is None else name.strip()
    for entry in entries:
        if kinds is not None and entry["kind"] not in kinds:
            continue
        if wanted is not None and (entry["name"] or "").strip() != wanted:
            continue
        if pages is not None and entry["page"] not in pages:
            continue
        yield entry


__all__ = [
    "CONTROL_KINDS",
    "ENTRY_KINDS",
    "FIELD_KINDS",
    "KIND_GROUPS",
    "CellAddress",
    "ControlKind",
    "EntryKind",
    "FieldKind",
    "FormEntry",
    "KindFilter",
    "form_entries",
    "select",
]
