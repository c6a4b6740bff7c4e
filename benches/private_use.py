#!/usr/bin/env python3
"""Private-use code points left in our text over the whole corpus, each remaining one with why.

Hancom's private-use characters (its symbol area in the U+F0000 plane, symbol-font codes at
U+F020..U+F0FF, Hanyang-PUA old Hangul at U+E0BC..U+F8F7) are shown as what 한글 draws for them
(`rhwp_core/reader/src/common/private_use.rs`); a code point without a known mapping stays. This
counts what stays in `extract_text()` of every corpus document (`bad/` excluded), per document and
per code point, and says why each remaining one has no mapping (`WHY`). Before the mapping (main of
2026-11-28): 75,372 code points in 17 documents. With `--max N` it exits 1 when more than N remain.

    python benches/private_use.py [--corpus DIR] [--max N] [--json]

(the corpus: --corpus, else $RHWP_CORPUS, else ../shared/corpus next to the checkout).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

import rhwp_core

ROOT = Path(__file__).resolve().parents[1]
SUFFIXES = {".hwp", ".hwpx", ".hml", ".hwpml"}
# Before the mapping, on the same corpus and with the same count (benches/private_use.py on main).
BEFORE = 75_372

# Why a code point has no mapping yet: what we know of it and what is missing to map it.
WHY: dict[range, str] = {
    range(0xF0288, 0xF0292): "digits Hancom draws overlapped (글자 겹치기) in an HWP 3.x manual; "
    "the glyph of each part alone is in no Hancom PDF we hold",
    range(0xF02BA, 0xF02C6): "parts of a boxed two-digit number drawn by overlapping two codes "
    "(mel-001 p. 16 shows U+F02BA+U+F02C3 as a boxed 10); what each part draws alone is unknown",
    range(0xF0804, 0xF0827): "box-drawing pieces of HNC's line set (joints of the ━ rules); which "
    "joint each is needs a Hancom rendering of the HWP 3.x manual that holds them",
    range(0xF007F, 0xF0080): "a white down arrow in a black square (basic__request p. 1): no "
    "Unicode character draws it",
}


def why(code: int) -> str:
    for r, text in WHY.items():
        if code in r:
            return text
    return "no source for what 한글 draws (not in a Hancom PDF we hold, no agreeing readers)"


def default_corpus() -> Path:
    """$RHWP_CORPUS, else `../shared/corpus` next to the checkout, else /work/shared/corpus."""
    if os.environ.get("RHWP_CORPUS"):
        return Path(os.environ["RHWP_CORPUS"])
    for candidate in (ROOT.parent / "shared" / "corpus", Path("/work/shared/corpus")):
        if candidate.is_dir():
            return candidate
    return ROOT.parent / "shared" / "corpus"


def documents(corpus: Path) -> list[Path]:
    return sorted(
        p
        for p in corpus.rglob("*")
        if p.is_file() and "bad" not in p.relative_to(corpus).parts and p.suffix.lower() in SUFFIXES
    )


def is_private_use(o: int) -> bool:
    return 0xE000 <= o <= 0xF8FF or o >= 0xF0000


@dataclass
class Measure:
    total: int = 0
    summary_private_use_left: int = 0
    per_document: dict[str, int] = field(default_factory=dict)
    per_code_point: collections.Counter[int] = field(default_factory=collections.Counter)
    where: dict[int, set[str]] = field(default_factory=lambda: collections.defaultdict(set))

    def rows(self) -> list[dict[str, object]]:
        return [
            {"code_point": f"U+{c:04X}", "count": n, "documents": sorted(self.where[c]), "why": why(c)}
            for c, n in sorted(self.per_code_point.items())
        ]


def measure(corpus: Path) -> Measure:
    m = Measure()
    for path in documents(corpus):
        try:
            doc = rhwp_core.load(str(path))
            text = doc.extract_text()
        except rhwp_core.HwpError:
            continue  # unreadable or password-protected: counted by the corpus report, not here
        name = str(path.relative_to(corpus))
        n = 0
        for ch in text:
            o = ord(ch)
            if is_private_use(o):
                n += 1
                m.per_code_point[o] += 1
                m.where[o].add(name)
        if n:
            m.per_document[name] = n
        m.total += n
        m.summary_private_use_left += doc.summary()["private_use_left"]
    return m


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--corpus", type=Path, default=default_corpus())
    ap.add_argument("--max", type=int, default=None, help="exit 1 when more code points remain")
    ap.add_argument("--json", action="store_true", help="print the measure as JSON")
    args = ap.parse_args(argv)
    if not args.corpus.is_dir():
        print(f"no corpus at {args.corpus}", file=sys.stderr)
        return 2
    m = measure(args.corpus)
    if args.json:
        out = {
            "before": BEFORE,
            "total": m.total,
            "documents": len(m.per_document),
            "summary_private_use_left": m.summary_private_use_left,
            "per_document": dict(sorted(m.per_document.items(), key=lambda kv: -kv[1])),
            "per_code_point": m.rows(),
        }
        print(json.dumps(out, ensure_ascii=False, indent=1))
    else:
        share = 100 * m.total / BEFORE
        print(f"private-use code points in extract_text: {m.total} in {len(m.per_document)} documents")
        print(f"before the mapping: {BEFORE}; now {share:.2f} % of that")
        print(f"summary()['private_use_left'] over the same documents: {m.summary_private_use_left}")
        for row in m.rows():
            docs = ", ".join(str(d) for d in row["documents"])  # type: ignore[attr-defined]
            print(f"  {row['code_point']} x{row['count']} in {docs}: {row['why']}")
    if args.max is not None and m.total > args.max:
        print(f"more than {args.max} remain", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
