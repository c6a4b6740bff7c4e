"""What the Markdown and HTML views share: text cleaning, inline pieces, note labels, safe links."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from rhwp_core.ir import (
    Block,
    FormControl,
    Furniture,
    HwpDocument,
    NoteRef,
    Paragraph,
    Run,
    Table,
    TableCell,
    iter_blocks,
)

__all__ = [
    "InlinePiece",
    "Note",
    "NoteIndex",
    "clean",
    "document_title",
    "inline_pieces",
    "paragraph_is_empty",
    "placed_cells",
    "safe_url",
]

# Characters no view may emit: C0 controls except tab and newline, DEL, C1 controls, lone
# surrogates and Unicode noncharacters (a strict HTML5 parser reports every one of them).
_FORBIDDEN = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef\ufffe\uffff"
    + "".join(f"{chr(plane << 16 | 0xFFFE)}{chr(plane << 16 | 0xFFFF)}" for plane in range(1, 17))
    + "]"
)


def clean(text: str) -> str:
    """``text`` without characters that must not reach a view (see ``_FORBIDDEN``)."""
    # Every forbidden character is non-printable (control, surrogate or unassigned), and
    # str.isprintable is a fraction of the regex's cost: most text needs no more (tested).
    if text.isprintable():
        return text
    return _FORBIDDEN.sub("", text) if _FORBIDDEN.search(text) else text


_PLAIN = Run(text="")


@dataclass(frozen=True, slots=True)
class InlinePiece:
    """A stretch of paragraph text with the formatting of ``run`` (its own ``text`` is ignored)."""

    text: str
    run: Run


def _same_format(a: Run, b: Run) -> bool:
    return (
        a.bold == b.bold
        and a.italic == b.italic
        and a.underline == b.underline
        and a.strike == b.strike
        and a.superscript == b.superscript
        and a.subscript == b.subscript
        and a.link == b.link
    )


def _common_format(a: Run, b: Run) -> Run:
    """The formatting two runs share (the link is the same: callers check)."""
    return Run(
        text="",
        bold=a.bold and b.bold,
        italic=a.italic and b.italic,
        underline=a.underline and b.underline,
        strike=a.strike and b.strike,
        superscript=a.superscript and b.superscript,
        subscript=a.subscript and b.subscript,
        link=a.link,
    )


def _inside_word(left: str, right: str) -> bool:
    """True when the boundary between two texts falls inside a word (as the views will show them)."""
    return clean(left)[-1:].isalnum() and clean(right)[:1].isalnum()


def inline_pieces(paragraph: Paragraph, whole_words: bool = False) -> list[InlinePiece | NoteRef]:
    """The paragraph's text as formatted pieces, with note references at their offsets.

    The runs are used when they spell exactly the paragraph's text (adjacent runs with the same
    formatting merged); otherwise the text alone, unformatted, so no character is lost or doubled.

    ``whole_words``: formatting that changes inside a word (``**몇**교시``, common in forms) is
    reduced to what both sides share, so markup never splits a word in the source text -- what
    Markdown needs to stay searchable; HTML, whose text nodes join, keeps the exact formatting.
    """
    # A deleted run (tracked change) is not in the text: the views show the final version.
    runs = [run for run in paragraph.runs if run.change is None or run.change.kind != "deleted"]
    if len(runs) == 1 and runs[0].text == paragraph.text and not paragraph.note_refs:
        return [InlinePiece(paragraph.text, runs[0])] if paragraph.text else []
    if not runs or "".join(run.text for run in runs) != paragraph.text:
        runs = [Run(text=paragraph.text)] if paragraph.text else []
    merged: list[InlinePiece] = []
    for run in runs:
        if not run.text:
            continue
        if merged:
            previous = merged[-1]
            if _same_format(previous.run, run) or not clean(run.text):
                # (A run of nothing visible, e.g. a stray control character, takes its neighbour's format.)
                merged[-1] = InlinePiece(previous.text + run.text, previous.run)
                continue
            if not clean(previous.text):
                merged[-1] = InlinePiece(previous.text + run.text, run)
                continue
            if whole_words and previous.run.link == run.link and _inside_word(previous.text, run.text):
                merged[-1] = InlinePiece(previous.text + run.text, _common_format(previous.run, run))
                continue
        merged.append(InlinePiece(run.text, run))
    if not paragraph.note_refs:
        return list(merged)
    refs = sorted(paragraph.note_refs, key=lambda ref: ref.offset)
    pieces: list[InlinePiece | NoteRef] = []
    position = 0  # text offset of the start of the current piece
    ref_index = 0
    for piece in merged:
        start = 0
        while ref_index < len(refs) and refs[ref_index].offset < position + len(piece.text):
            cut = max(refs[ref_index].offset - position, start)
            if cut > start:
                pieces.append(InlinePiece(piece.text[start:cut], piece.run))
            pieces.append(refs[ref_index])
            start = cut
            ref_index += 1
        if start < len(piece.text):
            pieces.append(InlinePiece(piece.text[start:], piece.run))
        position += len(piece.text)
    pieces.extend(refs[ref_index:])  # marks at (or, damaged, past) the end of the text
    return pieces


def placed_cells(table: Table) -> list[tuple[TableCell, int, int]]:
    """Each cell with its (row, column): the declared address, or, when addresses collide (a
    writer that leaves them out), the next free grid slot in reading order, as HTML lays out
    cells -- so a damaged or minimal table still shows its cells in rows rather than stacked.
    """
    declared = {(cell.row, cell.col) for cell in table.cells}
    if len(declared) == len(table.cells):
        return [(cell, cell.row, cell.col) for cell in table.cells]
    width = max(1, table.cols)
    # Spans are clamped to what the cells could fill: the numbers come from the file.
    limit = len(table.cells) + 1
    occupied: set[tuple[int, int]] = set()
    placed: list[tuple[TableCell, int, int]] = []
    row = col = 0
    for cell in table.cells:
        while (row, col) in occupied or col >= width:
            col += 1
            if col >= width:
                row, col = row + 1, 0
        placed.append((cell, row, col))
        for dr in range(min(max(1, cell.row_span), limit)):
            for dc in range(min(max(1, cell.col_span), width - col, limit)):
                occupied.add((row + dr, col + dc))
        col += max(1, cell.col_span)
    return placed


def paragraph_is_empty(paragraph: Paragraph) -> bool:
    """True when the paragraph shows nothing (no visible text, no note reference)."""
    if paragraph.note_refs:
        return False
    text = paragraph.text
    return not (text if text.isprintable() else clean(text)).strip()  # (clean's fast path, inlined)


_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")
_SAFE_SCHEMES = ("http:", "https:", "mailto:", "ftp:", "tel:", "file:")
_URL_ESCAPES = str.maketrans({" ": "%20", "(": "%28", ")": "%29", "<": "%3C", ">": "%3E", '"': "%22", "\\": "%5C"})


def safe_url(url: str | None) -> str | None:
    """A link target safe to emit, or ``None``.

    Only web, mail, ftp, tel and file URLs and scheme-less references are kept (a ``javascript:``
    link from a hostile document must not become clickable); characters that would end a
    Markdown destination or an HTML attribute are percent-encoded.
    """
    if not url:
        return None
    url = clean(url).strip()
    scheme = _SCHEME.match(url)
    if scheme and not url.lower().startswith(_SAFE_SCHEMES):
        return None
    url = "".join(url.split()) if "\n" in url or "\t" in url else url
    return url.translate(_URL_ESCAPES) or None


@dataclass(frozen=True, slots=True)
class Note:
    """A foot- or endnote with the label the views give it (``1``, ``e1``)."""

    kind: str
    label: str
    number: int
    furniture: Furniture


class NoteIndex:
    """Labels for the document's notes and which note each body reference points to.

    References and notes are paired in order when the body has exactly as many references of a
    kind as there are notes of that kind (numbers may restart per section or page, order does
    not); otherwise by number. Labels are the note numbers (endnotes prefixed ``e``), made
    unique with a suffix when numbering restarts.
    """

    def __init__(self, doc: HwpDocument) -> None:
        self.notes: list[Note] = []
        self._by_ref: dict[int, Note] = {}
        self._refs: dict[int, NoteRef] = {}  # keeps the keyed objects alive, so ids stay unique
        used: set[str] = set()
        has_notes = any(f.kind in ("footnote", "endnote") for f in doc.furniture)
        body_refs = list(_body_note_refs(doc)) if has_notes else []
        for kind, prefix in (("footnote", ""), ("endnote", "e")):
            kind_notes: list[Note] = []
            for ordinal, furniture in enumerate((f for f in doc.furniture if f.kind == kind), start=1):
                number = furniture.number if furniture.number is not None else ordinal
                label = f"{prefix}{number}"
                suffix = 2
                while label in used:
                    label = f"{prefix}{number}-{suffix}"
                    suffix += 1
                used.add(label)
                kind_notes.append(Note(kind, label, number, furniture))
            refs = [ref for ref in body_refs if ref.kind == kind]
            if len(refs) == len(kind_notes):
                pairs = list(zip(refs, kind_notes, strict=True))
            else:
                pairs = []
                unused = list(kind_notes)
                for ref in refs:
                    match = next((note for note in unused if note.number == ref.number), None)
                    if match is not None:
                        unused.remove(match)
                        pairs.append((ref, match))
            for ref, note in pairs:
                self._by_ref[id(ref)] = note
                self._refs[id(ref)] = ref
            self.notes.extend(kind_notes)

    def note_for(self, ref: NoteRef) -> Note | None:
        """The note a body reference points to, if the document holds it."""
        return self._by_ref.get(id(ref))


def _body_note_refs(doc: HwpDocument) -> Iterator[NoteRef]:
    for block in iter_blocks(doc, kind="paragraph", scope="body"):
        if isinstance(block, Paragraph):
            yield from block.note_refs


def document_title(doc: HwpDocument) -> str:
    """The metadata title, else the first heading or paragraph (shortened), else ``Untitled``."""
    candidates: list[str | None] = [doc.metadata.title]
    first: Block | None = next(
        (b for b in iter_blocks(doc, kind="paragraph") if isinstance(b, Paragraph) and b.heading_level), None
    )
    first = first or next(
        (b for b in iter_blocks(doc, kind="paragraph") if isinstance(b, Paragraph) and b.text.strip()), None
    )
    if isinstance(first, Paragraph):
        candidates.append(first.text)
    for candidate in candidates:
        title = " ".join(clean(candidate or "").split())
        if title:
            return title if len(title) <= 80 else title[:79] + "…"
    return "Untitled"


def form_control_shown(control: FormControl) -> str:
    """What the page shows for a form control: ☑/☐ or ◉/○ and the caption, ``[caption]`` for a
    button, else the value."""
    caption = (control.caption or "").strip()
    on = control.checked is True
    if control.control in ("checkbox", "radio"):
        mark = ("☑" if on else "☐") if control.control == "checkbox" else ("◉" if on else "○")
        return f"{mark} {caption}" if caption else mark
    if control.control == "button" and caption:
        return f"[{caption}]"
    return (control.value or "").strip()


def memo_label(memo: Furniture) -> str:
    """``[메모 (author, date): "anchor"]`` with the parts the memo has."""
    by = [s.strip() for s in (memo.author, memo.date) if s and s.strip()]
    label = "[메모"
    if by:
        label += f" ({', '.join(by)})"
    anchor = (memo.anchor_text or "").strip()
    if anchor:
        label += ': "' + " ".join(anchor.split()) + '"'
    return label + "]"
