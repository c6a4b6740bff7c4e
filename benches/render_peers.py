"""Page images side by side with rhwp-python's `render_png` (PyPI), the same pages, one run.

    .venv/bin/python benches/render_peers.py --peer-python /path/to/venv/bin/python [--docs 30] [--pages 2]

The peer runs in its own virtual environment (`pip install rhwp-python`; its 0.8.x wheels need the
system's FreeType: `LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libfreetype.so.6`, which this script sets
for it). Each side parses a document once, then renders pages 1..N as PNG at 96 dpi (the peer's
scale 1.0, its own 96-dpi page), best of 3 per page; we print the median per page and the ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HANCOM = ROOT.parent / "shared" / "hancom" / "docs"

PEER = r"""
import json, sys, time
import rhwp
out = []
for path, pages in json.loads(sys.argv[1]):
    try:
        doc = rhwp.parse(path)
        for page in range(min(pages, doc.page_count)):
            times = []
            for _ in range(3):
                t = time.perf_counter(); doc.render_png(page); times.append(time.perf_counter() - t)
            out.append([path, page + 1, min(times)])
    except Exception as exc:
        out.append([path, 0, str(exc)[:100]])
print(json.dumps(out))
"""


def ours(docs: list[tuple[str, int]]) -> list[list[object]]:
    import rhwp_core
    import rhwp_mcp_tools_render

    fonts = rhwp_mcp_tools_render.font_dirs()
    out: list[list[object]] = []
    for path, pages in docs:
        try:
            doc = rhwp_core.parse(path)
            for page in range(1, min(pages, doc.page_count or 0) + 1):
                times = []
                for _ in range(3):
                    t = time.perf_counter()
                    doc.render_page(page, format="png", dpi=96, font_dirs=fonts)
                    times.append(time.perf_counter() - t)
                out.append([path, page, min(times)])
        except Exception as exc:
            out.append([path, 0, str(exc)[:100]])
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer-python", required=True)
    parser.add_argument("--docs", type=int, default=30)
    parser.add_argument("--pages", type=int, default=2)
    args = parser.parse_args(argv)
    docs = [(str(p), args.pages) for p in sorted(HANCOM.glob("*.hwp*"))[: args.docs]]
    mine = {(p, n): t for p, n, t in ours(docs) if n}
    env = dict(os.environ, LD_PRELOAD="/usr/lib/x86_64-linux-gnu/libfreetype.so.6")
    done = subprocess.run(
        [args.peer_python, "-c", PEER, json.dumps(docs)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    theirs = {(p, n): t for p, n, t in json.loads(done.stdout) if n}
    both = sorted(set(mine) & set(theirs))
    if not both:
        print("no page rendered by both")
        return 1
    a = [float(mine[k]) * 1000 for k in both]  # type: ignore[arg-type]
    b = [float(theirs[k]) * 1000 for k in both]  # type: ignore[arg-type]
    print(f"{len(both)} pages of {len({k[0] for k in both})} documents rendered by both (PNG, 96 dpi, best of 3)")
    print(f"rhwp_core   median {statistics.median(a):7.1f} ms  total {sum(a):8.0f} ms")
    print(f"rhwp-python median {statistics.median(b):7.1f} ms  total {sum(b):8.0f} ms")
    per_page = statistics.median(y / x for x, y in zip(a, b, strict=True))
    print(f"ratio (rhwp-python / ours): median of pages {per_page:.2f}×, totals {sum(b) / sum(a):.2f}×")
    return 0


if __name__ == "__main__":
    sys.exit(main())
