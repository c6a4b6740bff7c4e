"""Tool pack ``compare``: what changed between two documents, and a 신구대조표 to read it in.

``compare_documents(old, new)`` compares two documents of any formats we read (an HWP 3.x file
against its HWPX re-save, last year's 규격서 against this year's) through ``rhwp_core.compare``:
blocks aligned with moves recognised, text diffed by character, tables cell by cell, pictures by
content, fields by name; every change with its address in both documents. Three views of one
result, each paged by change (``offset``/``limit``) and kept within the response cap:

- ``summary`` (text): the counts by kind and where the changes are by heading, then one line per
  change with the changed characters marked ``[-deleted-]{+inserted+}``;
- ``table``: a 신구대조표 in Markdown -- per heading, a GFM table ``| 현행 | 개정 |`` whose
  cells mark what changed as a law's comparison table underlines it (``<del>`` in the current
  text, ``<ins>`` in the amended one), a multi-line cell's lines joined by ``<br>``, a changed
  table cell shown in its row;
- ``json`` (text holding one JSON object): ``{summary, changes: [{kind, old: {address, text},
  new: {address, text}, diff}], total, next_offset}``.

Long texts are shortened in the views, never silently: a block's text beyond ``TEXT_CHARS``
ends with how much is left and where the whole block is (``iter_blocks(path, offset=block)``),
and long unchanged stretches inside a modified text keep their ends around ``…``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterable
from dataclasses import asdict
from typing import Annotated, Any, Literal

from pydantic import Field
from rhwp_core.comparison import CellChange, Change, Comparison, Place, Span, Summary

import rhwp_core
from rhwp_mcp_host import (
    FilePath,
    Offset,
    Pages,
    Register,
    ToolFailure,
    caller_source,
    current_max_chars,
    current_password,
    hookimpl,
    next_call_of,
    page_list,
)

Format = Literal["summary", "table", "json"]

TEXT_CHARS = 600
"""A block's text in a view is cut here (with what is left said)."""
CONTEXT_CHARS = 30
"""An unchanged stretch of a modified text keeps this much on each side of a change."""
WHERE_SHOWN = 30
"""Heading paths listed in the summary, at most (the rest counted)."""


# -- marking changed characters ---------------------------------------------------------------


def _shortened(spans: list[Span]) -> list[tuple[str, str]]:
    """The spans with long equal stretches cut to their ends next to the changes."""
    out: list[tuple[str, str]] = []
    last = len(spans) - 1
    for i, span in enumerate(spans):
        text = span.text
        if span.op == "equal" and len(text) > 2 * CONTEXT_CHARS + 1:
            head = text[:CONTEXT_CHARS] if i > 0 else ""
            tail = text[-CONTEXT_CHARS:] if i < last else ""
            text = f"{head}…{tail}"
        out.append((span.op, text))
    return out


def _inline_marked(spans: list[Span]) -> str:
    """One line: ``equal [-deleted-]{+inserted+} equal``."""
    marks = {"equal": "{}", "delete": "[-{}-]", "insert": "{{+{}+}}"}
    return "".join(marks[op].format(text) for op, text in _shortened(spans)).replace("\n", "⏎")


_MD_ESCAPES = str.maketrans(
    {
        "&": "&amp;",
        "<": "&lt;",
        ">": "&gt;",
        "|": "\\|",
        "\\": "\\\\",
        "*": "\\*",
        "_": "\\_",
        "~": "\\~",
        "`": "\\`",
        "[": "\\[",
        "]": "\\]",
    }
)


def _cell_text(text: str) -> str:
    """Text safe inside a GFM table cell: escaped, its lines joined by ``<br>``."""
    return "<br>".join(line.translate(_MD_ESCAPES) for line in text.split("\n"))


def _side_marked(spans: list[Span], side: Literal["old", "new"]) -> str:
    """One side of a modified text for a table cell: the old text with ``<del>`` around what the
    new one dropped, or the new text with ``<ins>`` around what it added."""
    skip, mark, tag = ("insert", "delete", "del") if side == "old" else ("delete", "insert", "ins")
    out = []
    for op, text in _shortened(spans):
        if op == skip:
            continue
        shown = _cell_text(text)
        out.append(f"<{tag}>{shown}</{tag}>" if op == mark and text.strip() else shown)
    return "".join(out)


# -- the text of one side of a change ----------------------------------------------------------


def _clipped(text: str, place: Place, path: str) -> str:
    """``text`` up to ``TEXT_CHARS``, or cut there with what is left and where the whole is."""
    if len(text) <= TEXT_CHARS:
        return text
    address = place.address
    whole = (
        f'iter_blocks(path="{caller_source(path)}", offset={address.block}, limit=1)'
        if address.scope == "body"
        else f'iter_blocks(path="{caller_source(path)}", scope="furniture", offset={address.block})'
    )
    return f"{text[:TEXT_CHARS]}… [+{len(text) - TEXT_CHARS} characters: {whole}]"


def _where(place: Place | None) -> str:
    if place is None:
        return ""
    a = place.address
    page = f", p.{a.page}" if a.page is not None else ""
    scope = "" if a.scope == "body" else f"{a.kind} "
    return f"{scope}#{a.block}{page}"


def _heading(change: Change) -> str:
    place = change.new or change.old
    path = place.address.heading_path if place is not None else []
    return " › ".join(path) if path else "(before the first heading)"


# -- summary -----------------------------------------------------------------------------------


def _counts(s: Summary | Any) -> str:
    parts = [f"{kind} {getattr(s, kind)}" for kind in ("modified", "inserted", "deleted", "moved") if getattr(s, kind)]
    return ", ".join(parts) if parts else "none"


def _summary_header(result: Comparison, old: str, new: str) -> str:
    s = result.summary
    total = len(result.changes)
    lines = [
        f"Compared {caller_source(old)} (old) with {caller_source(new)} (new).",
        f"{total} changes: {_counts(s)}; {s.unchanged} blocks unchanged; pictures compared by "
        f"{s.pictures_compared_by.replace('_', ' ')}.",
    ]
    if s.by_heading:
        lines.append("Where (by heading):")
        for where in s.by_heading[:WHERE_SHOWN]:
            heading = " › ".join(where.heading_path) if where.heading_path else "(before the first heading)"
            lines.append(f"- {heading}: {_counts(where)}")
        if len(s.by_heading) > WHERE_SHOWN:
            lines.append(f"- … and {len(s.by_heading) - WHERE_SHOWN} more headings")
    return "\n".join(lines)


def _table_summary(change: Change) -> str:
    assert change.diff is not None and change.diff.table is not None
    t = change.diff.table
    parts = []
    if t.cells:
        parts.append(f"{len(t.cells)} cells changed")
    for what, lines in (
        ("rows inserted", t.rows_inserted),
        ("rows deleted", t.rows_deleted),
        ("columns inserted", t.columns_inserted),
        ("columns deleted", t.columns_deleted),
    ):
        if lines:
            parts.append(f"{what} {', '.join(str(line.index + 1) for line in lines)}")
    cells = "; ".join(
        f"({c.old.row + 1},{c.old.col + 1}) {_inline_marked(c.spans)}"
        for c in t.cells[:5]
        if c.old is not None and c.spans
    )
    return ", ".join(parts) + (f": {cells}" if cells else "")


def _summary_line(number: int, change: Change, old: str, new: str) -> str:
    where = f"{_where(change.old)}→{_where(change.new)}".strip("→")
    kind = (change.new or change.old).address.kind if (change.new or change.old) else ""  # type: ignore[union-attr]
    head = f"{number}. {change.kind} {kind} {where} [{_heading(change)}]"
    diff = change.diff
    if change.kind == "modified" and diff is not None:
        if diff.table is not None:
            body = _table_summary(change)
        elif diff.picture_replaced:
            body = "picture replaced" + (f"; caption: {_inline_marked(diff.spans)}" if diff.spans else "")
        else:
            body = _inline_marked(diff.spans)
        if diff.fields:
            body += "; fields: " + ", ".join(f"{f.name}: {f.old!r} → {f.new!r}" for f in diff.fields)
        return f"{head}: {body}"
    place = change.new if change.kind == "inserted" else change.old
    assert place is not None
    text = _clipped(place.text, place, new if change.kind == "inserted" else old).replace("\n", "⏎")
    return f"{head}: {text}"


# -- 신구대조표 ---------------------------------------------------------------------------------


def label(at: str) -> str:
    """A block's address in small print before its text in a 신구대조표 cell."""
    return f"<sub>{at}</sub> " if at else ""


def _table_rows(change: Change, old: str, new: str) -> list[tuple[str, str]]:
    """The (현행, 개정) rows of one change."""
    at_old, at_new = _where(change.old), _where(change.new)
    if change.kind == "inserted":
        assert change.new is not None
        return [("(신설)", label(at_new) + _cell_text(_clipped(change.new.text, change.new, new)))]
    if change.kind == "deleted":
        assert change.old is not None
        return [(label(at_old) + _cell_text(_clipped(change.old.text, change.old, old)), "(삭제)")]
    if change.kind == "moved":
        assert change.old is not None and change.new is not None
        text = _cell_text(_clipped(change.old.text, change.old, old))
        return [(label(at_old) + text, label(at_new) + f"(이동) {text}")]
    diff = change.diff
    assert diff is not None and change.old is not None and change.new is not None
    rows: list[tuple[str, str]] = []
    if diff.table is not None:
        rows.extend(_table_cell_rows(change, label(at_old), label(at_new)))
    elif diff.picture_replaced:
        rows.append((label(at_old) + "(그림)", label(at_new) + "<ins>(그림 바뀜)</ins>"))
        if diff.spans:
            rows.append((_side_marked(diff.spans, "old"), _side_marked(diff.spans, "new")))
    else:
        rows.append((label(at_old) + _side_marked(diff.spans, "old"), label(at_new) + _side_marked(diff.spans, "new")))
    for f in diff.fields:
        rows.append(
            (
                f"필드 {_cell_text(f.name)}: {_cell_text(f.old or '')}",
                f"필드 {_cell_text(f.name)}: <ins>{_cell_text(f.new or '')}</ins>",
            )
        )
    return rows


def _joined(cells: Iterable[str]) -> str:
    return " · ".join(_cell_text(c) for c in cells)


def _cell_in_row(cell: CellChange, side: Literal["old", "new"]) -> str:
    """One side of a changed cell, shown in its row: the row's cells in order, this one marked."""
    at = cell.old if side == "old" else cell.new
    if at is None:
        return "(없음)"
    tag = "del" if side == "old" else "ins"
    # A cell whose text is the same but whose span changed is marked whole.
    shown = _side_marked(cell.spans, side) if cell.spans else f"<{tag}>{_cell_text(at.text)}</{tag}>"
    others = [_cell_text(text) for text in at.row_cells]
    mine = _cell_text(at.text)
    if mine in others:
        others[others.index(mine)] = shown
    else:
        others.append(shown)
    return f"표 {at.row + 1}행: " + " · ".join(others)


def _table_cell_rows(change: Change, at_old: str, at_new: str) -> list[tuple[str, str]]:
    """A modified table: each changed cell in its row (the row's other cells around it), then
    the rows and columns one side has alone."""
    assert change.diff is not None and change.diff.table is not None
    t = change.diff.table
    rows = [(at_old + _cell_in_row(cell, "old"), at_new + _cell_in_row(cell, "new")) for cell in t.cells]
    for line in t.rows_inserted:
        rows.append(("(신설)", f"{at_new}표 {line.index + 1}행 <ins>{_joined(line.cells)}</ins>"))
    for line in t.rows_deleted:
        rows.append((f"{at_old}표 {line.index + 1}행 <del>{_joined(line.cells)}</del>", "(삭제)"))
    for line in t.columns_inserted:
        rows.append(("(신설)", f"{at_new}표 {line.index + 1}열 <ins>{_joined(line.cells)}</ins>"))
    for line in t.columns_deleted:
        rows.append((f"{at_old}표 {line.index + 1}열 <del>{_joined(line.cells)}</del>", "(삭제)"))
    return rows


def _table_part(changes: list[Change], old: str, new: str, previous_heading: str | None) -> tuple[str, str | None]:
    """The 신구대조표 of some changes, a heading line and a new table where the heading changes."""
    out: list[str] = []
    heading = previous_heading
    for change in changes:
        here = _heading(change)
        if here != heading:
            out.append(f"\n### {_cell_text(here)}\n\n| 현행 | 개정 |\n|---|---|")
            heading = here
        out.extend(f"| {a} | {b} |" for a, b in _table_rows(change, old, new))
    return "\n".join(out), heading


# -- paging ------------------------------------------------------------------------------------


def _whole_blocks(change: Change, old: str, new: str) -> str:
    """The calls that give a change's blocks whole (the host pages a large block in parts)."""
    calls = []
    for place, path in ((change.old, old), (change.new, new)):
        if place is None:
            continue
        a = place.address
        if a.scope == "body":
            calls.append(f'iter_blocks(path="{caller_source(path)}", offset={a.block}, limit=1)')
        else:
            calls.append(f'iter_blocks(path="{caller_source(path)}", scope="furniture", offset={a.block})')
    return " and ".join(dict.fromkeys(calls))


def _paged_text(
    header: str,
    pieces: Callable[[int], str],
    total: int,
    offset: int,
    limit: int,
    next_call: Callable[[int], str],
    whole: Callable[[int], str],
) -> str:
    """``header``, then the pieces of changes ``offset``, ``offset+1``, ... while they fit the cap
    and ``limit``; when changes remain, a last line with the next call. A piece larger than the
    whole cap alone comes shortened, saying so and naming the calls that give its blocks whole."""
    cap = current_max_chars()
    trailer_room = 200 + len(next_call(total))
    out = [header]
    used = len(header)
    end = offset
    while end < min(total, offset + limit):
        piece = pieces(end)
        room = cap - trailer_room - used - 1
        if len(piece) > room:
            if end > offset:
                break
            note = whole(end)
            cut = max(0, room - 120 - len(note))
            piece = (
                f"{piece[:cut]}\n[change {end} is cut at {cut} of {len(piece)} characters; its blocks whole: {note}]"
            )
        out.append(piece)
        used += len(piece) + 1
        end += 1
    if end < total:
        out.append(f"[cut at change {end} of {total}; next: {next_call(end)}]")
    return "\n".join(out)


def _json_change(change: Change, old: str, new: str) -> dict[str, Any]:
    def side(place: Place | None, path: str) -> dict[str, Any] | None:
        if place is None:
            return None
        shown: dict[str, Any] = {"address": asdict(place.address), "text": _clipped(place.text, place, path)}
        if len(place.text) > TEXT_CHARS:
            shown["text_chars"] = len(place.text)
        return shown

    # The parts of the diff that say something (no empty lists, no false flag).
    diff = (
        {k: v for k, v in asdict(change.diff).items() if v not in ([], None, False)}
        if change.diff is not None
        else None
    )
    return {"kind": change.kind, "old": side(change.old, old), "new": side(change.new, new), "diff": diff}


def _json_size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False))


def _fitted(item: dict[str, Any], room: int, whole: str) -> dict[str, Any]:
    """``item`` as is when its JSON fits ``room``; else shortened until it does -- long equal
    stretches of its spans cut to their ends, then the changed cells and lines of a table kept
    as far as they fit (``cells_total`` and the like say how many there are), then every span's
    text cut -- with ``cut`` saying so and naming the calls that give its blocks whole."""
    if _json_size(item) <= room:
        return item
    item = copy.deepcopy(item)
    item["cut"] = f"shortened to fit the response cap; the blocks whole: {whole}"
    diff = item.get("diff") or {}
    table = diff.get("table") or {}
    span_lists = [diff.get("spans", [])] + [cell.get("spans", []) for cell in table.get("cells", [])]
    for spans in span_lists:
        for span in spans:
            if span["op"] == "equal" and len(span["text"]) > 2 * CONTEXT_CHARS + 1:
                span["text"] = f"{span['text'][:CONTEXT_CHARS]}…{span['text'][-CONTEXT_CHARS:]}"
    for key in ("cells", "rows_inserted", "rows_deleted", "columns_inserted", "columns_deleted"):
        listed = table.get(key)
        if not listed or _json_size(item) <= room:
            continue
        table[f"{key}_total"] = len(listed)
        while len(listed) > 1 and _json_size(item) > room:
            del listed[max(1, len(listed) // 2) :]
    width = 200
    while _json_size(item) > room and width >= 10:
        texts: list[dict[str, Any]] = [side for side in (item["old"], item["new"]) if side is not None]
        for spans in [diff.get("spans", [])] + [cell.get("spans", []) for cell in table.get("cells", [])]:
            texts.extend(spans)
        for cell in table.get("cells", []):
            texts.extend(at for at in (cell.get("old"), cell.get("new")) if at is not None)
        for holder in texts:
            if len(holder["text"]) > width:
                holder["text"] = holder["text"][:width] + "…"
        for cell in table.get("cells", []):
            for at in (cell.get("old"), cell.get("new")):
                if at is not None:
                    at["row_cells"] = [c[:width] + "…" if len(c) > width else c for c in at["row_cells"]]
        width //= 2
    return item


def compare_documents(
    old: Annotated[
        FilePath, Field(description="The old version (현행): a path, file:// URI, data: URI or doc: handle.")
    ],
    new: Annotated[FilePath, Field(description="The new version (개정), any format we read, as `old`.")],
    format: Annotated[
        Format,
        Field(
            description='"summary": counts, where by heading, one line per change; "table": a 신구대조표 '
            '(| 현행 | 개정 |, changed characters marked) in Markdown; "json": the changes as one JSON object.'
        ),
    ] = "summary",
    scope: Annotated[
        Literal["body", "all"],
        Field(description='"body": the running text; "all": also page headers, footers, notes and memos.'),
    ] = "body",
    pages: Pages = None,
    offset: Offset = 0,
    limit: Annotated[int, Field(ge=1, le=200, description="At most this many changes per page.")] = 50,
) -> str:
    """What changed from `old` to `new` (two documents of any formats: HWP, HWPX, HWPML, HWP 3.x):
    blocks aligned with moves recognised, text diffed by character (Korean particles and endings
    included), tables cell by cell (rows/columns inserted or deleted), pictures by content,
    fields by name. Each change says where it is in both: block (iter_blocks offset), page,
    heading path. Paged by change: offset/limit; a cut page ends with the exact next call.

    format="summary" (default): counts by kind (modified, inserted, deleted, moved), where by
    heading, then one line per change, changes marked [-deleted-]{+inserted+}.
    format="table": a 신구대조표 in Markdown, per heading a table | 현행 | 개정 |, deleted
    characters in <del>, inserted in <ins>, a changed table cell shown in its row, (신설) and
    (삭제) for blocks only one side has.
    format="json": {summary, changes: [{kind, old: {address, text}, new: {address, text}, diff}],
    total, next_offset}; diff has spans [{op, text}], table {cells, rows_inserted, ...},
    picture_replaced, fields [{name, old, new}].
    pages="1-20" compares what lies on those pages of each document, a range at a time for long
    ones (addresses stay the whole documents').
    A password, when given, opens both documents.
    """
    password = current_password()
    result = rhwp_core.compare(old, new, password, password, scope=scope, pages=pages)
    total = len(result.changes)
    if offset > total:
        raise ToolFailure(
            "invalid_input", f"offset {offset} is past the end: there are {total} changes", "start at offset=0"
        )
    next_call = next_call_of(compare_documents, old=old, new=new, format=format, scope=scope, pages=pages, limit=limit)
    if format == "json":
        summary = asdict(result.summary)
        summary["by_heading_total"] = len(summary["by_heading"])
        summary["by_heading"] = summary["by_heading"][:WHERE_SHOWN]
        head = json.dumps(summary, ensure_ascii=False)
        budget = max(400, current_max_chars() - len(head) - 100)
        # Only this page's changes are rendered: a hostile pair has tens of thousands.
        items = [
            _fitted(_json_change(c, old, new), budget - 80, _whole_blocks(c, old, new))
            for c in result.changes[offset : offset + limit]
        ]
        page = page_list(items, 0, limit, key="changes", max_chars=budget)
        end = offset + len(page["changes"])
        page = {**page, "total": total, "next_offset": end if end < total else None}
        return json.dumps({"summary": summary, **page}, ensure_ascii=False)
    header = _summary_header(result, old, new) if offset == 0 else f"Changes from {offset} of {total}:"
    if format == "summary":
        return _paged_text(
            header,
            lambda i: _summary_line(i + 1, result.changes[i], old, new),
            total,
            offset,
            limit,
            next_call,
            lambda i: _whole_blocks(result.changes[i], old, new),
        )
    if total == 0:
        return header + "\n\nNo change: the two documents show the same text and tables."
    headings: dict[int, str | None] = {}

    def table_piece(i: int) -> str:
        # Each page opens its first heading's table again; within a page a heading opens one table.
        previous = headings.get(i - 1) if i > offset else None
        piece, heading = _table_part([result.changes[i]], old, new, previous)
        headings[i] = heading
        return piece

    return _paged_text(
        header, table_piece, total, offset, limit, next_call, lambda i: _whole_blocks(result.changes[i], old, new)
    )


@hookimpl
def rhwp_mcp_register_tools(register: Register) -> None:
    register(compare_documents, title="Compare two HWP/HWPX documents (신구대조표)")
