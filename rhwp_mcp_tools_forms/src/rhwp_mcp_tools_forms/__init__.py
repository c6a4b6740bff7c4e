"""Tool pack ``forms``: what a form says.

``get_fields`` lists a document's click-here fields (누름틀: name, guide text, value), its other
fields (date, cross-reference, mail merge, formula, bookmark, ...), its named table cells, its
form controls (checkbox, radio button, combo/list/edit box, button: name, caption, value, ticked
or not) and its memos (a reviewer's note: author, text, the words it is attached to) -- everything
an agent needs to read a filled form as name/value pairs, or to tell what a blank one asks for.
Each entry has the addresses the other tools take (``block``, ``page``, ``text_offset``).

The list and the shape of its entries are ``rhwp_core``'s (``Document.form_entries()``, computed
once per document and kept while the file is unchanged; ``rhwp_core.forms.FormEntry``); this pack
filters and pages it.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field
from rhwp_core.forms import FormEntry, KindFilter, select
from rhwp_core.navigation import parse_pages
from typing_extensions import TypedDict

import rhwp_core
from rhwp_mcp_host import FilePath, Pages, Register, current_password, hookimpl, page_list


class FieldsResult(TypedDict):
    fields: list[FormEntry]
    total: int
    next_offset: int | None


def get_fields(
    path: FilePath,
    kind: Annotated[
        KindFilter | None,
        Field(
            description="Only entries of this kind: a field kind (click_here, date, ...), cell, a control "
            "kind (checkbox, radio, ...), memo; or field / form_control for all of those."
        ),
    ] = None,
    name: Annotated[
        str | None, Field(max_length=1000, description="Only entries with exactly this name (e.g. 성명).")
    ] = None,
    pages: Pages = None,
    offset: Annotated[int, Field(ge=0, description="Where to start: 0, or the next_offset of a previous page.")] = 0,
    limit: Annotated[int, Field(ge=1, le=500, description="At most this many entries.")] = 100,
) -> FieldsResult:
    """What a form says: {fields, total, next_offset}, in reading order (memos last). Each entry:
    `kind` (click_here 누름틀, date, cross_reference, mail_merge, formula, bookmark, ...; `cell` for a
    named table cell; checkbox, radio, combo_box, list_box, edit, button; `memo`), `name`, `value`
    (what is filled in: "" for an empty click-here field; a cell's text; a memo's note), `guide`
    (the instruction an empty click-here field shows), `caption` and `checked` (a checkbox: ticked
    or not), `options`, `editable`, `anchor` and `date` (a memo: the words it is attached to),
    and where it is: `scope` (body, furniture: a header/footer/note, annotation: a memo), `block`
    (iter_blocks(scope=scope, offset=block)), `page`, `text_offset`
    (extract_text(offset=...)) and `cell` (the table cell it sits in: row, col, name).

    Read a filled form as name/value pairs, or see what a blank one asks for; kind="checkbox" for
    the boxes and their state, name="성명" for one field, pages="2" for one page.
    """
    doc = rhwp_core.load(path, password=current_password())
    wanted = None if pages is None else parse_pages(pages, doc.page_count)
    entries = list(select(doc.form_entries(), kind=kind, name=name, pages=wanted))
    return page_list(entries, offset, limit, key="fields")  # type: ignore[return-value]


@hookimpl
def rhwp_mcp_register_tools(register: Register) -> None:
    register(get_fields, title="Read the fields of an HWP/HWPX form")
