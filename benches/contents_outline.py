"""How much of each document's own table of contents the outline finds (issue 35, headings).

    .venv/bin/python benches/contents_outline.py [--corpus ../shared/corpus] [--snapshot out.json]
        [--against before.json] [--verbose NAME]

For every corpus document with a contents page -- a 목차/차례/Contents title followed by its
entries, or a run of five or more short lines ending in a page number after a tab or leader dots
(what 한글's generated contents looks like in the text) -- it lists the entries and counts:

- ``found``: entries that are outline headings after the contents (the body's copy, matched with
  spaces, leader dots and page numbers removed, with or without the entry's own number);
- ``level``: of those, the ones at the contents' level (the entries' numbering ladder and
  indentation give it: a numbering family not seen above is one level deeper, one met again
  closes the levels below it);
- ``self``: outline headings that are a contents line themselves (must be 0).

This is deliberately not the reader's own matching (outline.rs): it reads the text the way a
person checking the outline would, so it can disagree with the reader.

``--time`` times, over the whole corpus, parse + text, parse + Markdown (which asks for the
headings) and the outline alone, best of ``--rounds`` rounds: run it with two interpreters
(today's wheel and the branch's) to compare; the outline is computed on request, never by
``parse`` or ``extract_text``.

``--snapshot`` writes every corpus document's outline (text, level) to a JSON file;
``--against`` compares today's outlines with such a snapshot and lists the documents whose
outline changed (headings gained, lost, or moved level).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import rhwp_core

ROOT = Path(__file__).resolve().parents[1]

TITLES = {"목차", "차례", "contents", "tableofcontents", "목录"}
# A page number at the end, after a tab, leader dots (any of . · … ‥ - _ ─) or a run of spaces.
LEADER = re.compile(r"(?:\t|[.·…‥\-_─ㆍ・]{2,})\s*[-(]?\s*(\d{1,4}|[ivxlcIVXLC]{1,6})\s*\)?\s*$")
CAPTION = re.compile(r"^[<\[〈《(【]?\s*(표|그림|사진|도표|수식|Table|Figure|Fig\.)\s*[\dⅠ-Ⅻ<\[-]")

FAMILIES: list[tuple[str, re.Pattern[str]]] = [
    ("chapter", re.compile(r"^(제\s*[\dⅠ-Ⅻ]+\s*[편부장]|(Chapter|CHAPTER|Part|PART)\s+[\dIVX]+)")),
    ("section", re.compile(r"^제\s*[\dⅠ-Ⅻ]+\s*[절관]")),
    ("roman", re.compile(r"^([Ⅰ-Ⅻ]+|[IVX]+)[.)]?\s")),
    ("dec3", re.compile(r"^\d{1,2}\.\d{1,2}\.\d{1,2}\.?\s")),
    ("dec2", re.compile(r"^\d{1,2}\.\d{1,2}\.?\s")),
    ("dec1", re.compile(r"^\d{1,2}[.]\s")),
    ("decp", re.compile(r"^\d{1,2}\)\s")),
    ("decpp", re.compile(r"^\(\d{1,2}\)\s")),
    ("hangul", re.compile(r"^[가-하]\.\s")),
    ("hangulp", re.compile(r"^[가-하]\)\s")),
    ("circled", re.compile(r"^[①-⑳]\s?")),
    ("latin", re.compile(r"^[A-Z]\.\s")),
    ("annex", re.compile(r"^[<\[【〔(]?\s*(별첨|별표|별지|부록|붙임|참고|서식)\s*\d*")),
]
NUMBER = re.compile(
    r"^(제\s*[\dⅠ-Ⅻ]+\s*[편부장절관]|(Chapter|Part)\s+[\dIVX]+[.:]?|[Ⅰ-Ⅻ]+[.)]?|[IVX]+[.)]|"
    r"\d{1,2}(\.\d{1,2})*[.)]?|\(\d{1,2}\)|[가-하][.)]|\([가-하]\)|[①-⑳]|[A-Z]\.|[□■○●◦◎▣◇◆▶▷►※\-·ㆍ•*])\s*"
)


def squash(text: str) -> str:
    """Spaces, leader characters and bullets out, lower-cased: how entries and headings compare."""
    return re.sub(r"[\s.·…‥_\-─ㆍ・:□■○●◦◎▣◇◆▶▷►※•*]", "", text).lower()


def bare(text: str) -> str:
    """The entry's words without its number."""
    return squash(NUMBER.sub("", text.strip(), count=1))


def family(text: str) -> str:
    t = text.strip()
    for name, pattern in FAMILIES:
        if pattern.match(t):
            return name
    return "plain"


def ladder(keys: list[tuple[str, int]]) -> list[int]:
    """Levels of the entries from their (family, indentation): a key not seen above is one level
    deeper, a key met again closes the levels below it."""
    stack: list[tuple[str, int]] = []
    out = []
    for key in keys:
        if key in stack:
            del stack[stack.index(key) + 1 :]
        else:
            stack.append(key)
        out.append(len(stack))
    return out


@dataclass
class Contents:
    first_block: int
    last_block: int
    entries: list[str]
    levels: list[int]


@dataclass
class Measure:
    name: str
    entries: int
    found: int
    at_level: int
    self_headings: list[str]
    missing: list[str] = field(default_factory=list)
    wrong_level: list[str] = field(default_factory=list)


def is_title(line: str) -> bool:
    return squash(line) in TITLES


def entry_of(line: str) -> str | None:
    found = LEADER.search(line)
    if not found:
        return None
    text = line[: found.start()].rstrip(" .·…‥\t")
    text = text.strip()
    if not text or len(text) > 90 or CAPTION.match(text) or not re.search(r"[가-힣A-Za-z]", text):
        return None
    return text


def find_contents(lines: list[tuple[int, str]]) -> Contents | None:
    """The first contents in ``lines`` ((block, line) pairs of the body in order)."""
    starts = [k for k, (_, line) in enumerate(lines) if is_title(line)]
    # Without a title: the first run of five lines that are contents lines.
    run = 0
    for k, (_, line) in enumerate(lines):
        run = run + 1 if entry_of(line) else (run if not line.strip() else 0)
        if run == 5:
            starts.append(k - 5)
            break
    for start in sorted(set(starts)):
        entries: list[tuple[int, str, int]] = []
        gap = 0
        for block, line in lines[start + 1 :]:
            text = entry_of(line)
            if text is not None:
                indent = len(line) - len(line.lstrip(" \u3000"))
                entries.append((block, text, indent // 2))
                gap = 0
            elif line.strip() and not is_title(line):
                # A list of tables or figures ends its own lines; a heading of a part of the
                # contents ("제1부 ...") without a page number is kept out, anything else long ends it.
                if CAPTION.match(line.strip()) or LEADER.search(line):
                    continue
                gap += 1
                if gap > 3 and entries:
                    break
                if gap > 6:
                    break
        if len(entries) >= 3:
            keys = [(family(t), indent) for _, t, indent in entries]
            return Contents(
                first_block=lines[start][0],
                last_block=entries[-1][0],
                entries=[t for _, t, _ in entries],
                levels=ladder(keys),
            )
    return None


def measure(name: str, doc: rhwp_core.Document) -> Measure | None:
    lines: list[tuple[int, str]] = []
    for unit in doc.block_texts():
        if unit.scope != "body":
            continue
        lines.extend((unit.block, line) for line in unit.text.split("\n"))
    contents = find_contents(lines)
    if contents is None:
        return None
    outline = doc.outline()
    inside = [h for h in outline if contents.first_block <= h.block <= contents.last_block]
    after = [h for h in outline if h.block > contents.last_block]
    # The contents' levels are relative: the shallowest heading the body shows for an entry sets
    # the offset (a document may put its title above the contents' first level).
    found, at_level, missing, wrong = 0, 0, [], []
    position = 0
    matches: list[tuple[int, int]] = []
    matched_entries: list[str] = []

    def find(entry: str, start: int) -> int | None:
        want, want_bare = squash(entry), bare(entry)
        for j in range(start, len(after)):
            have = squash(after[j].text)
            have_bare = bare(after[j].text)
            # A title broken over two paragraphs: the heading is its first half.
            split = len(have) * 2 >= len(want) and want.startswith(have)
            if have and (have == want or have_bare == want_bare or have == want_bare or have_bare == want or split):
                return j
        return None

    entries = contents.entries
    for k, (entry, level) in enumerate(zip(entries, contents.levels, strict=True)):
        hit = find(entry, position)
        # A heading found after the next entry's is not this entry's (the entries are in order).
        later = find(entries[k + 1], position) if k + 1 < len(entries) else None
        if hit is None or (later is not None and later < hit):
            missing.append(entry)
            continue
        found += 1
        position = hit + 1
        matches.append((level, after[hit].level))
        matched_entries.append(entry)
    offsets = [have - want for want, have in matches]
    offset = min(offsets) if offsets else 0
    for (want, have), entry in zip(matches, matched_entries, strict=True):
        if have - want == offset:
            at_level += 1
        else:
            wrong.append(f"{entry} (contents {want}, outline {have - offset})")
    return Measure(name, len(contents.entries), found, at_level, [h.text for h in inside], missing, wrong)


def corpus_documents(corpus: Path) -> list[Path]:
    out: list[Path] = []
    for folder, pattern in (("hwp", "*.hwp"), ("hwpx", "*.hwpx"), ("legacy-hwp3", "*.hwp"), ("hml", "*.hml")):
        out.extend(sorted((corpus / folder).glob(pattern)))
    return out


def measured(corpus: Path) -> Iterator[tuple[str, Measure]]:
    """Each corpus document with a contents page (``folder/name``) and its measure."""
    for path in corpus_documents(corpus):
        try:
            doc = rhwp_core.parse(path)
        except rhwp_core.HwpError:
            continue
        name = f"{path.parent.name}/{path.name}"
        m = measure(name, doc)
        if m is not None:
            yield name, m


def outlines(corpus: Path) -> dict[str, list[tuple[str, int]]]:
    snap: dict[str, list[tuple[str, int]]] = {}
    for path in corpus_documents(corpus):
        try:
            doc = rhwp_core.parse(path)
            snap[f"{path.parent.name}/{path.name}"] = [(h.text, h.level) for h in doc.outline()]
        except rhwp_core.HwpError:
            continue
    return snap


def timings(corpus: Path, rounds: int) -> dict[str, float]:
    """Seconds for the whole corpus, best of ``rounds``: parse + text, parse + Markdown, outline."""
    paths = []
    for path in corpus_documents(corpus):
        try:
            rhwp_core.parse(path)
            paths.append(path)
        except rhwp_core.HwpError:
            continue
    blobs = [p.read_bytes() for p in paths]
    best = {"parse+text": float("inf"), "parse+markdown": float("inf"), "outline": float("inf")}
    for _ in range(rounds):
        start = time.perf_counter()
        for blob in blobs:
            rhwp_core.parse(blob).extract_text()
        best["parse+text"] = min(best["parse+text"], time.perf_counter() - start)
        start = time.perf_counter()
        for blob in blobs:
            rhwp_core.parse(blob).to_markdown()
        best["parse+markdown"] = min(best["parse+markdown"], time.perf_counter() - start)
        docs = [rhwp_core.parse(blob) for blob in blobs]
        start = time.perf_counter()
        for doc in docs:
            doc.outline()
        best["outline"] = min(best["outline"], time.perf_counter() - start)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    parser.add_argument("--snapshot", type=Path, help="write every document's outline here")
    parser.add_argument("--against", type=Path, help="compare outlines with this snapshot")
    parser.add_argument("--verbose", help="list the missing entries of documents whose name contains this")
    parser.add_argument("--time", action="store_true", help="time parse + text, Markdown and the outline")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    corpus = args.corpus if args.corpus.is_dir() else Path("/work/shared/corpus")

    if args.time:
        for what, seconds in timings(corpus, args.rounds).items():
            print(f"{what:16} {seconds * 1000:9.1f} ms")
        return 0

    if args.snapshot or args.against:
        snap = outlines(corpus)
        if args.snapshot:
            args.snapshot.write_text(json.dumps(snap, ensure_ascii=False, indent=0))
        if args.against:
            before = json.loads(args.against.read_text())
            for name in sorted(set(before) | set(snap)):
                old = [tuple(x) for x in before.get(name, [])]
                new = snap.get(name, [])
                if old != new:
                    gained = [x for x in new if x not in old]
                    lost = [x for x in old if x not in new]
                    print(f"{name}: {len(old)} -> {len(new)} headings, +{len(gained)} -{len(lost)}")
                    for text, level in lost[:8]:
                        print(f"    - {level} {text[:70]}")
                    for text, level in gained[:8]:
                        print(f"    + {level} {text[:70]}")
        return 0

    total_entries = total_found = total_level = 0
    print(f"{'document':58} {'entries':>7} {'found':>5} {'level':>5} {'self':>4}")
    for name, m in measured(corpus):
        total_entries += m.entries
        total_found += m.found
        total_level += m.at_level
        print(f"{name[:58]:58} {m.entries:7} {m.found:5} {m.at_level:5} {len(m.self_headings):4}")
        if args.verbose and args.verbose in name:
            for e in m.missing:
                print(f"    missing: {e}")
            for e in m.wrong_level:
                print(f"    level:   {e}")
            for e in m.self_headings:
                print(f"    self:    {e}")
    print(f"{'total':58} {total_entries:7} {total_found:5} {total_level:5}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
