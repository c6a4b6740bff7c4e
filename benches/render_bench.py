"""Page images against Hancom's own PDFs: where our SVG puts each word next to where 한글 printed
it, and how long a page takes to render.

For every document of ``../shared/hancom`` (README there) whose page count equals that of one of
its PDFs (any 한글 version's), each page's words from ``pdftotext -bbox`` (poppler-utils) are
matched to the same words in our SVG of that page (the nearest of equal text) and the distance
between their centres is measured in millimetres. Reported: the words found, the median distance,
the share within 3 mm; and the render time per page (SVG and PNG at 96 dpi, median).

    .venv/bin/python benches/render_bench.py [--hancom DIR] [--pages-per-doc N] [--json OUT]
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import statistics
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path
from typing import NamedTuple

import rhwp_core

ROOT = Path(__file__).resolve().parents[1]
FONTS = ROOT / "rhwp_mcp_tools_render" / "src" / "rhwp_mcp_tools_render" / "fonts"
SVG = "{http://www.w3.org/2000/svg}"
MM_PER_PT = 25.4 / 72


class Word(NamedTuple):
    text: str
    x: float  # centre, points
    y: float


def hancom_words(pdf: Path, page: int, size: tuple[float, float]) -> list[Word]:
    """Hancom's words on `page`, their centres scaled onto a page of `size` (points) when the
    PDF's page differs (한글 printed the document's paper onto another, scaling it)."""
    out = subprocess.run(
        ["pdftotext", "-bbox", "-f", str(page), "-l", str(page), str(pdf), "-"],
        capture_output=True,
        check=True,
        timeout=120,
    ).stdout.decode("utf-8", "replace")
    sx = sy = 1.0
    pm = re.search(r'<page width="([\d.]+)" height="([\d.]+)"', out)
    if pm:
        pw, ph = float(pm.group(1)), float(pm.group(2))
        if abs(pw - size[0]) > 0.01 * size[0] or abs(ph - size[1]) > 0.01 * size[1]:
            sx, sy = size[0] / pw, size[1] / ph
    words = []
    for m in re.finditer(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>', out):
        x0, y0, x1, y1 = (float(v) for v in m.groups()[:4])
        text = m.group(5).replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"')
        words.append(Word(text, sx * (x0 + x1) / 2, sy * (y0 + y1) / 2))
    return words


def svg_size(svg: str) -> tuple[float, float]:
    """The page's size in points (the SVG's viewBox)."""
    box = ET.fromstring(svg).attrib["viewBox"].split()
    return float(box[2]), float(box[3])


def svg_words(svg: str) -> list[Word]:
    """Our words: characters in reading order per baseline, split at spaces and wide gaps."""
    root = ET.fromstring(svg)
    chars: dict[float, list[tuple[float, float, str, float]]] = defaultdict(list)
    for t in root.iter(f"{SVG}text"):
        text = t.text or ""
        xs = [float(v) for v in t.attrib["x"].split()]
        y = float(t.attrib["y"])
        size = float(t.attrib.get("font-size", "10"))
        scale = 1.0
        m = re.match(r"matrix\(([\d.]+)", t.attrib.get("transform", ""))
        if m:
            scale = float(m.group(1))
        for k, c in enumerate(text):
            if k < len(xs):
                chars[round(y, 1)].append((xs[k] * scale, size, c, y))
    words = []
    for row in chars.values():
        row.sort()
        current: list[tuple[float, float, str, float]] = []
        for ch in [*row, (0.0, 0.0, " ", 0.0)]:
            if ch[2].isspace() or (current and ch[0] - current[-1][0] > 2.5 * ch[1]):
                if current:
                    words.append(_word(current))
                current = []
            if not ch[2].isspace():
                current.append(ch)
    return words


def _word(chars: list[tuple[float, float, str, float]]) -> Word:
    """A word's centre from its characters' x, size and baseline (an em-box guess for its end)."""
    x0 = chars[0][0]
    x1 = chars[-1][0] + chars[-1][1] * (0.55 if chars[-1][2].isascii() else 0.95)
    size = max(c[1] for c in chars)
    return Word("".join(c[2] for c in chars), (x0 + x1) / 2, chars[0][3] - 0.33 * size)


def match(theirs: list[Word], ours: list[Word]) -> tuple[list[float], int]:
    by_text: dict[str, list[Word]] = defaultdict(list)
    for w in ours:
        by_text[w.text].append(w)
    distances = []
    missing = 0
    for w in theirs:
        cands = by_text.get(w.text)
        if not cands:
            missing += 1
            continue
        d = min(((c.x - w.x) ** 2 + (c.y - w.y) ** 2) ** 0.5 for c in cands)
        distances.append(d * MM_PER_PT)
    return distances, missing


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hancom", type=Path, default=ROOT.parent / "shared" / "hancom")
    ap.add_argument("--pages-per-doc", type=int, default=10)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    rows = list(csv.DictReader((args.hancom / "MANIFEST.tsv").open(encoding="utf-8"), delimiter="\t"))
    pdfs: dict[str, list[tuple[Path, int]]] = defaultdict(list)
    for r in rows:
        pdfs[r["doc"]].append((args.hancom / r["pdf_kept"], int(r["pdf_pages"])))
    all_distances: list[float] = []
    all_missing = 0
    svg_times: list[float] = []
    png_times: list[float] = []
    per_doc: list[dict[str, object]] = []
    agree = 0
    for doc_name, candidates in sorted(pdfs.items()):
        path = args.hancom / doc_name
        try:
            doc = rhwp_core.parse(path)
        except rhwp_core.HwpError as refused:
            per_doc.append({"doc": doc_name, "error": refused.code})
            continue
        count = doc.page_count
        pdf = next((p for p, n in candidates if n == count), None)
        entry: dict[str, object] = {"doc": doc_name, "pages": count, "hancom": [n for _, n in candidates]}
        per_doc.append(entry)
        if count is None:
            entry["error"] = "no layout"
            continue
        distances: list[float] = []
        missing = 0
        for page in range(1, min(count, args.pages_per_doc) + 1):
            try:
                started = time.perf_counter()
                svg = doc.render_page(page, "svg", font_dirs=[FONTS])
                svg_times.append(time.perf_counter() - started)
                started = time.perf_counter()
                doc.render_page(page, "png", dpi=96, font_dirs=[FONTS])
                png_times.append(time.perf_counter() - started)
            except rhwp_core.HwpError as failed:
                entry["error"] = f"page {page}: {failed.code}: {failed}"
                break
            if pdf is None:
                continue
            d, m = match(hancom_words(pdf, page, svg_size(svg)), svg_words(svg))
            distances += d
            missing += m
        if pdf is not None:
            agree += 1
            all_distances += distances
            all_missing += missing
            if distances:
                entry["median_mm"] = round(statistics.median(distances), 2)
                entry["within_3mm"] = round(sum(d <= 3 for d in distances) / len(distances), 3)
            entry["words_missing"] = missing
    summary = {
        "documents": len(pdfs),
        "page_count_agrees": agree,
        "words_matched": len(all_distances),
        "words_missing": all_missing,
        "median_mm": round(statistics.median(all_distances), 2) if all_distances else None,
        "within_3mm": round(sum(d <= 3 for d in all_distances) / len(all_distances), 3) if all_distances else None,
        "svg_ms_median": round(1000 * statistics.median(svg_times), 1) if svg_times else None,
        "png_ms_median": round(1000 * statistics.median(png_times), 1) if png_times else None,
        "pages_rendered": len(svg_times),
    }
    print(json.dumps(summary, ensure_ascii=False, indent=1))
    worst = sorted(
        (row for row in per_doc if "median_mm" in row),
        key=lambda row: -float(str(row["median_mm"])),
    )[:10]
    for row in worst:
        print(f"  worst: {row['doc']}: median {row['median_mm']} mm, within 3 mm {row['within_3mm']}")
    for row in per_doc:
        if "error" in row:
            print(f"  error: {row['doc']}: {row['error']}")
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "documents": per_doc}, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
