"""The HTML view: a complete, semantic HTML5 document rendered from the IR.

Every text node and attribute is escaped and stripped of characters HTML forbids; block
content (tables, figures) is never put inside ``<p>``, so a strict HTML5 parser reads the
result without a single error. Footnotes and endnotes are collected in ``<section
class="footnotes">`` / ``<section class="endnotes">`` with links both ways; page headers
and footers are included only on request (they repeat on every page of the original).

The same renderer writes the HTML fragments the Markdown view uses for tables whose
cells merge (``HtmlRenderer(notes, for_markdown=True)``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from html import escape
from operator import itemgetter

from rhwp_core.ir import (
    Block,
    Equation,
    FormControl,
    HwpDocument,
    NoteRef,
    Paragraph,
    Picture,
    Run,
    Shape,
    Table,
    TableCell,
    Unknown,
)

from ._common import (
    InlinePiece,
    NoteIndex,
    clean,
    document_title,
    form_control_shown,
    inline_pieces,
    memo_label,
    paragraph_is_empty,
    placed_cells,
    safe_url,
)
from .headings import paragraph_levels

__all__ = ["HtmlRenderer", "render_html"]

_CSS = """\
body { font-family: sans-serif; line-height: 1.5; max-width: 60rem; margin: 1rem auto; padding: 0 1rem; }
table { border-collapse: collapse; margin: 0.5rem 0; }
th, td { border: 1px solid #999; padding: 0.25rem 0.5rem; vertical-align: top; text-align: left; }
th { background: #f0f0f0; }
td > p:first-child, th > p:first-child { margin-top: 0; }
td > p:last-child, th > p:last-child { margin-bottom: 0; }
figure { margin: 0.5rem 0; }
figure img { max-width: 100%; height: auto; background: #eee; }
.shape { border: 1px dashed #bbb; padding: 0.25rem 0.75rem; margin: 0.5rem 0; }
.caption { font-size: 0.9em; color: #444; }
.equation { font-family: serif; }
section.footnotes, section.endnotes { border-top: 1px solid #ccc; margin-top: 2rem; font-size: 0.9em; }
"""


def _text(text: str) -> str:
    """Escaped text with line breaks as ``<br>``."""
    # html.escape(..., quote=False), inlined: this runs once per paragraph and table cell.
    escaped = clean(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return escaped.replace("\n", "<br>") if "\n" in escaped else escaped


def _attr(value: str) -> str:
    return escape(" ".join(clean(value).split()), quote=True)


def _formatted(run: Run) -> bool:
    return (
        run.bold
        or run.italic
        or run.underline
        or run.strike
        or run.superscript
        or run.subscript
        or run.link is not None
    )


def _px(hwpunit: int) -> int:
    """HWPUNIT (1/7200 inch) to CSS pixels (1/96 inch)."""
    return max(0, round(hwpunit / 75))


_MAX_EMPTY_ROWS = 1000
_NUMERIC_MARKER = re.compile(r"^\s*(\d{1,9})\s*[.)]?\s*$")


class HtmlRenderer:
    """Renders blocks to HTML; ``for_markdown`` writes note references as ``[^label]`` text."""

    def __init__(self, notes: NoteIndex, for_markdown: bool = False, levels: dict[int, int] | None = None) -> None:
        self.notes = notes
        self.for_markdown = for_markdown
        # Headings known by their chapter number only (rhwp_core.navigation), by id of the paragraph.
        self.levels = levels or {}
        self.out: list[str] = []
        self._ref_ids: dict[str, int] = {}

    # -- inline ---------------------------------------------------------------------------------

    def inline(self, paragraph: Paragraph) -> str:
        runs = paragraph.runs
        if not paragraph.note_refs and (not runs or not any(_formatted(run) for run in runs)):
            return _text(paragraph.text)  # the common case, kept fast
        parts: list[str] = []
        for piece in inline_pieces(paragraph, whole_words=self.for_markdown):
            if isinstance(piece, InlinePiece):
                parts.append(self._piece(piece))
            else:
                parts.append(self._note_ref(piece))
        return "".join(parts)

    def _piece(self, piece: InlinePiece) -> str:
        html = _text(piece.text)
        run = piece.run
        for on, tag in (
            (run.subscript, "sub"),
            (run.superscript, "sup"),
            (run.strike, "s"),
            (run.underline, "u"),
            (run.italic, "em"),
            (run.bold, "strong"),
        ):
            if on:
                html = f"<{tag}>{html}</{tag}>"
        url = safe_url(run.link)
        if url is not None:
            html = f'<a href="{_attr(url)}">{html}</a>'
        return html

    def _note_ref(self, ref: NoteRef) -> str:
        note = self.notes.note_for(ref)
        if note is None:
            return f'<sup class="note-ref">{ref.number}</sup>'
        if self.for_markdown:
            return f"<sup>[^{note.label}]</sup>"
        prefix = "fn" if note.kind == "footnote" else "en"
        count = self._ref_ids.get(note.label, 0) + 1
        self._ref_ids[note.label] = count
        ref_id = f"{prefix}ref-{note.label}" + (f"-{count}" if count > 1 else "")
        return (
            f'<sup class="{note.kind}-ref"><a href="#{prefix}-{note.label}" id="{ref_id}" role="doc-noteref">'
            f"{note.number}</a></sup>"
        )

    # -- blocks ---------------------------------------------------------------------------------

    def blocks(self, blocks: Sequence[Block]) -> None:
        """Render a run of sibling blocks; consecutive list paragraphs become (nested) lists."""
        open_lists: list[tuple[int, str]] = []  # (level, tag) of each open list, innermost last
        for block in blocks:
            if (
                isinstance(block, Paragraph)
                and block.list is not None
                and not block.heading_level
                and id(block) not in self.levels
            ):
                if paragraph_is_empty(block):
                    continue
                self._list_item(block, open_lists)
                continue
            if isinstance(block, Paragraph) and paragraph_is_empty(block):
                continue
            self._close_lists(open_lists, 0)
            self.block(block)
        self._close_lists(open_lists, 0)

    def _close_lists(self, open_lists: list[tuple[int, str]], level: int) -> None:
        while open_lists and open_lists[-1][0] > level:
            self.out.append(f"</li></{open_lists.pop()[1]}>")

    def _list_item(self, paragraph: Paragraph, open_lists: list[tuple[int, str]]) -> None:
        marker = paragraph.list
        assert marker is not None
        level = max(1, marker.level)
        numeric = _NUMERIC_MARKER.match(marker.marker)
        tag = "ol" if marker.kind == "number" else "ul"
        self._close_lists(open_lists, level)
        if open_lists and open_lists[-1][0] == level:
            if open_lists[-1][1] == tag:
                self.out.append("</li>")
            else:
                self.out.append(f"</li></{open_lists.pop()[1]}>")
        if not open_lists or open_lists[-1][0] < level:
            self.out.append(f"<{tag}>")
            open_lists.append((level, tag))
        attributes = f' data-marker="{_attr(marker.marker)}"' if marker.marker.strip() else ""
        shown = ""
        if tag == "ol" and numeric:
            attributes += f' value="{int(numeric.group(1))}"'
        elif tag == "ol" and marker.marker.strip():
            # A marker like `가)` or `(1)` that HTML cannot number: show it as written.
            attributes += ' style="list-style-type: none"'
            shown = f'<span class="list-marker">{_text(marker.marker)}</span> '
        self.out.append(f"<li{attributes}>{shown}{self.inline(paragraph)}")

    def block(self, block: Block) -> None:
        if isinstance(block, Paragraph):
            self.paragraph(block)
        elif isinstance(block, Table):
            self.table(block)
        elif isinstance(block, Picture):
            self.picture(block)
        elif isinstance(block, Equation):
            self.equation(block)
        elif isinstance(block, Shape):
            self.shape(block)
        elif isinstance(block, FormControl):
            state = "" if block.checked is None else f' data-checked="{"true" if block.checked else "false"}"'
            shown = _text(form_control_shown(block).strip())
            self.out.append(f'<p class="form-control" data-control="{_attr(block.control)}"{state}>{shown}</p>')
        elif isinstance(block, Unknown):
            self.unknown(block)

    def paragraph(self, paragraph: Paragraph) -> None:
        if paragraph_is_empty(paragraph):
            return
        attributes = f' data-break="{_attr(paragraph.break_before)}"' if paragraph.break_before else ""
        heading = paragraph.heading_level or self.levels.get(id(paragraph))
        if heading:
            level = min(6, max(1, heading))
            marker = paragraph.list.marker.strip() if paragraph.list is not None else ""
            number = f'<span class="list-marker">{_text(marker)}</span> ' if marker else ""
            self.out.append(f"<h{level}{attributes}>{number}{self.inline(paragraph)}</h{level}>")
        else:
            self.out.append(f"<p{attributes}>{self.inline(paragraph)}</p>")

    def _caption_inside(self, caption: Sequence[Block]) -> bool:
        """True when a caption can go in ``<caption>``/``<figcaption>`` (no tables in it)."""
        return all(isinstance(block, Paragraph) for block in caption)

    def _caption_div(self, caption: Sequence[Block]) -> None:
        if any(not (isinstance(b, Paragraph) and paragraph_is_empty(b)) for b in caption):
            self.out.append('<div class="caption">')
            self.blocks(caption)
            self.out.append("</div>")

    def table(self, table: Table, placed: list[tuple[TableCell, int, int]] | None = None) -> None:
        """``placed``: ``placed_cells(table)`` when the caller has it already."""
        self.out.append('<table class="hwp-table">')
        caption_inside = self._caption_inside(table.caption)
        if caption_inside and any(not paragraph_is_empty(b) for b in table.caption if isinstance(b, Paragraph)):
            self.out.append("<caption>")
            self.blocks(table.caption)
            self.out.append("</caption>")
        self.out.append("<tbody>")
        by_row: dict[int, list[tuple[int, TableCell]]] = {}
        for cell, row, col in placed_cells(table) if placed is None else placed:
            by_row.setdefault(row, []).append((col, cell))
        previous = -1
        for row in sorted(by_row):
            # Rows without cells of their own (covered by row spans) are kept, within reason:
            # the row numbers come from the file.
            self.out.extend(["<tr></tr>"] * min(row - previous - 1, _MAX_EMPTY_ROWS))
            previous = row
            self.out.append("<tr>")
            for _, cell in sorted(by_row[row], key=itemgetter(0)):
                self.cell(cell)
            self.out.append("</tr>")
        self.out.append("</tbody></table>")
        if not caption_inside:
            self._caption_div(table.caption)

    def cell(self, cell: TableCell) -> None:
        tag = "th" if cell.header else "td"
        attributes = ""
        if cell.row_span > 1:
            attributes += f' rowspan="{cell.row_span}"'
        if cell.col_span > 1:
            attributes += f' colspan="{cell.col_span}"'
        blocks = cell.blocks
        if len(blocks) == 1:  # the common case, without a list comprehension
            first = blocks[0]
            content = [] if isinstance(first, Paragraph) and paragraph_is_empty(first) else blocks
        else:
            content = [b for b in blocks if not (isinstance(b, Paragraph) and paragraph_is_empty(b))]
        if len(content) == 1 and isinstance(content[0], Paragraph) and content[0].list is None:
            only = content[0]
            if not only.heading_level:
                # One plain paragraph: its text goes straight into the cell, without a <p>.
                self.out.append(f"<{tag}{attributes}>{self.inline(only)}</{tag}>")
                return
        if not content:
            self.out.append(f"<{tag}{attributes}></{tag}>")
            return
        self.out.append(f"<{tag}{attributes}>")
        self.blocks(content)
        self.out.append(f"</{tag}>")

    def picture(self, picture: Picture) -> None:
        attributes = ""
        if picture.bin_data_name:
            name = _attr(picture.bin_data_name)
            url = safe_url(picture.bin_data_name)
            if url is not None:
                attributes += f' src="{_attr(url)}"'
            attributes += f' data-bin-data="{name}"'
        attributes += f' alt="{_attr(picture.description or "")}"'
        if picture.width and picture.height:
            attributes += f' width="{_px(picture.width)}" height="{_px(picture.height)}"'
        self.out.append(f'<figure class="picture"><img{attributes}>')
        if self._caption_inside(picture.caption):
            if any(isinstance(b, Paragraph) and not paragraph_is_empty(b) for b in picture.caption):
                self.out.append("<figcaption>")
                self.blocks(picture.caption)
                self.out.append("</figcaption>")
            self.out.append("</figure>")
        else:
            self.out.append("</figure>")
            self._caption_div(picture.caption)

    def equation(self, equation: Equation) -> None:
        script = " ".join(clean(equation.script).split())
        if script and equation.latex is not None:
            shown = _text(f"\\({equation.latex}\\)")
            self.out.append(
                f'<p class="equation-block"><span class="equation" data-script="{_attr(script)}">{shown}</span></p>'
            )
        elif script:
            self.out.append(f'<p class="equation-block"><span class="equation untranslated">{_text(script)}</span></p>')
        self._caption_div(equation.caption)

    def shape(self, shape: Shape) -> None:
        self.out.append(f'<div class="shape" data-shape="{_attr(shape.shape_kind)}">')
        self.blocks(shape.blocks)
        self._caption_div(shape.caption)
        self.out.append("</div>")

    def unknown(self, unknown: Unknown) -> None:
        text = clean(unknown.text or "").strip()
        body = f"<p>{_text(text)}</p>" if text else ""
        self.out.append(f'<div class="object" data-object="{_attr(unknown.object)}">{body}</div>')

    # -- furniture ------------------------------------------------------------------------------

    def notes_section(self, kind: str) -> None:
        notes = [note for note in self.notes.notes if note.kind == kind]
        if not notes:
            return
        prefix, css = ("fn", "footnotes") if kind == "footnote" else ("en", "endnotes")
        self.out.append(f'<section class="{css}" role="doc-{css}">')
        self.out.append("<ol>")
        for note in notes:
            self.out.append(f'<li id="{prefix}-{note.label}" value="{note.number}">')
            self.blocks(note.furniture.blocks)
            if note.label in self._ref_ids:
                self.out.append(f'<a href="#{prefix}ref-{note.label}" class="{kind}-back" role="doc-backlink">↩</a>')
            self.out.append("</li>")
        self.out.append("</ol>")
        self.out.append("</section>")

    def page_furniture(self, doc: HwpDocument, kind: str) -> None:
        """Each distinct page header (or footer) once, in document order."""
        seen: set[str] = set()
        tag = "header" if kind == "header" else "footer"
        for furniture in doc.furniture:
            if furniture.kind != kind:
                continue
            inner = HtmlRenderer(self.notes)
            inner.blocks(furniture.blocks)
            html = "\n".join(inner.out)
            if not html or html in seen:
                continue
            seen.add(html)
            applies = f' data-applies-to="{_attr(furniture.applies_to)}"' if furniture.applies_to else ""
            self.out.append(f'<{tag} class="page-{kind}"{applies}>')
            self.out.append(html)
            self.out.append(f"</{tag}>")


def render_html(
    doc: HwpDocument,
    include_css: bool = False,
    include_furniture: bool = False,
    levels: Sequence[int | None] | None = None,
) -> str:
    """A complete HTML5 document for ``doc``; ``include_furniture`` adds page headers/footers;
    ``levels`` as for ``render_markdown``."""
    renderer = HtmlRenderer(NoteIndex(doc), levels=paragraph_levels(doc, levels))
    out = renderer.out
    out.append("<!DOCTYPE html>")
    out.append('<html lang="ko">')
    out.append("<head>")
    out.append('<meta charset="utf-8">')
    out.append(f"<title>{_text(document_title(doc))}</title>")
    if doc.metadata.author and clean(doc.metadata.author).strip():
        out.append(f'<meta name="author" content="{_attr(doc.metadata.author)}">')
    out.append('<meta name="generator" content="rhwp-core">')
    if include_css:
        out.append(f"<style>\n{_CSS}</style>")
    out.append("</head>")
    out.append("<body>")
    if include_furniture:
        renderer.page_furniture(doc, "header")
    out.append("<main>")
    for section in doc.sections:
        out.append(f'<section class="hwp-section" data-section="{section.index}">')
        renderer.blocks(section.blocks)
        out.append("</section>")
    out.append("</main>")
    if include_furniture:
        renderer.page_furniture(doc, "footer")
    renderer.notes_section("footnote")
    renderer.notes_section("endnote")
    for memo in doc.furniture:
        if memo.kind == "memo":
            out.append(f'<aside class="memo" role="note"><p class="memo-label">{_text(memo_label(memo))}</p>')
            renderer.blocks(memo.blocks)
            out.append("</aside>")
    out.append("</body>")
    out.append("</html>")
    return "\n".join(out) + "\n"
