"""One block too large for a response, cut into parts that each fit (no dead ends).

A block arrives as its JSON object (``Block.model_dump(mode="json")``) and leaves as a list of
objects of the same kind, each holding a share of the content and no more than ``room`` JSON
characters:

- a table by rows, each part repeating the header row (the rows flagged as headers, else the
  first row) and saying which rows it holds (``part_rows``); a row too large by cells; a cell too
  large by its blocks; a nested block too large is cut the same way, recursively;
- a paragraph by characters, its runs cut at the same places and its provenance's character
  offsets moved with them;
- a shape's blocks or a caption like a cell's; any other long text field by characters.

Cutting always ends: a paragraph's text can be cut into pieces of one character.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from rhwp_mcp_host import split_string_field

Block = dict[str, Any]


_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
"""One encoder for every size: json.dumps with options builds a new one per call, which costs more
than encoding a small object."""


def size(value: Any) -> int:
    """The characters of ``value`` as compact JSON (what a response spends on it)."""
    return len(_COMPACT.encode(value))


def split_block(block: Block, room: int) -> list[Block]:
    """``block`` in parts of at most ``room`` JSON characters (one part when it fits)."""
    if size(block) <= room:
        return [block]
    kind = block.get("kind")
    if kind == "table" and block.get("cells"):
        return _split_table(block, room)
    if kind == "paragraph":
        return _split_text(block, "text", room, runs=True)
    for field in ("blocks", "caption"):
        if isinstance(block.get(field), list) and block[field]:
            return _split_list(block, field, room)
    for field in ("text", "script", "description"):
        if isinstance(block.get(field), str) and block[field]:
            return _split_text(block, field, room, runs=False)
    return [block]  # nothing to cut: the caller reports it


def _pack(shell: Block, field: str, items: list[Any], room: int, cut: Callable[[Any, int], list[Any]]) -> list[Block]:
    """Greedy: as many consecutive items per part as fit; an item too large alone is cut by ``cut``."""
    base = size({**shell, field: []})
    parts: list[Block] = []
    current: list[Any] = []
    used = base
    for item in items:
        item_size = size(item) + 1
        if used + item_size <= room:
            current.append(item)
            used += item_size
            continue
        if current:
            parts.append({**shell, field: current})
            current, used = [], base
        if base + item_size <= room:
            current, used = [item], base + item_size
        else:
            parts.extend({**shell, field: [piece]} for piece in cut(item, room - base - 1))
    if current or not parts:
        parts.append({**shell, field: current})
    return parts


def _split_list(block: Block, field: str, room: int) -> list[Block]:
    shell = {k: v for k, v in block.items() if k != field}
    return _pack(shell, field, list(block[field]), room, split_block)


def _split_cell(cell: Block, room: int) -> list[Block]:
    shell = {k: v for k, v in cell.items() if k != "blocks"}
    return _pack(shell, "blocks", list(cell.get("blocks") or []), room, split_block)


def _split_table(table: Block, room: int) -> list[Block]:
    cells: list[Block] = table["cells"]
    rows: dict[int, list[Block]] = {}
    for cell in cells:
        rows.setdefault(int(cell.get("row", 0)), []).append(cell)
    order = sorted(rows)
    flagged = [r for r in order if all(c.get("header") for c in rows[r])]
    header_rows = flagged if flagged and flagged == order[: len(flagged)] else order[:1]
    header = [c for r in header_rows for c in rows[r]]
    shell = {k: v for k, v in table.items() if k not in ("cells", "caption")}
    shell["caption"] = []
    # A header that takes most of the room would leave too little for the rows: not repeated then.
    if size({**shell, "cells": header}) > room // 2 or len(order) <= len(header_rows):
        header, header_rows = [], []
    body_rows = [r for r in order if r not in header_rows]
    base = size({**shell, "cells": header, "part_rows": [0, 0]})
    parts: list[Block] = []
    current: list[int] = []
    used = base

    def emit(row_numbers: list[int], row_cells: list[Block]) -> None:
        parts.append({**shell, "part_rows": [row_numbers[0], row_numbers[-1]], "cells": header + row_cells})

    for r in body_rows:
        row_size = sum(size(c) + 1 for c in rows[r])
        if used + row_size <= room:
            current.append(r)
            used += row_size
            continue
        if current:
            emit(current, [c for n in current for c in rows[n]])
            current, used = [], base
        if base + row_size <= room:
            current, used = [r], base + row_size
            continue
        # One row too large: its cells in turn (with the header), a cell too large by its blocks.
        header_size = sum(size(c) + 1 for c in header)
        for piece in _pack({**shell, "part_rows": [r, r]}, "cells", rows[r], room - header_size, _split_cell):
            piece["cells"] = header + piece["cells"]
            parts.append(piece)
    if current:
        emit(current, [c for n in current for c in rows[n]])
    if table.get("caption"):
        with_caption = {**parts[0], "caption": table["caption"]}
        if size(with_caption) <= room:
            parts[0] = with_caption
        else:  # the caption goes first, alone (in parts of its own if it must)
            parts[:0] = _split_list({**shell, "cells": [], "caption": table["caption"]}, "caption", room)
    return parts


def _split_text(block: Block, field: str, room: int, *, runs: bool) -> list[Block]:
    def adjust(part: Block, start: int, end: int) -> Block:
        if runs:
            part["runs"] = _clip_runs(block.get("runs") or [], start, end)
        provenance = block.get("provenance")
        if isinstance(provenance, dict) and field == "text":
            origin = int(provenance.get("char_start", 0))
            part["provenance"] = {**provenance, "char_start": origin + start, "char_end": origin + end}
        return part

    return split_string_field(block, field, room, adjust)


def _clip_runs(runs: list[Block], start: int, end: int) -> list[Block]:
    clipped: list[Block] = []
    position = 0
    for run in runs:
        text = run.get("text", "")
        left, right = max(start, position), min(end, position + len(text))
        if left < right:
            clipped.append({**run, "text": text[left - position : right - position]})
        position += len(text)
    return clipped


__all__ = ["size", "split_block"]
