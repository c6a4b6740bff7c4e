"""Batch throughput: the in-process loop against rhwp-batch's process pool and Ray Data.

    .venv/bin/python benches/batch_bench.py [--corpus ../shared/corpus] [--repeat 30] [--workers 1,2]

For text (``parse`` + ``extract_text``; ``--mode text``) and for chunks (``chunk_document``,
paragraph mode, 500/50; the default ``--mode paragraph``) it measures files/s and MB/s of input
over the corpus (good and bad files alike, as an archive is), repeated ``--repeat`` times under
distinct names (a farm of symlinks, so nothing is deduplicated or resumed):

- ``loop``: the plain loop a user would write in one process (parse, text or chunks; no hashing,
  no Arrow, no Parquet): the yardstick;
- ``pool``: ``run_local`` at 1 and 2 workers (hash, rows, Parquet parts written; worker start-up
  included: the pool is started by each run);
- ``ray``: ``run_ray`` on a local Ray with ``num_cpus`` = workers (``ray.init`` excluded: a cluster
  is up before a job; Ray's worker start-up included).

Each configuration runs in a fresh process, three times, and the fastest run counts; before each
run the bench waits (up to a minute) for the machine to be idle, since other work on a 2-core
machine skews a 2-worker figure most. Peak RSS per worker is the largest VmHWM of the worker processes
(the pool's workers, Ray's ``ray::`` workers; the process itself for the loop). Targets (issue 18):
pool >= 0.7x the loop per worker, Ray >= 0.5x, two workers >= 1.2x one.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
MODES = {"text": "text", "chunks": "paragraph"}


def _farm(corpus: Path, repeat: int, dest: Path) -> list[str]:
    """``repeat`` copies of the corpus's documents under distinct names (symlinks)."""
    from rhwp_core.batch import find_documents

    docs = find_documents([corpus])
    files = []
    for k in range(repeat):
        for doc in docs:
            link = dest / f"c{k:03d}" / Path(doc).relative_to(corpus)
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(doc)
            files.append(str(link))
    return files


# --- in the measuring child -------------------------------------------------------------------


def _descendants(root: int) -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, command line) of every process below ``root``."""
    table: dict[int, tuple[int, str]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read().decode(errors="replace")
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, ValueError, IndexError):
            continue
        table[int(entry)] = (ppid, cmd)
    below: dict[int, tuple[int, str]] = {}
    frontier = [root]
    while frontier:
        parent = frontier.pop()
        for pid, (ppid, cmd) in table.items():
            if ppid == parent and pid not in below:
                below[pid] = (ppid, cmd)
                frontier.append(pid)
    return below


def _hwm_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class _WorkerPeaks(threading.Thread):
    """Polls the worker processes' VmHWM (a high-water mark: one late reading per process suffices)."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.peaks: dict[int, int] = {}
        self.stop = threading.Event()

    def run(self) -> None:
        me = os.getpid()
        while not self.stop.wait(0.5):
            procs = _descendants(me)
            for pid, (ppid, cmd) in procs.items():
                parent_cmd = procs.get(ppid, (0, ""))[1]
                pool_worker = "forkserver" in parent_cmd or "spawn_main" in cmd
                ray_worker = cmd.startswith("ray::") or "default_worker.py" in cmd
                if pool_worker or ray_worker:
                    self.peaks[pid] = max(self.peaks.get(pid, 0), _hwm_kb(pid))


def _loop(files: list[str], mode: str) -> None:
    from rhwp_core.chunking import chunk_document

    import rhwp_core

    for path in files:
        try:
            doc = rhwp_core.parse(path)
            if mode == "text":
                doc.extract_text(include_furniture=False)
            else:
                chunk_document(doc, source=path)
        except (rhwp_core.HwpError, OSError):
            pass


def _measure(engine: str, workers: int, mode: str, files: list[str], tries: int) -> dict[str, Any]:
    import resource

    from rhwp_core.batch import BatchOptions, run_local, run_ray

    options = BatchOptions(mode=MODES[mode])  # type: ignore[arg-type]
    if engine == "ray":
        import ray

        ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False, configure_logging=False)
    best = float("inf")
    peaks = _WorkerPeaks()
    peaks.start()
    for _ in range(tries):
        _wait_idle(60)  # the other tries' processes are gone; other users' work may not be
        out = tempfile.mkdtemp(prefix="batch-bench-")
        try:
            started = time.perf_counter()
            if engine == "loop":
                _loop(files, mode)
            elif engine == "pool":
                run_local(files, out, options, workers)
            else:
                run_ray(files, out, options, workers, progress_bars=False)
            best = min(best, time.perf_counter() - started)
        finally:
            shutil.rmtree(out, ignore_errors=True)
    peaks.stop.set()
    peaks.join()
    if engine == "loop":
        rss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    else:
        rss_kb = max(peaks.peaks.values(), default=0)
    return {"seconds": best, "rss_mb": rss_kb / 1024, "worker_processes": len(peaks.peaks)}


# --- the driver -------------------------------------------------------------------------------


def _busy_cores(seconds: float = 2.0) -> float:
    """Cores kept busy by other processes over ``seconds`` (from /proc/stat)."""

    def sample() -> tuple[int, int]:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
        idle = fields[3] + fields[4]  # idle + iowait
        return sum(fields), idle

    total0, idle0 = sample()
    time.sleep(seconds)
    total1, idle1 = sample()
    cores = os.cpu_count() or 1
    return cores * (1 - (idle1 - idle0) / max(1, total1 - total0))


def _wait_idle(limit: float = 120.0) -> float:
    """Wait until other processes keep less than 0.2 of a core busy (or ``limit`` seconds);
    returns the last reading. (Not the load average: the previous measurement keeps it high.)"""
    deadline = time.monotonic() + limit
    while True:
        busy = _busy_cores()
        if busy < 0.2 or time.monotonic() > deadline:
            return busy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    parser.add_argument("--repeat", type=int, default=30, help="copies of the corpus (default 30)")
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--tries", type=int, default=3)
    parser.add_argument("--engines", default="loop,pool,ray")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--one", nargs=3, metavar=("ENGINE", "WORKERS", "MODE"), help=argparse.SUPPRESS)
    parser.add_argument("--files", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.one:  # the measuring child
        engine, workers, mode = args.one[0], int(args.one[1]), args.one[2]
        files = args.files.read_text().splitlines()
        print(json.dumps(_measure(engine, workers, mode, files, args.tries)))
        return

    workers_list = [int(w) for w in args.workers.split(",")]
    engines = args.engines.split(",")
    with tempfile.TemporaryDirectory(prefix="batch-farm-") as tmp:
        files = _farm(args.corpus.resolve(), args.repeat, Path(tmp) / "farm")
        listing = Path(tmp) / "files.txt"
        listing.write_text("\n".join(files))
        megabytes = sum(os.path.getsize(f) for f in files) / 1e6
        print(
            f"{len(files)} files, {megabytes:.1f} MB ({args.repeat} x {args.corpus}), {os.cpu_count()} CPUs", flush=True
        )
        results: list[dict[str, Any]] = []
        for mode in MODES:
            for engine in engines:
                for workers in [1] if engine == "loop" else workers_list:
                    load = _wait_idle()
                    cmd = [sys.executable, __file__, "--one", engine, str(workers), mode, "--files", str(listing)]
                    cmd += ["--tries", str(args.tries)]
                    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
                    if done.returncode != 0:
                        print(f"{mode} {engine} {workers}: failed\n{done.stderr[-2000:]}", file=sys.stderr)
                        continue
                    figures = json.loads(done.stdout.strip().splitlines()[-1])
                    row = {"mode": mode, "engine": engine, "workers": workers, "busy_cores_before": load, **figures}
                    row["files_per_s"] = len(files) / row["seconds"]
                    row["mb_per_s"] = megabytes / row["seconds"]
                    results.append(row)
                    print(
                        f"  {mode:6} {engine:4} x{workers}: {row['files_per_s']:7.0f} files/s "
                        f"{row['mb_per_s']:6.1f} MB/s  peak RSS/worker {row['rss_mb']:.0f} MB "
                        f"(busy before: {load:.2f} cores)",
                        flush=True,
                    )
    print()
    print(_table(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


def _table(results: list[dict[str, Any]]) -> str:
    lines = [
        "| work | engine | workers | files/s | MB/s | per worker vs loop | 2 vs 1 worker | peak RSS per worker |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    loop = {r["mode"]: r["files_per_s"] for r in results if r["engine"] == "loop"}
    one = {(r["mode"], r["engine"]): r["files_per_s"] for r in results if r["workers"] == 1}
    for r in results:
        base = loop.get(r["mode"])
        per_worker = f"{r['files_per_s'] / r['workers'] / base:.2f}x" if base else "-"
        single = one.get((r["mode"], r["engine"]))
        scaling = f"{r['files_per_s'] / single:.2f}x" if single and r["workers"] > 1 else ""
        lines.append(
            f"| {r['mode']} | {r['engine']} | {r['workers']} | {r['files_per_s']:.0f} | {r['mb_per_s']:.1f} "
            f"| {per_worker} | {scaling} | {r['rss_mb']:.0f} MB |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
