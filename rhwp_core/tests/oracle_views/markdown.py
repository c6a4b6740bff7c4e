r"""The Markdown view (CommonMark + GFM tables and footnotes) rendered from the IR.

- Headings from ``heading_level``; lists from ``Paragraph.list`` (``-`` for bullets, the
  document's own number for ``1.``/``1)`` markers, other markers such as ``가)`` kept as text),
  nested by level.
- Runs as ``**bold**``, ``*italic*``, ``~~strike~~``, ``<sup>``/``<sub>`` and ``[links](url)``;
  where CommonMark's flanking rules would not take a delimiter (e.g. ``**(주)**`` between
  letters) the HTML tag is written instead. Underline has no Markdown form and is dropped.
- Tables: GFM pipe tables when the grid is simple (no merged cells, one paragraph per cell);
  otherwise an HTML ``<table>`` with rowspan/colspan, whose cells are escaped HTML.
- Foot/endnotes: ``[^1]`` / ``[^e1]`` at the reference, definitions at the end.
- Pictures: ``![description](BIN0001.png "width × height mm")``; equations: ``$LaTeX$``
  (``$$LaTeX$$`` alone in their paragraph), the script as it is when it does not translate; text
  boxes and shapes: blockquotes.
- Page headers/footers only with ``include_furniture`` (headers first, footers last).

Text is escaped so that it renders literally, however hostile: no raw HTML, link, emphasis,
list, heading or table syntax can come from the document's own characters. Everywhere:
``\ ` * _ [ ] < | ~ $`` and ``&`` before an entity name; at the start of a line: ``# > + - =``,
``1.``/``1)`` and ``[^1]:``; leading indentation is dropped (it would start a code block).
``!`` and a mid-line ``>`` are left alone: with ``[`` and ``<`` escaped they cannot act.
Formatting that changes inside a word is reduced to what both sides share, so markup never
splits a word (the text stays searchable).
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Sequence

from rhwp_core.ir import (
    Block,
    Equation,
    FormControl,
    HwpDocument,
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
    form_control_shown,
    inline_pieces,
    memo_label,
    paragraph_is_empty,
    placed_cells,
    safe_url,
)
from .headings import paragraph_levels
from .html import HtmlRenderer

__all__ = ["render_block_markdown", "render_markdown"]

# Escaped wherever they appear: they can open code, emphasis, links, HTML, tables, strikethrough, math.
# (A regex with a callback beats str.translate here: most text has none of them.)
_ALWAYS = re.compile(r"[\\`*_\[\]<|~$]")
_ENTITY = re.compile(r"&(?=#?[0-9A-Za-z]+;)")  # `&amp;` would otherwise render as `&`
# At the start of a line: headings, block quotes, list markers, setext underlines, ordered lists,
# and a footnote reference followed by `:` (it would read as a footnote definition).
_LINE_START = re.compile(r"^(?:([#>+=-])|(\d{1,9})[.)]|(\[\^[^\]]*\]):)")


_NOT_IN_OBJECT_NAME = re.compile(r"[^\w .:-]")
_NUMBER_MARKER = re.compile(r"(\d{1,9})([.)])")  # a list marker Markdown can number itself: `1.`, `1)`


def _stands_alone(blocks: Sequence[Block], index: int) -> bool:
    """The model keeps an equation as a block after the paragraph that anchors it: it stands alone
    when that paragraph (same section and paragraph, past the other objects it anchors) is missing
    or blank."""
    at = blocks[index].provenance
    for block in reversed(blocks[:index]):
        p = block.provenance
        if (p.section, p.paragraph) != (at.section, at.paragraph):
            return True
        if isinstance(block, Paragraph):
            return paragraph_is_empty(block)
    return True


def _backslashed(match: re.Match[str]) -> str:
    return "\\" + match.group()


def _escape(text: str) -> str:
    text = _ALWAYS.sub(_backslashed, clean(text))
    return _ENTITY.sub(r"\\&", text) if "&" in text else text


def _escape_line_start(line: str) -> str:
    first = line[:1]
    if not first or (first not in "#>+=-[" and not first.isdecimal()):
        return line  # most lines: none of what _LINE_START matches first (`\d` is Unicode Nd = isdecimal)
    match = _LINE_START.match(line)
    if match is None:
        return line
    if match.group(1):
        return "\\" + line
    cut = match.end(2) if match.group(2) else match.end(3)
    return line[:cut] + "\\" + line[cut:]


def _is_punctuation(char: str) -> bool:
    return unicodedata.category(char)[0] in "PS"


def _formatted(run: Run) -> bool:
    """True when the run has formatting this view shows (underline has no Markdown form)."""
    return run.bold or run.italic or run.strike or run.superscript or run.subscript or run.link is not None


def _delimited(run: Run) -> bool:
    return run.bold or run.italic or run.strike


def _can_delimit(core: str, before: str, after: str) -> bool:
    """True when ``*``/``~~`` delimiters around ``core`` open and close under CommonMark's flanking rules.

    A neighbouring delimiter (``before``/``after`` of ``*`` or ``~``) would merge with ours, so it
    counts as "cannot delimit" too.
    """
    if before in ("*", "~") or after in ("*", "~"):
        return False
    first, last = core[0], core[-1]
    opens = not first.isspace() and (
        not _is_punctuation(first) or not before or before.isspace() or _is_punctuation(before)
    )
    closes = not last.isspace() and (
        not _is_punctuation(last) or not after or after.isspace() or _is_punctuation(after)
    )
    return opens and closes


class _MarkdownRenderer:
    def __init__(self, doc: HwpDocument, notes: NoteIndex | None = None, levels: dict[int, int] | None = None) -> None:
        self.doc = doc
        self.notes = notes if notes is not None else NoteIndex(doc)
        # Headings known by their chapter number only (rhwp_core.navigation), by id of the paragraph.
        self.levels = levels or {}

    # -- inline ---------------------------------------------------------------------------------

    def inline(self, paragraph: Paragraph, heading: bool = False) -> str:
        """The paragraph's inline Markdown; newlines are the paragraph's own line breaks.

        In a heading, bold is dropped: headings are bold already, and `# **1. 개요**` reads worse.
        """
        runs = paragraph.runs
        if not paragraph.note_refs and (not runs or not any(_formatted(run) for run in runs)):
            return _escape(paragraph.text)  # the common case, kept fast
        pieces = inline_pieces(paragraph, whole_words=True)
        if heading:
            pieces = [
                InlinePiece(p.text, p.run.model_copy(update={"bold": False}))
                if isinstance(p, InlinePiece) and p.run.bold
                else p
                for p in pieces
            ]
        out: list[str] = []
        for index, piece in enumerate(pieces):
            if not isinstance(piece, InlinePiece):
                note = self.notes.note_for(piece)
                out.append(f"[^{note.label}]" if note is not None else f"<sup>{piece.number}</sup>")
                continue
            text = _escape(piece.text)
            run = piece.run
            if not _formatted(run):
                out.append(text)
                continue
            core = text.strip()
            if not core:
                out.append(text)
                continue
            lead = text[: len(text) - len(text.lstrip())]
            trail = text[len(text.rstrip()) :]
            before = lead[-1:] or next((part[-1] for part in reversed(out) if part), "")
            following = pieces[index + 1] if index + 1 < len(pieces) else None
            after = trail[:1]
            if not after and isinstance(following, InlinePiece):
                # A formatted neighbour's delimiters would merge with ours (`**a***b*`): "*" forces HTML tags.
                # What follows once escaped: control characters vanish, so they cannot count as space.
                after = "*" if _delimited(following.run) else _escape(following.text)[:1]
            elif not after and following is not None:
                after = "["  # a note reference
            out.append(lead + self._format(core, run, before, after) + trail)
        return "".join(out)

    def _format(self, core: str, run: Run, before: str, after: str) -> str:
        if run.subscript:
            core = f"<sub>{core}</sub>"
        if run.superscript:
            core = f"<sup>{core}</sup>"
        # Each layer is checked on what it wraps: `*~~x~~*` between letters cannot close.
        for on, delimiter, tag in ((run.strike, "~~", "s"), (run.italic, "*", "em"), (run.bold, "**", "strong")):
            if on:
                if _can_delimit(core, before, after):
                    core = f"{delimiter}{core}{delimiter}"
                else:
                    core = f"<{tag}>{core}</{tag}>"
        url = safe_url(run.link)
        if url is not None:
            core = f"[{core}]({url})"
        return core

    def _lines(self, paragraph: Paragraph) -> list[str]:
        """Inline Markdown split at the paragraph's line breaks, each line trimmed and escaped at its start."""
        text = self.inline(paragraph)
        if "\n" not in text:  # the common case: one line
            text = text.strip()
            return [_escape_line_start(text)] if text else []
        lines = (line.strip() for line in text.split("\n"))
        return [_escape_line_start(line) for line in lines if line]

    # -- blocks ---------------------------------------------------------------------------------

    def blocks(self, blocks: Sequence[Block], starts: list[int | None] | None = None) -> str:
        """Markdown for sibling blocks: blank lines between blocks, none between list items.

        With ``starts``, each block's start in the returned text (None when it renders empty) is
        appended to it, one entry per block.
        """
        out: list[str] = []
        length = 0
        list_indents: list[int] = []  # content column of each open list level
        previous_was_item = False
        for index, block in enumerate(blocks):
            if (
                isinstance(block, Paragraph)
                and block.list is not None
                and not block.heading_level
                and id(block) not in self.levels
            ):
                item = self._list_item(block, list_indents)
                gap = ("\n" if previous_was_item else "\n\n") if out and item else ""
                if starts is not None:
                    starts.append(length + len(gap) if item else None)
                if item:
                    out.append(gap + item)
                    length += len(gap) + len(item)
                    previous_was_item = True
                continue
            if isinstance(block, Paragraph):
                text = self.paragraph(block)
            elif isinstance(block, Equation):
                text = self.equation(block, _stands_alone(blocks, index))
            else:
                text = self.block(block)
            gap = "\n\n" if out and text else ""
            if starts is not None:
                starts.append(length + len(gap) if text else None)
            if text:
                list_indents.clear()
                out.append(gap + text)
                length += len(gap) + len(text)
                previous_was_item = False
        return "".join(out)

    def _list_item(self, paragraph: Paragraph, list_indents: list[int]) -> str:
        lines = self._lines(paragraph)
        marker = paragraph.list
        if not lines or marker is None:
            return ""
        level = max(1, marker.level)
        del list_indents[level - 1 :]
        indent = list_indents[-1] if list_indents else 0
        shown = marker.marker.strip()
        if marker.kind == "number" and _NUMBER_MARKER.fullmatch(shown):
            bullet = shown
        else:
            bullet = "-"
            if marker.kind == "number" and shown:
                lines[0] = _escape(shown) + " " + lines[0]
        list_indents.append(indent + len(bullet) + 1)
        pad = " " * (indent + len(bullet) + 1)
        return " " * indent + bullet + " " + ("\\\n" + pad).join(lines)

    def block(self, block: Block) -> str:
        if isinstance(block, Paragraph):
            return self.paragraph(block)
        if isinstance(block, Table):
            return self.table(block)
        if isinstance(block, Picture):
            return self.picture(block)
        if isinstance(block, Equation):
            return self.equation(block)
        if isinstance(block, Shape):
            return self.shape(block)
        if isinstance(block, FormControl):
            shown = form_control_shown(block).strip()
            return _escape_line_start(_escape(shown)) if shown else ""
        if isinstance(block, Unknown):
            return self.unknown(block)
        return ""

    def paragraph(self, paragraph: Paragraph) -> str:
        if paragraph_is_empty(paragraph):
            return ""
        level = paragraph.heading_level or self.levels.get(id(paragraph))
        if level:
            lines = self.inline(paragraph, heading=True).split("\n")
            text = " ".join(line.strip() for line in lines if line.strip())
            # The heading's number as the document shows it, then a space.
            marker = paragraph.list.marker.strip() if paragraph.list is not None else ""
            if marker:
                text = _escape(marker) + " " + text
            # Every `#` escaped: a trailing run of them would otherwise be taken as a closing sequence.
            text = text.replace("#", "\\#")
            return "#" * min(6, level) + " " + text
        return "\\\n".join(self._lines(paragraph))

    def table(self, table: Table) -> str:
        parts = [self.blocks(table.caption)] if table.caption else []
        placed = placed_cells(table)  # (once: both checking and writing need it)
        parts.append(
            self._pipe_table(table, placed) if _is_simple_grid(table, placed) else self._html_table(table, placed)
        )
        return "\n\n".join(part for part in parts if part)

    def _cell_text(self, cell: TableCell) -> str:
        paragraphs = [b for b in cell.blocks if isinstance(b, Paragraph) and not paragraph_is_empty(b)]
        if not paragraphs:
            return ""
        paragraph = paragraphs[0]
        lines = [line.strip() for line in self.inline(paragraph).split("\n") if line.strip()]
        prefix = (
            _escape(paragraph.list.marker.strip()) + " " if paragraph.list and paragraph.list.marker.strip() else ""
        )
        return prefix + "<br>".join(lines)

    def _pipe_table(self, table: Table, placed: list[tuple[TableCell, int, int]]) -> str:
        grid = [[""] * table.cols for _ in range(table.rows)]
        for cell, row, col in placed:
            grid[row][col] = self._cell_text(cell)
        rows = ["| " + " | ".join(row) + " |" for row in grid]
        rows.insert(1, "|" + "|".join([" --- "] * table.cols) + "|")
        return "\n".join(rows)

    def _html_table(self, table: Table, placed: list[tuple[TableCell, int, int]]) -> str:
        renderer = HtmlRenderer(self.notes, for_markdown=True)
        renderer.table(table.model_copy(update={"caption": []}), placed)
        # An HTML block ends at a blank line: the fragment has none (empty lines are dropped).
        return "\n".join(filter(str.strip, "\n".join(renderer.out).split("\n")))

    def picture(self, picture: Picture) -> str:
        alt = " ".join(_escape(picture.description or "").split())
        url = safe_url(picture.bin_data_name) or ""
        title = ""
        if picture.width and picture.height:
            title = f' "{picture.width * 25.4 / 7200:.1f} × {picture.height * 25.4 / 7200:.1f} mm"'
        image = f"![{alt}]({url}{title})"
        caption = self.blocks(picture.caption)
        return image + ("\n\n" + caption if caption else "")

    def equation(self, equation: Equation, display: bool = False) -> str:
        """``$LaTeX$`` (``$$LaTeX$$`` when the equation stands alone in its paragraph); a script
        that does not translate as it is."""
        parts = []
        if equation.latex is not None:
            parts.append(f"$${equation.latex}$$" if display else f"${equation.latex}$")
        else:
            script = " ".join(clean(equation.script).split())
            if script:
                parts.append(_escape_line_start(_escape(script)))
        caption = self.blocks(equation.caption)
        if caption:
            parts.append(caption)
        return "\n\n".join(parts)

    def shape(self, shape: Shape) -> str:
        inner = "\n\n".join(part for part in (self.blocks(shape.blocks), self.blocks(shape.caption)) if part)
        if not inner:
            return ""
        return "\n".join("> " + line if line else ">" for line in inner.split("\n"))

    def unknown(self, unknown: Unknown) -> str:
        text = clean(unknown.text or "").strip()
        if text:
            return "\\\n".join(_escape_line_start(line.strip()) for line in _escape(text).split("\n") if line.strip())
        name = _NOT_IN_OBJECT_NAME.sub("", clean(unknown.object)).replace("--", "-").strip(" -")
        return f"<!-- object: {name or 'unknown'} -->"

    # -- furniture ------------------------------------------------------------------------------

    def page_furniture(self, kind: str) -> list[str]:
        """Each distinct header (or footer) once, in document order."""
        seen: list[str] = []
        for furniture in self.doc.furniture:
            if furniture.kind == kind:
                text = self.blocks(furniture.blocks)
                if text and text not in seen:
                    seen.append(text)
        return seen

    def note_definitions(self) -> list[str]:
        definitions = []
        for note in self.notes.notes:
            body = self.blocks(note.furniture.blocks)
            lines = body.split("\n")
            indented = "\n".join(["", *("    " + line if line else "" for line in lines[1:])])
            definitions.append(f"[^{note.label}]: {lines[0]}{indented if len(lines) > 1 else ''}".rstrip())
        return definitions


def _is_simple_grid(table: Table, placed: list[tuple[TableCell, int, int]]) -> bool:
    """A grid GFM can show: no merged cells, every position at most once, one paragraph per cell at most.

    The grid must also be mostly filled (its size comes from the file, and the pipe table
    writes every position).
    """
    if table.rows < 1 or table.cols < 1 or table.rows * table.cols > 4 * len(table.cells) + 16:
        return False
    seen: set[tuple[int, int]] = set()
    for cell, row, col in placed:
        if cell.row_span > 1 or cell.col_span > 1 or row >= table.rows or col >= table.cols:
            return False
        if (row, col) in seen:
            return False
        seen.add((row, col))
        blocks = cell.blocks
        if len(blocks) == 1:  # the common case, without a list comprehension
            if not isinstance(blocks[0], Paragraph):
                return False
            continue
        content = [b for b in blocks if not (isinstance(b, Paragraph) and paragraph_is_empty(b))]
        if len(content) > 1 or (content and not isinstance(content[0], Paragraph)):
            return False
    return True


def render_markdown(
    doc: HwpDocument,
    include_furniture: bool = False,
    block_starts: list[int | None] | None = None,
    levels: Sequence[int | None] | None = None,
) -> str:
    """Markdown for ``doc``; ``include_furniture`` adds page headers (first) and footers (last).

    With ``block_starts``, the start of each top-level body block in the result (None when the
    block renders empty) is appended to it, in reading order. ``levels``: each top-level body
    block's heading level as the native reader found it (see ``headings``).
    """
    renderer = _MarkdownRenderer(doc, levels=paragraph_levels(doc, levels))
    parts: list[str] = []
    if include_furniture:
        parts.extend(renderer.page_furniture("header"))
    length = sum(len(p) + 2 for p in parts)
    for section in doc.sections:
        starts: list[int | None] | None = [] if block_starts is not None else None
        text = renderer.blocks(section.blocks, starts)
        if block_starts is not None and starts is not None:
            block_starts.extend(None if s is None else length + s for s in starts)
        if text:
            parts.append(text)
            length += len(text) + 2
    if include_furniture:
        parts.extend(renderer.page_furniture("footer"))
    parts.extend(renderer.note_definitions())
    for memo in doc.furniture:
        if memo.kind == "memo":
            label = f"**{_escape(memo_label(memo))}**"
            body = renderer.blocks(memo.blocks)
            parts.append(f"{label} {body}" if body else label)
    return "\n\n".join(parts) + "\n" if parts else ""


# Note labels of the documents whose blocks were rendered last (render_block_markdown is called
# once per block; labelling walks the whole body). Keyed by id() with the document held, so an id
# is never reused while its entry lives.
_NOTE_INDEXES: OrderedDict[int, tuple[HwpDocument, NoteIndex]] = OrderedDict()
_NOTE_INDEXES_LOCK = threading.Lock()


def _note_index(doc: HwpDocument) -> NoteIndex:
    with _NOTE_INDEXES_LOCK:
        entry = _NOTE_INDEXES.get(id(doc))
        if entry is not None and entry[0] is doc:
            _NOTE_INDEXES.move_to_end(id(doc))
            return entry[1]
    notes = NoteIndex(doc)
    with _NOTE_INDEXES_LOCK:
        _NOTE_INDEXES[id(doc)] = (doc, notes)
        while len(_NOTE_INDEXES) > 8:
            _NOTE_INDEXES.popitem(last=False)
    return notes


def render_block_markdown(doc: HwpDocument, block: Block) -> str:
    """Markdown of one block of ``doc`` (e.g. a table for a chunk), labelled as in ``render_markdown``.

    Note references get the labels the whole document's view gives them; the notes themselves
    are not appended.
    """
    return _MarkdownRenderer(doc, _note_index(doc)).block(block)
