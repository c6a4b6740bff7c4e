"""Search speed (pack ``search``, issue 26): milliseconds per query once the document is parsed.

    .venv/bin/python benches/search_bench.py [--corpus ../shared/corpus] [--top 5] [--repeat 20]

For the ``--top`` largest documents of the corpus (by the length of their text), it measures:

- ``prepare``: what the first search of a document pays once (IR, outline, the places of its blocks,
  the folded text; ``rhwp_core.load``'s parse excluded, as the budget says "after parsing");
- the median time of a query through the tool function (compile, scan, page of 20 hits built),
  over ``--repeat`` runs, for: a word sampled from the text, a spaced-out Korean word (``사업명``
  against ``사 업 명``), a word that is not there (the suggestions are computed), a
  case-insensitive Latin word, and a regular expression (``제\\s*\\d+\\s*조``).

The budget (issue 26): a 1 MB document answers a query within 50 ms after parsing.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import rhwp_core
import rhwp_mcp_tools_search as search_pack

QUERIES = {
    "word": None,  # sampled from the document's own text
    "spaced": "사업명",
    "absent": "존재하지않는낱말",
    "latin-ci": "THE",
    "regex": r"제\s*\d+\s*조",
}


def _documents(corpus: Path, top: int) -> list[tuple[int, Path]]:
    sized = []
    for folder in ("hwp", "hwpx", "legacy-hwp3"):
        for path in sorted(p for p in (corpus / folder).iterdir() if p.is_file()):
            try:
                sized.append((len(rhwp_core.parse(path).extract_text()), path))
            except rhwp_core.HwpError:
                continue
    return sorted(sized, reverse=True)[:top]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "corpus")
    parser.add_argument("--top", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    print(f"{'document':48} {'chars':>9} {'prepare ms':>10} " + " ".join(f"{q:>9}" for q in QUERIES))
    for chars, path in _documents(args.corpus, args.top):
        doc = rhwp_core.load(path)
        started = time.perf_counter()
        search_pack.index_of(doc)
        prepare = (time.perf_counter() - started) * 1000
        text = doc.extract_text()
        word = next((w for w in text[len(text) // 2 :].split() if len(w) >= 3), "문서")
        times = []
        for query in QUERIES.values():
            runs = []
            for _ in range(args.repeat):
                started = time.perf_counter()
                search_pack.search(str(path), query or word, regex=query == QUERIES["regex"], scope="all")
                runs.append((time.perf_counter() - started) * 1000)
            times.append(statistics.median(runs))
        print(f"{path.name[:48]:48} {chars:>9} {prepare:>10.0f} " + " ".join(f"{t:>9.1f}" for t in times))


if __name__ == "__main__":
    main()
