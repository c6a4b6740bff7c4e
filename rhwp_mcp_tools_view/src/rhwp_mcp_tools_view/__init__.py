"""Tool pack ``view``: an HWP/HWPX document as Markdown or as HTML.

Both views render from the IR (``rhwp_core.views``); a rendered view is kept per document
and option set, so paging through a long document renders it once.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Annotated

from pydantic import Field

from rhwp_mcp_host import (
    FilePath,
    MaxChars,
    Offset,
    Pages,
    Register,
    current_password,
    hookimpl,
    next_call_of,
    page_text,
)

if TYPE_CHECKING:
    from rhwp_core import Document


def _load(path: str) -> Document:
    import rhwp_core

    # The password the caller gave (the host takes it out of the arguments), if any.
    return rhwp_core.load(path, password=current_password())


_FURNITURE = (
    "Also render the page headers and footers, each distinct one once: headers before the body, footers "
    "after it (with pages, the ones printed on those pages). Foot- and endnotes are always included."
)


# Keyed on the Document object: rhwp_core.load returns the same object while the file is unchanged.
@functools.lru_cache(maxsize=8)
def _markdown(doc: Document, include_furniture: bool, pages: str | None) -> str:
    return doc.to_markdown(include_furniture=include_furniture, pages=pages)


@functools.lru_cache(maxsize=8)
def _html(doc: Document, include_css: bool, include_furniture: bool, pages: str | None) -> str:
    return doc.to_html(include_css=include_css, include_furniture=include_furniture, pages=pages)


def to_markdown(
    path: FilePath,
    include_furniture: Annotated[bool, Field(description=_FURNITURE)] = False,
    offset: Offset = 0,
    max_chars: MaxChars = None,
    pages: Pages = None,
) -> str:
    """An HWP/HWPX document as Markdown (GFM): headings, bulleted and numbered lists, bold/italic/links,
    tables (pipe tables when the grid is simple, inline HTML tables when cells merge), footnotes as
    [^n], pictures as image references, equations as $...$. The best view for an LLM to read a document
    with its structure.

    Somewhat longer than the plain text. Long documents come in pages: a cut page ends with a line
    `[cut at N of TOTAL characters; next: ...]` giving the exact next call. `pages` renders what lies
    on those pages; `offset` may be an outline entry's markdown_offset (see parse_hwp_summary).
    """
    text = _markdown(_load(path), include_furniture, pages)

    next_call = next_call_of(
        to_markdown, path=path, include_furniture=include_furniture, pages=pages, max_chars=max_chars
    )
    return page_text(text, offset, max_chars, next_call=next_call)


def to_html(
    path: FilePath,
    include_css: Annotated[bool, Field(description="Add a small stylesheet that makes tables readable.")] = False,
    include_furniture: Annotated[bool, Field(description=_FURNITURE)] = False,
    offset: Offset = 0,
    max_chars: MaxChars = None,
    pages: Pages = None,
) -> str:
    """An HWP/HWPX document as a complete HTML5 page (lang="ko", UTF-8): semantic headings, paragraphs,
    lists, tables with rowspan/colspan, a footnotes section, figures naming their bin data. For showing
    a document to a person or feeding an HTML-aware pipeline; for reading, to_markdown is shorter.

    Long documents come in pages (a page is a slice of the HTML source); a cut page ends with a line
    `[cut at N of TOTAL characters; next: ...]` giving the exact next call.
    """
    text = _html(_load(path), include_css, include_furniture, pages)

    next_call = next_call_of(
        to_html,
        path=path,
        include_css=include_css,
        include_furniture=include_furniture,
        pages=pages,
        max_chars=max_chars,
    )
    return page_text(text, offset, max_chars, next_call=next_call)


@hookimpl
def rhwp_mcp_register_tools(register: Register) -> None:
    register(to_markdown, title="Render an HWP/HWPX document as Markdown")
    register(to_html, title="Render an HWP/HWPX document as HTML")
