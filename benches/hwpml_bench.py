"""HWPML speed against HWPX's, per MB of XML (issue 24: parse + text within 2x of our HWPX figure).

    .venv/bin/python benches/hwpml_bench.py [--corpus ../shared/corpus] [--repeat 300] [--rounds 5]

Parse + ``extract_text`` (best of ``--rounds``, in process, from bytes so no file cache is timed),
in MB of XML per second:

- ``hwpx corpus``: every ``hwpx/`` document, over the inflated size of its XML parts (what the
  reader actually parses: header, sections, content lists; pictures and other binaries excluded);
- ``hwpml corpus``: every ``hml/`` document, over its size;
- ``hwpml body-heavy``: each of the three largest ``hml/`` documents with its body repeated
  ``--repeat`` times (its ``SECTION`` content copied, one to four MB), where the per-element cost
  of HWPML's renaming onto OWPML shows; the worst of them is the figure the budget is held to.

The ratio printed last is HWPX corpus MB/s over the worst body-heavy HWPML MB/s (budget: <= 2).
"""

from __future__ import annotations

import argparse
import re
import time
import zipfile
from io import BytesIO
from pathlib import Path

import rhwp_core

ROOT = Path(__file__).resolve().parents[1]


def _best(data: bytes, rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        rhwp_core.parse(data).extract_text()
        best = min(best, time.perf_counter() - started)
    return best


def _xml_size(package: bytes) -> int:
    with zipfile.ZipFile(BytesIO(package)) as z:
        return sum(i.file_size for i in z.infolist() if i.filename.lower().endswith((".xml", ".hpf")))


def _body_heavy(text: str, repeat: int) -> bytes:
    """The document with its first section's content repeated ``repeat`` times."""
    m = re.search(r"(<SECTION[^>]*>)(.*?)(</SECTION>)", text, re.S)
    if m is None:
        raise SystemExit("no SECTION in the document")
    body = m.group(2)
    # The first top-level paragraph holds the section definition (SECDEF): keep it once.
    depth, first_end = 0, len(body)
    for tag in re.finditer(r"<(/?)P[\s>/]", body):
        depth += -1 if tag.group(1) else 1
        if depth == 0:
            first_end = body.index(">", tag.start()) + 1
            break
    rest = body[first_end:]
    return (text[: m.start(2)] + body[:first_end] + rest * repeat + text[m.end(2) :]).encode("utf-8")


def _rate(files: list[tuple[str, bytes, int]], rounds: int) -> tuple[float, list[tuple[str, float, int]]]:
    total_bytes, total_time, rows = 0, 0.0, []
    for name, data, size in files:
        took = _best(data, rounds)
        total_bytes += size
        total_time += took
        rows.append((name, size / took / 1e6, size))
    return total_bytes / total_time / 1e6, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    parser.add_argument("--repeat", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    hwpx = []
    for path in sorted((args.corpus / "hwpx").glob("*.hwpx")):
        data = path.read_bytes()
        hwpx.append((path.name, data, _xml_size(data)))
    hml = [(p.name, p.read_bytes(), p.stat().st_size) for p in sorted((args.corpus / "hml").glob("*.hml"))]
    largest = sorted(hml, key=lambda f: f[2])[-3:]
    heavy = []
    for name, data, _ in largest:
        grown = _body_heavy(data.decode("utf-8-sig"), args.repeat)
        heavy.append((f"{name} x{args.repeat}", grown, len(grown)))

    hwpx_rate, _ = _rate(hwpx, args.rounds)
    hml_rate, _ = _rate(hml, args.rounds)
    _, heavy_rows = _rate(heavy, args.rounds)
    print(f"hwpx corpus        {len(hwpx):3} documents  {hwpx_rate:7.1f} MB/s of XML")
    print(f"hwpml corpus       {len(hml):3} documents  {hml_rate:7.1f} MB/s")
    for name, rate, size in heavy_rows:
        print(f"hwpml body-heavy   {name}  {size / 1e6:5.2f} MB  {rate:7.1f} MB/s")
    worst = min(rate for _, rate, _ in heavy_rows)
    print(f"HWPX corpus / worst body-heavy HWPML: {hwpx_rate / worst:.2f}x (budget <= 2)")


if __name__ == "__main__":
    main()
