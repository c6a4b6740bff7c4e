"""``parse`` and ``Document``: the Python face of the native reader.

``parse()`` reads and builds the native model, nothing more. Text and the summary
are computed natively; the Pydantic IR is built only when ``to_ir()`` asks for it
(once per document, then kept), and the views render from that IR.
"""

from __future__ import annotations

import functools
import gc
import json
import os
import threading
import weakref
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Literal, overload

from typing_extensions import TypedDict

from . import _native
from .errors import HwpError, InvalidRequestError, from_native, opening
from .navigation import (
    BlockText,
    Heading,
    Place,
    block_plain_text,
    block_spans,
    furniture_on_pages,
    heading_paths,
    outline,
    parse_pages,
    path_at,
    places,
    shown_heading,
    table_part,
)

if TYPE_CHECKING:
    from .forms import FormEntry
    from .ir import Block, HwpDocument

Scope = Literal["body", "furniture", "all"]

# What a page with nothing printed on it answers (a page break's empty page), never nothing.
BLANK_PAGE = "[blank page]"


__all__ = ["BlockText", "Document", "Scope", "parse"]


def _native_parse(
    source: str | os.PathLike[str] | bytes, strict: bool, password: str | None = None
) -> _native.NativeDocument:
    try:
        if isinstance(source, (bytes, bytearray, memoryview)):
            return _native.parse_bytes(bytes(source), strict, password)
        path = os.fspath(source)
        with opening(path):
            return _native.parse_path(path, strict, password)
    except _native.ReaderError as e:
        code, message, suggestion = e.args
        raise from_native(code, message, suggestion) from None


class _cyclic_gc_paused:
    """Pause Python's cyclic GC while the IR is built or rendered.

    The IR is a tree of many small objects (a 200-page report: about a million), none in a cycle,
    and rendering allocates as many temporaries. Letting the cyclic collector rescan the young IR
    again and again meanwhile costs several times the work itself (2 s instead of 0.4 s for the
    largest corpus document); reference counting frees everything all the same. (A class, not a
    generator-based context manager, named and used like one: this runs twice per small document,
    where microseconds count.)
    """

    __slots__ = ("_enabled",)

    def __enter__(self) -> None:
        self._enabled = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc_info: object) -> None:
        if self._enabled:
            gc.enable()


@functools.cache
def _native_ir_classes() -> _native.IrClasses:
    """The IR classes, prepared once for the native builder."""
    from .ir import MODEL_CLASSES

    return _native.IrClasses({name: (model, tuple(model.model_fields)) for name, model in MODEL_CLASSES.items()})


_PROBE_SECTION = (
    '<hs:sec xmlns:hs="http://www.hancom.co.kr/hwpml/2011/section"'
    ' xmlns:hp="http://www.hancom.co.kr/hwpml/2011/paragraph">'
    "<hp:p><hp:run><hp:t>probe</hp:t></hp:run>"
    '<hp:run><hp:tbl rowCnt="1" colCnt="1"><hp:tr><hp:tc><hp:subList>'
    "<hp:p><hp:run><hp:t>cell</hp:t></hp:run></hp:p>"
    '</hp:subList><hp:cellAddr colAddr="0" rowAddr="0"/></hp:tc></hp:tr></hp:tbl></hp:run></hp:p>'
    "</hs:sec>"
)


@functools.cache
def _native_builder_agrees() -> bool:
    """Whether the native IR builder makes what Pydantic makes, checked once per process.

    The builder sets the attributes pydantic-core sets after validating (``__dict__``,
    ``__pydantic_fields_set__``, ...). The test suite compares both builds on every corpus
    document; this guards installations with a Pydantic release that stores models otherwise:
    a small document is built both ways, and any difference turns the native builder off.
    """
    import io
    import zipfile

    from .ir import HwpDocument

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as package:
        package.writestr("mimetype", "application/hwp+zip")
        package.writestr("Contents/section0.xml", _PROBE_SECTION)
    try:
        native = _native_parse(buffer.getvalue(), False)
        built = native.to_ir(_native_ir_classes())
        validated = HwpDocument.model_validate_json(native.to_json())
        return (
            built is not None
            and type(built) is type(validated)
            and built == validated
            and built.model_dump_json() == validated.model_dump_json()
        )
    except Exception:
        return False


_IR_KEEP = max(1, int(os.environ.get("RHWP_IR_KEEP", "2")))
_ir_holders: OrderedDict[int, weakref.ref[Document]] = OrderedDict()
_ir_holders_lock = threading.Lock()


def _keep_ir_of(doc: Document) -> None:
    """Mark ``doc``'s IR as most recently used; drop the IRs of documents beyond ``_IR_KEEP``."""
    with _ir_holders_lock:
        _ir_holders[id(doc)] = weakref.ref(doc)
        _ir_holders.move_to_end(id(doc))
        evicted = []
        while len(_ir_holders) > _IR_KEEP:
            evicted.append(_ir_holders.popitem(last=False)[1]())
    for old in evicted:
        if old is not None and old is not doc:
            # A caller still using that IR keeps its own reference; the document rebuilds on demand.
            old._ir = None


class DocumentSummary(TypedDict):
    # What Document.summary() answers, key by key in its order: format, counts, metadata, page
    # count, warnings. The core pack's parse_hwp_summary returns it with the outline added, so the
    # shape is said here once. (No docstring: a TypedDict's becomes its JSON Schema description.)
    format: str
    version: str
    schema_version: str
    sections: int
    paragraphs: int
    tables: int
    pictures: int
    equations: int
    shapes: int
    form_controls: int
    fields: int
    other_objects: int
    characters: int
    # Private-use code points left in the text (body, furniture, list markers): Hancom symbols
    # or old Hangul without a known mapping to what 한글 draws, kept as stored.
    private_use_left: int
    headers: int
    footers: int
    footnotes: int
    endnotes: int
    memos: int
    pages: int | None
    compressed: bool
    distribution: bool
    title: str | None
    subject: str | None
    author: str | None
    keywords: str | None
    created: str | None
    modified: str | None
    bin_data: int
    warnings: list[str]
    rhwp_core_version: str


class Document:
    """A parsed HWP or HWPX document. Immutable; safe to share between threads."""

    __slots__ = (
        "__weakref__",
        "_forms",
        "_heading_paths",
        "_ir",
        "_ir_lock",
        "_markdown",
        "_native",
        "_outline",
        "_pages",
        "_places",
        "_source",
        "_spans",
        "_texts",
    )

    def __init__(self, native: _native.NativeDocument) -> None:
        self._native = native
        self._ir_lock = threading.Lock()
        self._ir: HwpDocument | None = None
        # The text is small next to the model and asked for again and again while an agent pages.
        self._texts: dict[bool, str] = {}
        # The body's Markdown with each top-level block's start in it (the outline points into it).
        self._markdown: tuple[str, list[int | None]] | None = None
        self._outline: list[Heading] | None = None
        self._places: dict[bool, list[Place]] = {}
        self._pages: tuple[int | None] | None = None
        self._forms: list[FormEntry] | None = None
        self._heading_paths: list[list[str]] | None = None
        # What it was read from (the bytes, or the path), for the layout pass of render_page.
        self._source: bytes | str | None = None
        self._spans: list[tuple[int, int]] | None = None

    @property
    def format(self) -> Literal["hwp", "hwpx", "hwp3", "hwpml"]:
        return self._native.format  # type: ignore[return-value]

    @property
    def warnings(self) -> list[str]:
        """What lenient reading skipped or repaired."""
        return self._native.warnings

    @property
    def page_count(self) -> int | None:
        """Pages as last laid out by the authoring program; None when the file stores no layout."""
        if self._pages is None:
            self._pages = (json.loads(self._native.summary_json()).get("pages"),)
        return self._pages[0]

    @overload
    def render_page(
        self,
        page: int,
        format: Literal["svg"] = "svg",
        dpi: int = 96,
        max_side: int | None = None,
        font_dirs: Sequence[str | os.PathLike[str]] = (),
        *,
        password: str | None = None,
    ) -> str: ...
    @overload
    def render_page(
        self,
        page: int,
        format: Literal["png"],
        dpi: int = 96,
        max_side: int | None = None,
        font_dirs: Sequence[str | os.PathLike[str]] = (),
        *,
        password: str | None = None,
    ) -> bytes: ...
    def render_page(
        self,
        page: int,
        format: Literal["svg", "png"] = "svg",
        dpi: int = 96,
        max_side: int | None = None,
        font_dirs: Sequence[str | os.PathLike[str]] = (),
        *,
        password: str | None = None,
    ) -> str | bytes:
        """Page ``page`` (1-based) as 한글 last laid it out: SVG text (text kept as text, every
        character at its position; size in mm) or PNG bytes (``dpi``; the longer side at most
        ``max_side`` pixels). Drawn with the fonts in ``font_dirs`` (files or folders; the render
        pack passes its shipped Nanum fonts and ``RHWP_FONT_DIR``). The layout is read again from
        the document's source (its bytes, or the file at its path), with ``password`` for a
        protected one (the document keeps no password).

        Raises ``InvalidRequestError`` for a page outside the document (naming the pages there
        are), a bad ``format``/``dpi``/``max_side``, or a document that stores no line layout
        (written by a program, never laid out by 한글: its pages are not known); HWP 3.x and
        HWPML pages are not laid out yet (``UnsupportedFormatError``); ``TooLargeError`` for a
        page or image beyond the bounds.
        """
        if format not in ("svg", "png"):
            raise InvalidRequestError(f"format {format!r} is not 'svg' or 'png'", "Pass format='svg' or format='png'.")
        if isinstance(page, bool) or not isinstance(page, int) or page < 1:
            raise InvalidRequestError(f"page {page!r} is not a page number", "Pages are numbered from 1.")
        if not 1 <= dpi <= 2400:
            raise InvalidRequestError(f"dpi {dpi} is outside 1..2400", "Pass a dpi such as 96 or 150.")
        if max_side is not None and max_side < 1:
            raise InvalidRequestError(f"max_side {max_side} is not a size", "Pass max_side=None or a positive size.")
        if self._source is None:
            raise InvalidRequestError(
                "this Document was not made by rhwp_core.parse, so its source is not known",
                "Parse the document with rhwp_core.parse(path or bytes) and render from that.",
            )
        dirs = [os.fspath(d) for d in font_dirs]
        try:
            data, _count = _native.render_page(self._source, page, format, dpi, max_side, dirs, password)
        except _native.ReaderError as e:
            code, message, suggestion = e.args[:3]
            raise from_native(code, message, suggestion) from None
        except FileNotFoundError as e:
            raise from_native(
                "invalid_input",
                f"the file this document was read from is gone: {e.filename}",
                "Parse the document again.",
            ) from None
        return data.decode("utf-8") if format == "svg" else data

    def extract_text(self, include_furniture: bool = True, pages: str | None = None) -> str:
        """All the text the document shows: the body in reading order, then headers/footers and notes.

        ``pages`` (``"3"``, ``"3-5"``, ``"1,4-6"``) keeps what is printed on those pages: the body's
        blocks that start there and the rows there of a table running through them (after a line
        saying which rows), then the distinct headers/footers and the notes of those pages. Pages
        that print a picture and no text say ``[picture]``; pages with nothing on them
        ``[blank page]``, never nothing.
        """
        if pages is not None:
            units = self.block_texts(include_furniture, pages=pages)
            body = [u.text for u in units if u.scope == "body" and u.text]
            if not body:
                # A page printed with a picture (or a drawing) and no text says so, not nothing;
                # one where nothing starts or runs through (only empty lines, or a page break's
                # blank page, as the stored layout has it) says it is blank.
                body = [self._page_note([u.block for u in units if u.scope == "body"])]
            furniture = dict.fromkeys(u.text for u in units if u.scope != "body" and u.text)
            return "\n".join(body + list(furniture))

        text = self._texts.get(include_furniture)
        if text is None:
            text = self._texts[include_furniture] = self._native.extract_text(include_furniture)
        return text

    def block_texts(self, include_furniture: bool = False, pages: str | None = None) -> list[BlockText]:
        """The plain text of each top-level block in reading order, with its provenance.

        Body blocks first, then (with ``include_furniture``) headers, footers and notes; the same
        order and text as ``extract_text`` before its header/footer de-duplication. With ``pages``,
        the blocks laid out on those pages (a block without a page of its own is on its
        predecessor's, so single pages add up to the whole).
        """
        rows = self._native.block_texts(include_furniture)
        body = sum(1 for row in rows if row[0] == "body")
        units = [BlockText(*row, block=i if i < body else i - body) for i, row in enumerate(rows)]
        if pages is None:
            return units

        wanted = parse_pages(pages, self.page_count)
        kept: list[BlockText] = []
        for u, (first, last) in zip(units[:body], self._body_spans(), strict=True):
            on = self._pages_of(first, last, wanted)
            if on is None:
                continue
            if len(on) < last - first + 1:
                part, said = self._table_part(u.block, on, first, last)
                u = u._replace(text="\n".join(t for t in (said, block_plain_text(part)) if t))
            kept.append(u)
        if include_furniture:
            printed = furniture_on_pages(self._native.block_pages()[1], wanted)
            kept.extend(u for u, shown in zip(units[body:], printed, strict=True) if shown)
        return kept

    def _body_spans(self) -> list[tuple[int, int]]:
        """Each top-level body block's first and last page (``navigation.block_spans``)."""
        if self._spans is None:
            firsts = (page for _, page in self._native.block_pages()[0])
            self._spans = block_spans(firsts, self._native.block_last_pages())
        return self._spans

    @staticmethod
    def _pages_of(first: int, last: int, wanted: frozenset[int]) -> frozenset[int] | None:
        """The wanted pages a block laid out from ``first`` to ``last`` is on; None when none."""
        if first == last:
            return frozenset((first,)) if first in wanted else None
        on = frozenset(p for p in wanted if first <= p <= last)
        return on or None

    def _table_part(self, block: int, on: frozenset[int], first: int, last: int) -> tuple[Block, str]:
        """The part of top-level body block ``block`` (a table running over pages) on pages ``on``."""
        found = [b for section in self.to_ir().sections for b in section.blocks][block]
        if found.kind != "table":
            return found, ""
        return table_part(found, on, first, last)

    def outline(self) -> list[Heading]:
        """The headings in reading order, each with its level, text, top-level block index, page,
        and where it starts in ``extract_text()`` and in ``to_markdown()`` (see rhwp_core.navigation)."""
        if self._outline is None:
            self._outline = outline(self._native.outline_headings(), self.places())
        return self._outline

    def heading_paths(self) -> list[list[str]]:
        """For each top-level body block, the headings it sits under, outermost first (itself last
        when it is one), as the outline writes them: what a chunk carries as ``headings``. Needs
        neither the IR nor the Markdown (the chunks of an archive pay only for the headings)."""
        if self._heading_paths is None:
            texts = [u.text for u in self.block_texts() if u.scope == "body"]
            found = [
                (block, level, shown_heading(line if line is not None else texts[block]))
                for block, level, line in self._native.outline_headings()
                if (line if line is not None else texts[block]).strip()
            ]
            blocks, paths = heading_paths(found)
            self._heading_paths = [path_at(blocks, paths, i) for i in range(len(texts))]
        return self._heading_paths

    def form_entries(self) -> list[FormEntry]:
        """Every field, named cell, form control and memo, in reading order (memos last), each with
        its addresses (see rhwp_core.forms). Computed once per document."""
        if self._forms is None:
            from .forms import form_entries

            self._forms = form_entries(self)
        return self._forms

    def places(self, include_furniture: bool = False) -> list[Place]:
        """Where each top-level block shows in ``extract_text()`` and ``to_markdown()`` (default
        arguments), with its ``iter_blocks`` index and page: the body's blocks in reading order,
        then (with ``include_furniture``) the furniture's (see rhwp_core.navigation.places).
        The outline and the search pack address blocks through these."""
        found = self._places.get(include_furniture)
        if found is None:
            _, starts = self._body_markdown()
            ir = self.to_ir() if include_furniture else None
            found = self._places[include_furniture] = places(self.block_texts(include_furniture), starts, ir)
        return found

    def summary(self) -> DocumentSummary:
        """Format, counts, metadata, page count and warnings, plus ``rhwp_core_version``."""
        from . import __version__

        data: DocumentSummary = json.loads(self._native.summary_json())
        data["rhwp_core_version"] = __version__
        return data

    def to_json(self) -> str:
        """The IR as a JSON string (``HwpDocument.model_validate_json`` of it equals ``to_ir()``)."""
        return self._native.to_json()

    def to_ir(self) -> HwpDocument:
        """The typed, frozen Pydantic IR (built on first call, then reused).

        The IR takes several times the memory of the native model, so only the IRs of the
        most recently used documents are kept (``RHWP_IR_KEEP``, default 2); an older
        document builds its IR again when asked.
        """
        with self._ir_lock:
            ir = self._ir
            if ir is None:
                with _cyclic_gc_paused():
                    ir = self._native.to_ir(_native_ir_classes()) if _native_builder_agrees() else None
                    if ir is None:
                        # Only when ir.py and model.rs disagree (the tests make sure they do not),
                        # or this Pydantic stores models otherwise: the JSON + validation path
                        # gives the same IR, slower.
                        from .ir import HwpDocument

                        ir = HwpDocument.model_validate_json(self._native.to_json())
                self._ir = ir
        _keep_ir_of(self)
        return ir

    def iter_blocks(self, kind: str | None = None, scope: Scope = "body", pages: str | None = None) -> Iterator[Block]:
        """Blocks in reading order, optionally of one ``kind``; ``scope`` picks body, furniture or both.

        Top-level blocks are yielded; with ``kind`` set, blocks of that kind nested in tables and
        shapes are yielded too (a table inside a cell is still a table). ``pages`` keeps what lies
        in the top-level blocks laid out on those pages.
        """
        from .ir import iter_blocks

        return iter_blocks(self._ir_of_pages(pages), kind=kind, scope=scope)

    def _ir_of_pages(self, pages: str | None) -> HwpDocument:
        """The IR, or with ``pages`` a copy holding only the top-level blocks on those pages."""
        ir = self.to_ir()
        if pages is None:
            return ir

        wanted = parse_pages(pages, self.page_count)
        body = [b for section in ir.sections for b in section.blocks]
        # Each block on those pages, or the part of a table running through them (its rows there).
        keep: dict[int, Block] = {}
        for b, (first, last) in zip(body, self._body_spans(), strict=True):
            on = self._pages_of(first, last, wanted)
            if on is not None:
                partial = len(on) < last - first + 1
                keep[id(b)] = table_part(b, on, first, last)[0] if partial and b.kind == "table" else b
        printed = furniture_on_pages([(f.kind, f.applies_to, f.provenance.page) for f in ir.furniture], wanted)
        sections = [
            section.model_copy(update={"blocks": [keep[id(b)] for b in section.blocks if id(b) in keep]})
            for section in ir.sections
        ]
        furniture = [f for f, shown in zip(ir.furniture, printed, strict=True) if shown]
        return ir.model_copy(update={"sections": sections, "furniture": furniture})

    def _selection(self, pages: str) -> tuple[list[int], list[int]]:
        """What ``_ir_of_pages(pages)`` keeps, as indices: the top-level body blocks (reading order
        over all sections) on those pages or running through them (a table; the native views cut it
        to its rows there when given the pages) and the furniture items on those pages."""

        wanted = parse_pages(pages, self.page_count)
        _, furniture = self._native.block_pages()
        return (
            [i for i, (first, last) in enumerate(self._body_spans()) if self._pages_of(first, last, wanted)],
            [i for i, keep in enumerate(furniture_on_pages(furniture, wanted)) if keep],
        )

    def _table_markdown(self, pages: str | None) -> list[str]:
        """Markdown of every top-level body table (on ``pages``), in reading order, each labelled
        as in the whole document's view (``views.markdown.render_block_markdown``), natively."""
        kinds = [kind for kind, _ in self._native.block_pages()[0]]
        if pages is None:
            return self._native.block_markdown([i for i in range(len(kinds)) if kinds[i] == "table"])
        indices = self._selection(pages)[0]
        wanted = sorted(parse_pages(pages, self.page_count))
        return self._native.block_markdown([i for i in indices if kinds[i] == "table"], wanted)

    def _body_markdown(self) -> tuple[str, list[int | None]]:
        if self._markdown is None:
            # Rendered natively from the model (rhwp_reader::views): the same text as
            # views.markdown.render_markdown over the IR (tests/test_views_native.py compares them
            # on every corpus document and fixture), without building the IR.
            self._markdown = self._native.to_markdown(False)
        return self._markdown

    def to_markdown(self, include_furniture: bool = False, pages: str | None = None) -> str:
        """Markdown (GFM): headings, lists, tables, footnotes, image references."""
        if pages is None:
            if not include_furniture:
                return self._body_markdown()[0]
            return self._native.to_markdown(True)[0]
        # Pages: rendered natively from the model cut to those pages, as the Python view over
        # `_ir_of_pages(pages)` (tests/test_views_native.py compares them).
        wanted = sorted(parse_pages(pages, self.page_count))
        selection = self._selection(pages)
        markdown = self._native.to_markdown(include_furniture, selection, wanted)[0]
        if not selection[0] or not markdown.strip():
            # Nothing of the body shows there as Markdown: say what is printed (a picture, a
            # drawing) or that the page is blank, as extract_text does, rather than nothing.
            markdown = (
                f"{self._page_note(selection[0])}\n\n{markdown}" if markdown else f"{self._page_note(selection[0])}\n"
            )
        return markdown

    def to_html(self, include_css: bool = False, include_furniture: bool = False, pages: str | None = None) -> str:
        """A complete, valid HTML5 document."""
        if pages is None:
            # Rendered natively from the model (rhwp_reader::views): the same text as
            # views.html.render_html over the IR (tests/test_views_native.py compares them on
            # every corpus document and fixture), without building the IR.
            return self._native.to_html(include_css, include_furniture)
        # Pages: as for to_markdown.
        wanted = sorted(parse_pages(pages, self.page_count))
        selection = self._selection(pages)
        html = self._native.to_html(include_css, include_furniture, selection, wanted)
        if not selection[0]:
            html = html.replace("<main>\n", f'<main>\n<p class="hwp-blank-page">{BLANK_PAGE}</p>\n', 1)
        return html

    def _page_note(self, blocks: list[int]) -> str:
        """What a page shows when none of its ``blocks`` (top-level body indices) has text: the
        kinds of object printed there (``[picture]``), or that it is blank."""
        kinds = self._native.block_pages()[0]
        shown = dict.fromkeys(f"[{kinds[i][0].replace('_', ' ')}]" for i in blocks if kinds[i][0] != "paragraph")
        return "\n".join(shown) or BLANK_PAGE


def parse(source: str | os.PathLike[str] | bytes, password: str | None = None, *, strict: bool = False) -> Document:
    """Read an HWP 5.0 or HWPX document from a path or from bytes.

    The format is sniffed from the bytes, not the file name. ``strict=True`` turns the
    first damaged part into an error instead of a warning. ``password`` opens a
    password-protected document (HWPX, HWP 5.0 as current 한글 writes it, HWP 3.x); it is
    ignored by documents without one, kept nowhere, and quoted by no error. Without it, or
    with a wrong one, a protected document raises ``PasswordRequiredError``.
    Raises ``HwpError`` subclasses (with ``.code`` and ``.suggestion``), or
    ``FileNotFoundError``/``PermissionError`` subclasses carrying the same attributes.
    """
    if isinstance(source, str) and source.startswith("file://"):
        from urllib.parse import unquote, urlparse

        source = unquote(urlparse(source).path)
    doc = Document(_native_parse(source, strict, password))
    doc._source = bytes(source) if isinstance(source, (bytes, bytearray, memoryview)) else os.fspath(source)
    return doc


# Re-exported so ``HwpError`` is reachable from this module's namespace in tracebacks.
_ = HwpError
