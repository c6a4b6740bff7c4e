"""Memory budget: peak RSS per corpus document against the document's inflated size, which the budget
(benches/README.md, "The budgets") bounds by a small multiple.

Each document is read in a fresh child process (so one document's peak cannot hide another's):

1. ``import rhwp_core`` → baseline peak RSS;
2. ``parse(path)`` + ``extract_text()`` → the "text" peak (the benchmark figure of the reader);
3. the IR and view modules are imported (their code is a fixed cost, not the document's), then
   ``to_ir()`` + ``to_markdown()`` → the "views" peak.

Deltas are ``ru_maxrss`` differences against the baseline (peak, not current, RSS; Linux reports
KiB). The document's inflated size is what a reader has to hold once decompressed: for HWPX the
sum of the uncompressed sizes of ``Contents/header.xml`` and ``Contents/section*.xml`` (read with
``zipfile``), for HWP the DocInfo + BodyText/ViewText streams after inflation, as the Rust raw-floor
example reports them (``cargo run --release -p rhwp-reader --example floor``); when that binary is
missing, the file size stands in and the row says so. The report gives each ratio's distribution
(median, p90, max) and the worst documents.

    python benches/memory_bench.py [--corpus DIR] [--floor BIN] [--limit N] [--out benches/results/memory.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = Path(os.environ.get("RHWP_CORPUS", "/work/shared/corpus"))
DEFAULT_FLOOR = ROOT / "target" / "release" / "examples" / "floor"
MB = 1024 * 1024


def _current_rss() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def child(path: str) -> dict[str, Any]:
    """Runs inside the fresh process: the peaks, in bytes."""
    import resource

    def peak() -> int:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux

    import rhwp_core

    out: dict[str, Any] = {"baseline": peak()}
    try:
        doc = rhwp_core.parse(path)
        text = doc.extract_text()
        out["text"] = peak()
        out["text_chars"] = len(text)
        # Module code is a per-process cost, not the document's: import it first and measure how
        # much resident memory it added, so the views figure can leave it out.
        import importlib

        before = _current_rss()
        for module in ("rhwp_core.ir",):
            try:
                importlib.import_module(module)
            except ImportError:
                pass
        out["modules"] = max(0, _current_rss() - before)
        ir = doc.to_ir()
        out["ir"] = peak()
        markdown = doc.to_markdown()
        out["views"] = peak()
        out["markdown_chars"] = len(markdown)
        del ir
    except Exception as exc:  # a corpus document that does not read is reported, not fatal
        out["error"] = f"{type(exc).__name__}: {exc}"[:300]
    return out


def inflated_hwpx(path: Path) -> tuple[int, int]:
    """(header + sections inflated, every entry inflated) for an HWPX package."""
    with zipfile.ZipFile(path) as package:
        infos = package.infolist()
    everything = sum(i.file_size for i in infos)
    parts = sum(
        i.file_size
        for i in infos
        if i.filename == "Contents/header.xml"
        or (i.filename.startswith("Contents/section") and i.filename.endswith(".xml"))
    )
    return parts, everything


def inflated_hwp(files: list[Path], floor: Path | None) -> dict[str, int]:
    """Inflated DocInfo + BodyText/ViewText bytes per HWP file, from the raw-floor example."""
    if floor is None or not floor.exists() or not files:
        return {}
    done = subprocess.run([str(floor), *map(str, files)], capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        print(f"floor failed: {done.stderr[-500:]}", file=sys.stderr)
        return {}
    rows = json.loads(done.stdout)["files"]
    return {row["path"]: int(row["inflated_bytes"]) for row in rows if "inflated_bytes" in row}


def distribution(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
    return {"median": statistics.median(ordered), "p90": p90, "max": ordered[-1], "min": ordered[0]}


def run(corpus: Path, floor: Path | None, limit: int | None) -> dict[str, Any]:
    documents = sorted(corpus.glob("hwp/*.hwp")) + sorted(corpus.glob("hwpx/*.hwpx"))
    if limit:
        documents = documents[:limit]
    hwp_sizes = inflated_hwp([d for d in documents if d.suffix == ".hwp"], floor)
    rows: list[dict[str, Any]] = []
    for doc in documents:
        row: dict[str, Any] = {"document": f"{doc.parent.name}/{doc.name}", "file_bytes": doc.stat().st_size}
        if doc.suffix == ".hwpx":
            try:
                row["inflated_bytes"], row["package_inflated_bytes"] = inflated_hwpx(doc)
                row["inflated_from"] = "zipfile"
            except (zipfile.BadZipFile, OSError) as exc:
                row["inflated_bytes"], row["inflated_from"] = doc.stat().st_size, f"file size ({exc})"
        elif str(doc) in hwp_sizes:
            row["inflated_bytes"], row["inflated_from"] = hwp_sizes[str(doc)], "floor"
        else:
            row["inflated_bytes"], row["inflated_from"] = doc.stat().st_size, "file size"
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, __file__, "--child", str(doc)], capture_output=True, text=True, timeout=300, check=False
        )
        row["seconds"] = round(time.perf_counter() - started, 3)
        if done.returncode != 0:
            row["error"] = f"child exited {done.returncode}: {done.stderr[-300:]}"
            rows.append(row)
            continue
        peaks = json.loads(done.stdout)
        if "error" in peaks:
            row["error"] = peaks["error"]
        row["baseline_bytes"] = peaks["baseline"]
        if "text" in peaks:
            row["text_delta_bytes"] = peaks["text"] - peaks["baseline"]
        if "views" in peaks:
            row["modules_bytes"] = peaks["modules"]
            row["ir_delta_bytes"] = max(0, peaks["ir"] - peaks["baseline"] - peaks["modules"])
            row["views_delta_bytes"] = max(0, peaks["views"] - peaks["baseline"] - peaks["modules"])
        inflated = max(1, row["inflated_bytes"])
        for key in ("text", "views"):
            if f"{key}_delta_bytes" in row:
                row[f"{key}_ratio"] = round(row[f"{key}_delta_bytes"] / inflated, 3)
        rows.append(row)
        print(
            f"  {row['document']:<60} inflated {inflated / MB:7.2f} MB"
            f"  text Δ {row.get('text_delta_bytes', 0) / MB:7.2f} MB"
            f"  views Δ {row.get('views_delta_bytes', 0) / MB:7.2f} MB",
            file=sys.stderr,
        )
    return {"corpus": str(corpus), "documents": rows, "summary": summarise(rows)}


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    read = [r for r in rows if "error" not in r]
    out: dict[str, Any] = {
        "documents": len(rows),
        "read": len(read),
        "failed": [r["document"] for r in rows if "error" in r],
    }
    for label, subset in (("all", read), ("inflated >= 1 MB", [r for r in read if r["inflated_bytes"] >= MB])):
        out[label] = {
            "count": len(subset),
            "text_ratio": distribution([r["text_ratio"] for r in subset if "text_ratio" in r]),
            "views_ratio": distribution([r["views_ratio"] for r in subset if "views_ratio" in r]),
            "text_delta_mb": distribution([r["text_delta_bytes"] / MB for r in subset if "text_delta_bytes" in r]),
            "views_delta_mb": distribution([r["views_delta_bytes"] / MB for r in subset if "views_delta_bytes" in r]),
        }
    out["baseline_mb"] = distribution([r["baseline_bytes"] / MB for r in read])
    out["modules_mb"] = distribution([r["modules_bytes"] / MB for r in read if "modules_bytes" in r])
    return out


def markdown(report: dict[str, Any]) -> str:
    summary = report["summary"]
    lines = [
        f"Peak RSS per document, fresh process each ({summary['read']}/{summary['documents']} read; "
        f"baseline after `import rhwp_core`: median {summary['baseline_mb']['median']:.1f} MB; importing the IR "
        f"and view modules adds {summary['modules_mb'].get('median', 0):.1f} MB of code once per process, "
        "left out of the views Δ). text Δ = peak after parse + extract_text − baseline; views Δ = peak after "
        "also to_ir + to_markdown − baseline − module code.",
        "",
        "| documents | n | text Δ MB median / max | text Δ ÷ inflated: median / p90 / max "
        "| views Δ MB median / max | views Δ ÷ inflated: median / p90 / max |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for label in ("all", "inflated >= 1 MB"):
        s = summary[label]
        if not s["count"]:
            continue
        t, v, tm, vm = s["text_ratio"], s["views_ratio"], s["text_delta_mb"], s["views_delta_mb"]
        lines.append(
            f"| {label} | {s['count']} | {tm['median']:.1f} / {tm['max']:.1f} "
            f"| {t['median']:.2f} / {t['p90']:.2f} / {t['max']:.2f} "
            f"| {vm['median']:.1f} / {vm['max']:.1f} | {v['median']:.2f} / {v['p90']:.2f} / {v['max']:.2f} |"
        )
    read = [r for r in report["documents"] if "error" not in r]
    lines += [
        "",
        "Largest documents and worst ratios:",
        "",
        "| document | file MB | inflated MB (from) | text Δ MB | ÷ inflated | to_ir Δ MB | views Δ MB | ÷ inflated |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    largest = sorted(read, key=lambda r: -r["inflated_bytes"])[:5]
    worst = sorted(
        (r for r in read if r not in largest and r["inflated_bytes"] >= 64 * 1024),
        key=lambda r: -r.get("views_ratio", 0),
    )[:5]
    for r in largest + worst:
        lines.append(
            f"| {r['document']} | {r['file_bytes'] / MB:.2f} | {r['inflated_bytes'] / MB:.2f} ({r['inflated_from']}) "
            f"| {r.get('text_delta_bytes', 0) / MB:.1f} | {r.get('text_ratio', 0):.2f} "
            f"| {r.get('ir_delta_bytes', 0) / MB:.1f} "
            f"| {r.get('views_delta_bytes', 0) / MB:.1f} | {r.get('views_ratio', 0):.2f} |"
        )
    if summary["failed"]:
        lines += ["", "Not read: " + ", ".join(summary["failed"])]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--floor", type=Path, default=DEFAULT_FLOOR)
    parser.add_argument("--limit", type=int)
    parser.add_argument("--out", type=Path, default=ROOT / "benches" / "results" / "memory.json")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child)))
        return 0
    if not args.floor.exists():
        print(
            f"{args.floor} missing: HWP inflated sizes fall back to file sizes "
            "(build it: cargo build --release -p rhwp-reader --example floor)",
            file=sys.stderr,
        )
    report = run(args.corpus, args.floor if args.floor.exists() else None, args.limit)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1, ensure_ascii=False), encoding="utf-8")
    print(markdown(report))
    print(f"\n(written: {args.out})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
