"""Tool pack ``search``: where does the document say X?

``search`` finds a word or a pattern in an HWP/HWPX/HWP 3.x document and answers with addresses
the other tools take: ``block`` for ``iter_blocks(offset=...)``, ``text_offset`` for
``extract_text(offset=...)``, ``markdown_offset`` for ``to_markdown(offset=...)``, the page and
the headings the hit sits under. The addresses come from ``Document.places()`` in rhwp_core,
the same computation that places the outline.

Literal matching understands how Korean documents are typed (the rules, in ``_literal_pattern``):
NFC, full-width ASCII (``ＡＢＣ１２３`` is ``ABC123``), any whitespace for a run of whitespace,
spaces between Hangul syllables ignored (``사업명`` finds ``사 업 명`` and the other way round),
case ignored unless asked. Regular expressions run on the text as ``extract_text`` gives it, with
the ``regex`` module's timeout: Python's ``re`` cannot be stopped, and a pathological pattern must
end at a bound (``too_large``), not hold a worker thread for minutes.

Per document, the searchable text and its maps are built once and kept as long as the
``Document`` itself (``rhwp_core.load`` caches it while the file is unchanged), so a query on a
1 MB document takes milliseconds after the first.
"""

from __future__ import annotations

import bisect
import threading
import unicodedata
import weakref
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Literal, overload

from pydantic import Field
from rhwp_core.document import Document, Scope
from rhwp_core.navigation import Heading, Place, effective_pages, heading_paths, parse_pages
from typing_extensions import NotRequired, TypedDict

import rhwp_core
from rhwp_mcp_host import FilePath, Pages, Register, ToolFailure, current_password, hookimpl, page_list

if TYPE_CHECKING:
    import regex

# The whole search (every match, not each one) may take this long; a pattern that needs more is
# refused with too_large. Literal queries on the largest corpus document take about 15 ms.
TIMEOUT_SECONDS = 1.0
CONTEXT_CHARS = 60
"""Context on each side of a hit in its snippet (within the hit's line)."""
MAX_MATCH_CHARS = 200
"""A longer hit is shown with its middle elided (the offsets still give all of it)."""
MAX_SUGGESTIONS = 5


class Hit(TypedDict):
    block: int
    """iter_blocks(scope=scope, offset=block) starts at the block holding the hit (the whole
    document's block list: without `pages`)."""
    page: int | None
    heading_path: list[str]
    """The outline headings the hit sits under, outermost first (as parse_hwp_summary gives them)."""
    text_offset: int
    """Where the hit starts in extract_text() (default arguments): extract_text(offset=text_offset)."""
    markdown_offset: int | None
    """Where the hit starts in to_markdown() (default arguments) when its words appear there as
    they are; otherwise where its block starts. None for headers, footers and notes (the default
    Markdown leaves them out)."""
    scope: Literal["body", "furniture"]
    match: str
    """The text that matched, as the document writes it."""
    snippet: str
    """The hit, in **bold**, with up to 60 characters of its line on each side."""


class SearchResult(TypedDict):
    hits: list[Hit]
    total: int
    next_offset: int | None
    message: NotRequired[str]
    """Only when nothing matched: says so."""
    suggestions: NotRequired[list[Heading]]
    """Only when nothing matched: the outline headings that share the most with the query."""


def _load(path: str) -> Document:
    # The password the caller gave (the host takes it out of the arguments), if any.
    return rhwp_core.load(path, password=current_password())


# -- matching -----------------------------------------------------------------------------------

# Full-width ASCII (U+FF01-FF5E) and the ideographic space, as Korean word processors type them.
_FULL_WIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}
# Characters NFC may combine with what precedes them: combining marks and the medial/final jamo of
# old-style (conjoining) Hangul. Text without them normalises one character to one character.
_TRAILING = r"\p{M}\u1160-\u11FF\uD7B0-\uD7FF"
_HANGUL = "\uac00-\ud7a3"


def _is_hangul(ch: str) -> bool:
    return "\uac00" <= ch <= "\ud7a3"


@dataclass(frozen=True)
class Folded:
    """``text`` normalised for literal matching (NFC, full-width forms folded), and the way back:
    ``origin[i]`` is where character ``i`` of ``folded`` comes from in ``text`` (None: the same
    place, the common case; then ``len(folded) == len(text)``)."""

    text: str
    folded: str
    origin: Sequence[int] | None

    def to_text(self, start: int, end: int) -> tuple[int, int]:
        """The span of ``text`` that ``folded[start:end]`` was made from."""
        if self.origin is None:
            return start, end
        origin = self.origin
        # An end inside a composed cluster moves to the cluster's end.
        while 0 < end < len(self.folded) and origin[end] == origin[end - 1]:
            end += 1
        return origin[start], origin[end] if end < len(self.folded) else len(self.text)

    def to_folded(self, position: int) -> int:
        """The first character of ``folded`` made from ``text[position:]``."""
        return position if self.origin is None else bisect.bisect_left(self.origin, position)


def fold(text: str) -> Folded:
    """NFC, then full-width ASCII to ASCII, keeping the map back to ``text``."""
    import regex

    if regex.search(f"[{_TRAILING}]", text) is None:
        # No combining marks: NFC only replaces single characters (CJK compatibility ideographs,
        # ...) by single characters, and full-width folding is one to one: positions stay.
        return Folded(text, unicodedata.normalize("NFC", text).translate(_FULL_WIDTH), None)
    pieces: list[str] = []
    origin = array("q")
    done = 0
    for cluster in regex.finditer(f"[^{_TRAILING}]?[{_TRAILING}]+", text):
        start, end = cluster.span()
        between = unicodedata.normalize("NFC", text[done:start])
        pieces.append(between)
        origin.extend(range(done, start))
        composed = unicodedata.normalize("NFC", cluster.group())
        pieces.append(composed)
        origin.extend([start] * len(composed))
        done = end
    pieces.append(unicodedata.normalize("NFC", text[done:]))
    origin.extend(range(done, len(text)))
    return Folded(text, "".join(pieces).translate(_FULL_WIDTH), origin)


def literal_pattern(query: str) -> str:
    """The regular expression a literal query becomes (run on ``fold``'s text).

    - the query is NFC-normalised, full-width forms folded, leading/trailing whitespace dropped;
    - a run of whitespace matches any run of whitespace (line breaks included);
    - between two Hangul syllables, any spaces or tabs (not a line break: that is a new paragraph
      or cell) may stand in the text, and whitespace the query has there is optional: 한글 users
      spread words out (``사 업 명``) and space compounds freely (``제안 요청서`` / ``제안요청서``);
    - everything else is itself (case is the flags' business).
    """
    import regex

    text = unicodedata.normalize("NFC", query).translate(_FULL_WIDTH).strip()
    if not text:
        raise ToolFailure("invalid_input", "the query is empty", 'search for a word, e.g. query="사업명"')
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch.isspace():
            j = i
            while j < len(text) and text[j].isspace():
                j += 1
            between_hangul = _is_hangul(text[i - 1]) and _is_hangul(text[j])
            out.append(r"\s*" if between_hangul else r"\s+")
            i = j
            continue
        out.append(regex.escape(ch))
        if i + 1 < len(text) and _is_hangul(ch) and _is_hangul(text[i + 1]):
            out.append(r"[^\S\n]*")
        i += 1
    return "".join(out)


def compile_query(query: str, *, is_regex: bool, case_sensitive: bool) -> regex.Pattern[str]:
    """The compiled pattern; an invalid regular expression is ``invalid_input`` saying where."""
    import regex

    flags = regex.V0 if case_sensitive else regex.V0 | regex.IGNORECASE
    if not is_regex:
        return regex.compile(literal_pattern(query), flags)
    if not query:
        raise ToolFailure("invalid_input", "the pattern is empty", 'e.g. query="제\\s*\\d+\\s*조", regex=true')
    try:
        return regex.compile(query, flags)
    except regex.error as e:
        # regex's error carries pos and msg (its type stubs do not declare them).
        pos: int | None = getattr(e, "pos", None)
        where = f" at position {pos}" if pos is not None else ""
        pointer = f": {query[:pos]}⟨here⟩{query[pos:]}" if pos is not None else ""
        raise ToolFailure(
            "invalid_input",
            f"the regular expression is invalid{where} ({getattr(e, 'msg', e)}){pointer}",
            "fix the pattern (Python `regex` syntax), or search literally with regex=false",
        ) from None


def find(
    pattern: regex.Pattern[str], text: str, start: int, end: int, *, overlapped: bool
) -> tuple[array[int], array[int]]:
    """Every non-empty match of ``pattern`` in ``text[start:end]``: their starts and ends.

    Overlapping matches for literal queries (``aa`` is found twice in ``aaa``, as a substring scan
    finds it); regular expressions match as ``re.finditer`` does. The whole search is bounded by
    ``TIMEOUT_SECONDS``: past it, ``too_large``.
    """
    starts, ends = array("q"), array("q")
    try:
        for m in pattern.finditer(text, start, end, overlapped=overlapped, concurrent=True, timeout=TIMEOUT_SECONDS):
            s, e = m.span()
            if e > s:
                starts.append(s)
                ends.append(e)
    except TimeoutError:
        raise ToolFailure(
            "too_large",
            f"the search did not finish within {TIMEOUT_SECONDS:g} s (after {len(starts)} hits): the pattern "
            "backtracks too much for this document",
            "simplify the pattern (avoid nested repeats such as (a+)+), narrow it with pages=, or search "
            "literally with regex=false",
        ) from None
    return starts, ends


# -- the per-document index ------------------------------------------------------------------------


@dataclass(frozen=True)
class Index:
    """What a search needs of one document, built once per ``Document``."""

    text: str
    """extract_text() with default arguments: the body, then the furniture."""
    folded: Folded
    body_end: int
    """The body's text is ``text[:body_end]``; the furniture's starts at ``body_end + 1``."""
    starts: list[int]
    """text_offset of each block that shows text, ascending (``shown`` in the same order)."""
    shown: list[Place]
    pages: list[int | None]
    """Each shown block's page (a block without one is on its predecessor's)."""
    body_blocks: int
    markdown: str
    markdown_starts: list[int]
    """Where each body block that renders starts in ``markdown``, ascending."""
    heading_blocks: list[int]
    heading_paths: list[list[str]]
    """The path of the heading at ``heading_blocks[i]``, itself included."""
    outline: list[Heading]

    def place_at(self, offset: int) -> int:
        """Index into ``shown`` of the block whose text holds ``offset`` (a joining newline
        belongs to the block before it)."""
        return max(0, bisect.bisect_right(self.starts, offset) - 1)

    def heading_path(self, block: int) -> list[str]:
        i = bisect.bisect_right(self.heading_blocks, block) - 1
        return list(self.heading_paths[i]) if i >= 0 else []


_indexes: weakref.WeakKeyDictionary[Document, Index] = weakref.WeakKeyDictionary()
_indexes_lock = threading.Lock()


def index_of(doc: Document) -> Index:
    """The document's index, built on first use and kept while the Document lives."""
    with _indexes_lock:
        found = _indexes.get(doc)
    if found is not None:
        return found
    text = doc.extract_text()
    places = doc.places(include_furniture=True)
    shown = sorted((p for p in places if p.text_offset is not None), key=lambda p: p.text_offset or 0)
    body = [p for p in shown if p.scope == "body"]
    body_end = (body[-1].text_offset or 0) + len(body[-1].text) if body else 0
    paged = doc.page_count is not None
    pages: list[int | None] = []
    for scope in ("body", "furniture"):
        # Effective pages run over every block of the scope in its own order, shown or not.
        scoped = [p for p in places if p.scope == scope]
        placed = dict(zip((p.block for p in scoped), effective_pages(p.page for p in scoped), strict=True))
        pages_by_block = {p.block: placed[p.block] if paged else None for p in scoped}
        for p in shown:
            if p.scope == scope:
                pages.append(pages_by_block[p.block])
    # `pages` was filled scope by scope: body blocks all come before furniture in `shown`.
    outline = doc.outline()
    blocks, paths = heading_paths([(h.block, h.level, h.text) for h in outline])
    index = Index(
        text=text,
        folded=fold(text),
        body_end=body_end,
        starts=[p.text_offset or 0 for p in shown],
        shown=shown,
        pages=pages,
        body_blocks=sum(1 for p in places if p.scope == "body"),
        markdown=doc.to_markdown(),
        markdown_starts=sorted(p.markdown_offset for p in places if p.markdown_offset is not None),
        heading_blocks=blocks,
        heading_paths=paths,
        outline=outline,
    )
    with _indexes_lock:
        _indexes[doc] = index
    return index


# -- hits -----------------------------------------------------------------------------------------


def _markdown_pattern(words: str) -> str:
    """``words`` as they may stand in the Markdown: any character escaped (``\\~``), emphasis marks
    (``*``, ``_``, ``~``, `````) around any of them, whitespace as whitespace or ``<br>`` (table cells)."""
    import regex

    marks = r"[*_~`]*"
    parts = []
    for piece in regex.split(r"(\s+)", words):
        if not piece:
            continue
        if piece.isspace():
            parts.append(r"(?:\s|<br\s*/?>|[*_~`])+")
        else:
            parts.append(marks.join(r"\\?" + regex.escape(ch) for ch in piece))
    return marks.join(parts)


def _markdown_offset(index: Index, place: Place, start: int, end: int) -> int | None:
    """Where text[start:end] starts in the Markdown: its own place when its words can be found there
    (the same occurrence within the block, allowing for escapes, emphasis and <br>), else the
    block's start."""
    import regex

    block_start = place.markdown_offset
    if block_start is None:
        return None
    following = bisect.bisect_right(index.markdown_starts, block_start)
    block_end = index.markdown_starts[following] if following < len(index.markdown_starts) else len(index.markdown)
    words = index.text[start:end]
    # The hit is the n-th occurrence of its words in its block's text; find the n-th in the Markdown.
    nth = index.text.count(words, place.text_offset or 0, start)
    pattern = regex.compile(_markdown_pattern(words))
    try:
        for found, m in enumerate(
            pattern.finditer(index.markdown, block_start, block_end, timeout=TIMEOUT_SECONDS / 10)
        ):
            if found == nth:
                return m.start()
    except TimeoutError:
        pass
    return block_start


def _snippet(text: str, start: int, end: int) -> tuple[str, str]:
    """(the match, bounded; the match in bold with its line's context around it)."""
    match = text[start:end]
    if len(match) > MAX_MATCH_CHARS:
        half = MAX_MATCH_CHARS // 2
        match = match[:half] + "…" + match[-half:]
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    left = max(line_start, start - CONTEXT_CHARS)
    right = min(line_end, end + CONTEXT_CHARS)
    before = ("…" if left > line_start else "") + text[left:start]
    after = text[end:right] + ("…" if right < line_end else "")
    shown = " ".join(match.split("\n"))
    return match, f"{before}**{shown}**{after}"


class Hits(Sequence[Hit]):
    """The hits of one search, each built when asked: a page of 20 hits out of 100 000 costs
    20 hits' work (page_list takes any sequence)."""

    def __init__(self, index: Index, spans: list[tuple[int, int, int]], scope: Scope) -> None:
        self._index = index
        self._spans = spans  # (start, end, index into index.shown)
        self._scope = scope

    def __len__(self) -> int:
        return len(self._spans)

    @overload
    def __getitem__(self, i: int) -> Hit: ...
    @overload
    def __getitem__(self, i: slice) -> list[Hit]: ...
    def __getitem__(self, i: int | slice) -> Hit | list[Hit]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        start, end, at = self._spans[i]
        index = self._index
        place = index.shown[at]
        body = place.scope == "body"
        match, snippet = _snippet(index.text, start, end)
        return {
            "block": place.block if body or self._scope == "furniture" else index.body_blocks + place.block,
            "page": index.pages[at],
            "heading_path": index.heading_path(place.block) if body else [],
            "text_offset": start,
            "markdown_offset": _markdown_offset(index, place, start, end) if body else None,
            "scope": "body" if body else "furniture",
            "match": match,
            "snippet": snippet,
        }

    def __iter__(self) -> Iterator[Hit]:
        return (self[j] for j in range(len(self)))


def spans(
    index: Index,
    query: str,
    *,
    is_regex: bool = False,
    case_sensitive: bool = False,
    scope: Scope = "body",
    pages: frozenset[int] | None = None,
) -> list[tuple[int, int, int]]:
    """Every hit as (start, end) in extract_text() and the index of its block in ``index.shown``."""
    pattern = compile_query(query, is_regex=is_regex, case_sensitive=case_sensitive)
    text = index.text
    start = 0 if scope != "furniture" else min(len(text), index.body_end + 1)
    end = index.body_end if scope == "body" else len(text)
    if is_regex:
        # A regular expression means what it says: it runs on the text as extract_text gives it.
        starts, ends = find(pattern, text, start, end, overlapped=False)
    else:
        folded = index.folded
        starts, ends = find(pattern, folded.folded, folded.to_folded(start), folded.to_folded(end), overlapped=True)
        if folded.origin is not None:
            mapped = [folded.to_text(s, e) for s, e in zip(starts, ends, strict=True)]
            starts, ends = array("q", (s for s, _ in mapped)), array("q", (e for _, e in mapped))
    out: list[tuple[int, int, int]] = []
    for s, e in zip(starts, ends, strict=True):
        at = index.place_at(s)
        if pages is None or index.pages[at] in pages:
            out.append((s, e, at))
    return out


def _bigrams(text: str) -> set[str]:
    squashed = "".join(unicodedata.normalize("NFC", text).translate(_FULL_WIDTH).lower().split())
    return {squashed[i : i + 2] for i in range(len(squashed) - 1)} or set(squashed)


def suggestions(index: Index, query: str) -> list[Heading]:
    """The outline headings sharing the most character bigrams with ``query`` (ties: document order)."""
    wanted = _bigrams(query)
    scored = [(len(wanted & _bigrams(h.text)), i) for i, h in enumerate(index.outline)]
    best = sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[1]))[:MAX_SUGGESTIONS]
    return [index.outline[i] for _, i in best]


# -- the tool -------------------------------------------------------------------------------------


def search(
    path: FilePath,
    query: Annotated[
        str,
        Field(
            min_length=1,
            max_length=1000,
            description="The words to find (or, with regex=true, a regular expression in Python `regex` syntax).",
        ),
    ],
    regex: Annotated[bool, Field(description="Treat query as a regular expression (time-bounded).")] = False,
    case_sensitive: Annotated[bool, Field(description="Match upper/lower case exactly.")] = False,
    scope: Annotated[
        Scope, Field(description="body (the running text), furniture (headers, footers, notes), or all.")
    ] = "body",
    pages: Pages = None,
    offset: Annotated[int, Field(ge=0, description="Where to start: 0, or the next_offset of a previous page.")] = 0,
    limit: Annotated[int, Field(ge=1, le=200, description="At most this many hits.")] = 20,
) -> SearchResult:
    """Find words in an HWP/HWPX document: {hits, total, next_offset}, each hit with addresses the
    other tools take — `block` (iter_blocks(offset=block) starts at it), `text_offset`
    (extract_text(offset=...) starts at the hit), `markdown_offset` (to_markdown(offset=...)),
    `page`, `heading_path` (the outline headings it sits under: cite it as 제2장 > 2.1 ...), and a
    `snippet` with the hit in **bold**.

    Literal search understands Korean typing: Unicode NFC, full-width letters and digits (ＡＢＣ１２３
    = ABC123), any whitespace for a space, and spaces between Hangul syllables ignored (사업명 finds
    사 업 명 and 제안 요청서 finds 제안요청서); case-insensitive unless case_sensitive. regex=true takes
    a regular expression (bounded in time: a pattern that backtracks without end is refused with
    too_large). `pages="3-5"` keeps hits on those pages; scope="all" adds headers, footers and notes.
    When nothing matches, the answer says so and suggests the closest outline headings.
    """
    doc = _load(path)
    wanted = None
    if pages is not None:
        wanted = parse_pages(pages, doc.page_count)
    index = index_of(doc)
    found = spans(index, query, is_regex=regex, case_sensitive=case_sensitive, scope=scope, pages=wanted)
    result: dict[str, Any] = page_list(Hits(index, found, scope), offset, limit, key="hits")
    if not found:
        where = f" on pages {pages}" if pages is not None else ""
        result["message"] = f"no hit for {query!r} in the {scope if scope != 'all' else 'whole document'}{where}"
        close = suggestions(index, query)
        if close:
            result["suggestions"] = close
            result["message"] += "; the closest headings are listed in suggestions"
        elif scope == "body":
            result["message"] += '; try scope="all" for headers, footers and notes'
    return result  # type: ignore[return-value]


@hookimpl
def rhwp_mcp_register_tools(register: Register) -> None:
    register(search, title="Search an HWP/HWPX document")
