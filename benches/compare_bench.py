"""Comparing two documents (pack ``compare``, issue 36): seconds per ``rhwp_core.compare``.

    .venv/bin/python benches/compare_bench.py [--corpus ../shared/corpus] [--repeat 3]

Pairs measured (documents parsed beforehand, so the time is the comparison: alignment, diffs,
the typed result; picture digests included where bytes are given):

- ``revision``: the corpus's largest HWPX (by text length) against a revision of it made in its
  section XML -- one character changed in every 40th text run, a paragraph's run removed every
  500, a run appended every 700, and the first 200 runs' texts moved to the end -- the shape of
  two yearly editions of one report;
- ``self``: the largest document of the corpus against itself (every block equal);
- ``twin``: the largest HWP 3.x file against Hancom's HWPX conversion of it (18,000+ blocks);
- ``every changed``: 20,000 paragraphs against 20,000 others, each different from its partner;
- ``moved``: 10,000 paragraphs against the same 10,000 shuffled (every one a move but the
  longest run kept in order).

The bar (issue 36): two versions of the largest corpus document within 2 s; the hostile pairs
bounded in time and memory (the peak resident size is printed, the process's own, in MB).
"""

from __future__ import annotations

import argparse
import io
import random
import re
import resource
import statistics
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

import rhwp_core


def _section_edit(hwpx: bytes, edit: Callable[[str], str]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(hwpx)) as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if re.fullmatch(r"Contents/section\d+\.xml", item.filename):
                data = edit(data.decode("utf-8")).encode("utf-8")
            zout.writestr(item, data)
    return out.getvalue()


def _revised(xml: str) -> str:
    """A revision: characters changed, runs removed and added, the first runs moved to the end."""
    runs = list(re.finditer(r"<hp:t>([^<]+)</hp:t>", xml))
    moved = [m.group(1) for m in runs[:200]]
    out = []
    last = 0
    for k, m in enumerate(runs):
        out.append(xml[last : m.start(1)])
        text = m.group(1)
        if k < 200:
            text = ""
        elif k % 500 == 0:
            text = ""
        elif k % 40 == 0:
            text = ("가" if text[0] != "가" else "나") + text[1:]
        elif k % 700 == 0:
            text += " (개정)"
        out.append(text)
        last = m.end(1)
    out.append(xml[last:])
    revised = "".join(out)
    tail = "".join(f"<hp:p><hp:run><hp:t>{t}</hp:t></hp:run></hp:p>" for t in moved)
    return revised.replace("</hs:sec>", tail + "</hs:sec>", 1)


def _synthetic(texts: list[str], template: bytes) -> bytes:
    body = "".join(f"<hp:p><hp:run><hp:t>{t}</hp:t></hp:run></hp:p>" for t in texts)
    return _section_edit(
        template, lambda xml: re.sub(r"(<hs:sec[^>]*>).*(</hs:sec>)", rf"\g<1>{body}\g<2>", xml, flags=re.S)
    )


def _largest(corpus: Path, folder: str, suffix: str) -> Path:
    sized = []
    for path in sorted((corpus / folder).glob(f"*{suffix}")):
        try:
            sized.append((len(rhwp_core.parse(path).extract_text()), path))
        except rhwp_core.HwpError:
            continue
    return max(sized)[1]


def _time(label: str, a: object, b: object, repeat: int) -> None:
    times = []
    result = None
    for _ in range(repeat):
        started = time.perf_counter()
        try:
            result = rhwp_core.compare(a, b)  # type: ignore[arg-type]
        except rhwp_core.TooLargeError as e:
            result = e
        times.append(time.perf_counter() - started)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if isinstance(result, Exception):
        what = f"too_large: {result}"
    else:
        assert result is not None
        s = result.summary
        what = (
            f"unchanged {s.unchanged}, modified {s.modified}, inserted {s.inserted}, "
            f"deleted {s.deleted}, moved {s.moved}"
        )
    print(f"{label:14} {statistics.median(times):7.3f} s  peak {peak:6.0f} MB  {what}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    beside = Path(__file__).resolve().parents[2] / "shared" / "corpus"
    parser.add_argument("--corpus", type=Path, default=beside if beside.is_dir() else Path("/work/shared/corpus"))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    corpus: Path = args.corpus

    hwpx = _largest(corpus, "hwpx", ".hwpx")
    original = hwpx.read_bytes()
    revision = _section_edit(original, _revised)
    print(f"revision of {hwpx.name} ({len(rhwp_core.parse(original).extract_text())} characters)")
    _time("revision", original, revision, args.repeat)

    largest = max(
        (_largest(corpus, folder, ".hwp") for folder in ("hwp", "legacy-hwp3")), key=lambda p: p.stat().st_size
    )
    print(f"self: {largest.name}")
    _time("self", largest, largest, args.repeat)

    hwp3 = _largest(corpus, "legacy-hwp3", ".hwp")
    twin = corpus / "legacy-hwp3" / "twins" / f"{hwp3.stem}.hwpx"
    if twin.exists():
        print(f"twin: {hwp3.name} against {twin.name}")
        _time("twin", hwp3, twin, args.repeat)

    template = (Path(__file__).resolve().parents[1] / "tests/fixtures/hwpx/hwpxlib-multipara.hwpx").read_bytes()
    old = rhwp_core.parse(_synthetic([f"문단 {i}의 원래 내용입니다" for i in range(20_000)], template))
    new = rhwp_core.parse(_synthetic([f"문단 {i}의 고친 내용이다" for i in range(20_000)], template))
    _time("every changed", old, new, args.repeat)
    order = list(range(10_000))
    random.Random(36).shuffle(order)
    old = rhwp_core.parse(_synthetic([f"블록 {i} 내용" for i in range(10_000)], template))
    new = rhwp_core.parse(_synthetic([f"블록 {i} 내용" for i in order], template))
    _time("moved", old, new, args.repeat)


if __name__ == "__main__":
    main()
