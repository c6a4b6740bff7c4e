"""Filling a form: values into a copy of an HWPX document, nothing else changed, checked before
it is handed back.

``fill(source, values)`` asks the format's writer (in the reader, beside the format's reader) for
the filled document and the plan, then reads the written bytes back with our reader:

- every filled place holds its value (click-here fields by name among the form's fields, cells
  at their addresses);
- every section-level paragraph no key touched reads as before (its text, and the text of every
  cell, box and note it holds), and so do headers, footers and notes;
- every table keeps its grid (rows, columns, each cell's place and spans);
- every part of the package the writer did not rewrite is byte-identical (name, order, method,
  CRC and stored bytes).

A document that fails any of these is not handed back: ``FillVerificationError``
(``internal_error``: a bug in the writer, never the caller's doing).
"""

from __future__ import annotations

import io
import json
import os
import struct
import zipfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from typing_extensions import TypedDict

from . import _native
from .document import parse
from .errors import HwpError, from_native, opening

if TYPE_CHECKING:
    from .document import Document
    from .ir import Block, HwpDocument, Table, TableCell

FillValue = str | bool | Sequence[str]
"""A value: text (a line feed starts a new line), true/false (a checkbox), or lines."""


class CellPlace(TypedDict):
    row: int
    col: int


class Address(TypedDict):
    part: str
    """The package part (or stream) the place is in."""
    section: int
    paragraph: int
    """The section-level paragraph holding the place (its index in the section)."""
    cells: list[CellPlace]
    """The table cells from that paragraph inwards, outermost first (empty outside tables)."""
    block: int | None
    """``iter_blocks(offset=block)`` starts at the top-level body block holding the place."""


class FilledPlace(TypedDict):
    key: str
    kind: Literal["click_here", "cell", "label", "checkbox", "radio", "edit", "combo_box", "list_box"]
    """``click_here`` (a field of that name), ``cell`` (a cell of that name), ``label`` (the empty
    cell beside a cell whose text is the key), or the kind of the form control of that name
    (``before``/``after`` of a checkbox or radio button: ``"true"``/``"false"``)."""
    name: str
    address: Address
    before: str
    after: str


class AmbiguousKey(TypedDict):
    key: str
    candidates: list[Address]


class FillPlan(TypedDict):
    filled: list[FilledPlace]
    unmatched: list[str]
    ambiguous: list[AmbiguousKey]
    warnings: list[str]


@dataclass(frozen=True)
class FillResult:
    """The filled document (``data``; the input's own bytes when nothing changed), the plan, and
    the parts rewritten. ``verified`` is true once the bytes were read back and checked."""

    data: bytes
    plan: FillPlan
    changed: bool
    changed_parts: list[str]
    verified: bool


class FillVerificationError(HwpError):
    """The filled document did not read back as it must: nothing is kept."""

    code = "internal_error"
    suggestion = "Nothing was written. Report the document (a bug in the writer); fill a copy by hand meanwhile."


def _native_values(values: Mapping[str, FillValue]) -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    for key, value in values.items():
        out.append((key, value if isinstance(value, (str, bool)) else list(value)))
    return out


def fill(
    source: str | os.PathLike[str] | bytes,
    values: Mapping[str, FillValue],
    *,
    password: str | None = None,
) -> FillResult:
    """Fill the form ``source`` (a path or the document's bytes) with ``values``; see the module
    notes. Unmatched and ambiguous keys are reported in the plan, never guessed; the caller decides
    whether a partial fill is kept. Raises ``HwpError`` subclasses (``unsupported_format`` for
    formats that are not written, with the way out)."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        original = bytes(source)
    else:
        path = os.fspath(source)
        with opening(path), open(path, "rb") as f:
            original = f.read()
    try:
        data, plan_json, changed_parts = _native.fill(original, _native_values(values), password)
    except _native.ReaderError as e:
        code, message, suggestion = e.args[:3]
        if code == "internal_error":
            raise FillVerificationError(message, suggestion) from None
        raise from_native(code, message, suggestion) from None
    raw = json.loads(plan_json)
    # How many section-level paragraphs each place spans before and after: for the check only.
    spans: list[tuple[int, int]] = [(f.pop("span_before"), f.pop("span_after")) for f in raw["filled"]]
    plan: FillPlan = raw
    if data is None:
        before = parse(original, password)
        _add_blocks(plan, before.to_ir())
        return FillResult(original, plan, False, [], True)
    before_doc = parse(original, password)
    try:
        after_doc = parse(data, password)
    except HwpError as e:
        raise FillVerificationError(f"the filled document does not read back ({e.code}: {e})") from None
    old_ir, new_ir = before_doc.to_ir(), after_doc.to_ir()
    _add_blocks(plan, old_ir)
    problems = list(_differences(old_ir, new_ir, after_doc, plan, spans))
    problems += _package_differences(original, data, changed_parts, old_ir.format)
    if problems:
        shown = "; ".join(problems[:5])
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        raise FillVerificationError(f"the filled document did not read back as written: {shown}{more}")
    return FillResult(data, plan, True, list(changed_parts), True)


def _add_blocks(plan: FillPlan, ir: HwpDocument) -> None:
    """Give each address the top-level body block that holds it."""
    first: dict[tuple[int, int], int] = {}
    at = 0
    for section in ir.sections:
        for block in section.blocks:
            key = (block.provenance.section, block.provenance.paragraph)
            first.setdefault(key, at)
            at += 1
    addresses: list[Address] = [f["address"] for f in plan["filled"]]
    addresses += [a for amb in plan["ambiguous"] for a in amb["candidates"]]
    for address in addresses:
        address["block"] = first.get((address["section"], address["paragraph"]))


def _texts(block: Block) -> Iterator[str]:
    """Every paragraph text a block holds, nested ones included, in reading order."""
    from .ir import child_blocks

    if block.kind == "paragraph":
        yield block.text
    for child in child_blocks(block):
        yield from _texts(child)


def _tables(blocks: Sequence[Block]) -> Iterator[Table]:
    from .ir import child_blocks

    for block in blocks:
        if block.kind == "table":
            yield block
        yield from _tables(list(child_blocks(block)))


def _grid(table: Table) -> tuple[int, int, list[tuple[int, int, int, int]]]:
    return (table.rows, table.cols, [(c.row, c.col, c.row_span, c.col_span) for c in table.cells])


def _groups(ir: HwpDocument) -> dict[tuple[int, int], list[str]]:
    """The texts of each section-level paragraph's blocks, by (section, paragraph)."""
    groups: dict[tuple[int, int], list[str]] = {}
    for section in ir.sections:
        for block in section.blocks:
            key = (block.provenance.section, block.provenance.paragraph)
            groups.setdefault(key, []).extend(_texts(block))
    return groups


def _cell_at(blocks: Sequence[Block], chain: Sequence[CellPlace]) -> Iterator[TableCell]:
    """The cells at the end of ``chain`` (row and column from the outermost table inwards)."""
    if not chain:
        return
    for table in (b for b in blocks if b.kind == "table"):
        for cell in table.cells:
            if cell.row == chain[0]["row"] and cell.col == chain[0]["col"]:
                if len(chain) == 1:
                    yield cell
                else:
                    yield from _cell_at(cell.blocks, chain[1:])


_CONTROL_KINDS = ("checkbox", "radio", "edit", "combo_box", "list_box")


def _lines(text: str) -> str:
    return "\n".join(line for line in text.split("\n") if line)


def _new_paragraph(plan: FillPlan, spans: list[tuple[int, int]], section: int, paragraph: int) -> int:
    """Where a section-level paragraph of the blank is in the filled document: fields over several
    section-level paragraphs before it got a paragraph per line of their value."""
    shift = 0
    for f, (before, after) in zip(plan["filled"], spans, strict=True):
        a = f["address"]
        if a["section"] == section and a["paragraph"] < paragraph and before != after:
            shift += after - before
    return paragraph + shift


def _differences(
    old: HwpDocument, new: HwpDocument, new_doc: Document, plan: FillPlan, spans: list[tuple[int, int]]
) -> Iterator[str]:
    touched_old: set[tuple[int, int]] = set()
    touched_new: set[tuple[int, int]] = set()
    for f, (before, after) in zip(plan["filled"], spans, strict=True):
        s, p = f["address"]["section"], f["address"]["paragraph"]
        moved = _new_paragraph(plan, spans, s, p)
        touched_old.update((s, p + i) for i in range(before))
        touched_new.update((s, moved + i) for i in range(after))
    old_groups, new_groups = _groups(old), _groups(new)
    kept_old = [(k[0], texts) for k, texts in sorted(old_groups.items()) if k not in touched_old]
    kept_new = [(k[0], texts) for k, texts in sorted(new_groups.items()) if k not in touched_new]
    if kept_old != kept_new:
        changed = next((o for o, n in zip(kept_old, kept_new, strict=False) if o != n), None)
        where = f" (first: {changed[1][:3]!r})" if changed else ""
        yield f"a paragraph changed though nothing was filled there{where}"
    if [list(_texts_of_furniture(f)) for f in old.furniture] != [list(_texts_of_furniture(f)) for f in new.furniture]:
        yield "headers, footers or notes changed"
    old_body = [b for s in old.sections for b in s.blocks]
    new_body = [b for s in new.sections for b in s.blocks]
    if [_grid(t) for t in _tables(old_body)] != [_grid(t) for t in _tables(new_body)]:
        yield "a table's grid changed"
    fields: dict[str, list[str]] = {}
    for entry in new_doc.form_entries():
        if entry["kind"] == "click_here" and entry["name"] is not None:
            fields.setdefault(entry["name"], []).append(_lines(entry["value"] or ""))
    controls: dict[tuple[str, str], list[str]] = {}
    for entry in new_doc.form_entries():
        if entry["kind"] in _CONTROL_KINDS and entry["name"] is not None:
            shown = str(bool(entry["checked"])).lower() if entry["kind"] in ("checkbox", "radio") else entry["value"]
            controls.setdefault((entry["kind"], entry["name"]), []).append(shown or "")
    for f in plan["filled"]:
        if f["kind"] in _CONTROL_KINDS:
            if f["after"] not in controls.get((f["kind"], f["name"]), []):
                yield f"{f['kind']} {f['name']!r} does not read back as {f['after']!r}"
            continue
        if f["kind"] == "click_here":
            # An empty paragraph of a field over several paragraphs is no line of its value as
            # the forms listing reads it (the model keeps no empty paragraph).
            if _lines(f["after"]) not in fields.get(f["name"], []):
                yield f"click-here field {f['name']!r} does not read back as {f['after']!r}"
            continue
        address = f["address"]
        paragraph = _new_paragraph(plan, spans, address["section"], address["paragraph"])
        section = new.sections[address["section"]] if address["section"] < len(new.sections) else None
        holders = [b for b in section.blocks if b.provenance.paragraph == paragraph] if section else []
        wanted = [line for line in f["after"].split("\n") if line]
        cells = list(_cell_at(holders, address["cells"]))
        if not any([b.text for b in c.blocks if b.kind == "paragraph"] == wanted for c in cells):
            yield f"cell for {f['key']!r} does not read back as {f['after']!r}"


def _texts_of_furniture(furniture: object) -> Iterator[str]:
    for block in getattr(furniture, "blocks", []):
        yield from _texts(block)


def _raw_entries(data: bytes) -> list[tuple[str, int, int, int, bytes]]:
    """Each zip entry's name, method, CRC, stored size and stored bytes, in order."""
    out = []
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        for info in z.infolist():
            offset = info.header_offset
            name_len, extra_len = struct.unpack_from("<HH", data, offset + 26)
            start = offset + 30 + name_len + extra_len
            out.append(
                (
                    info.filename,
                    info.compress_type,
                    info.CRC,
                    info.compress_size,
                    data[start : start + info.compress_size],
                )
            )
    return out


def _package_differences(old: bytes, new: bytes, changed: Sequence[str], fmt: str) -> list[str]:
    if fmt != "hwpx":
        return []
    before, after = _raw_entries(old), _raw_entries(new)
    if [e[0] for e in before] != [e[0] for e in after]:
        return ["the package's entries or their order changed"]
    if after and (after[0][0] != "mimetype" or after[0][1] != zipfile.ZIP_STORED) and before[0][0] == "mimetype":
        return ["mimetype is no longer the first, stored entry"]
    rewritten = {name.replace("\\", "/").lower() for name in changed}
    return [
        f"{b[0]} changed though it was not rewritten"
        for b, a in zip(before, after, strict=True)
        if b[0].replace("\\", "/").lower() not in rewritten and b != a
    ]
