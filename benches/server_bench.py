"""Server benchmark: start-up, per-call latency, HTTP throughput, thread scaling, soak (the server's
budgets: benches/README.md, "The budgets").

One command; prints Markdown tables and writes benches/results/server.json (sections merge into
the file, so `--only http` updates just that part).

    python benches/server_bench.py                      # startup, latency, load, http, threads
    python benches/server_bench.py --only latency,http  # some sections
    python benches/server_bench.py --soak 10000         # the long soak alone (tests/test_soak.py's driver)

Sections:
- startup: `initialize` + `tools/list` over stdio (raw JSON-RPC on the pipes, benches/startup.py's
  runner): a bare FastMCP server with seven trivial tools, `rhwp-mcp` serving seven trivial tools from
  a pack installed for the run (the host's own cost), and `rhwp-mcp` with the three real packs.
- latency: each of the seven tools through the official MCP SDK client over stdio, on a small
  fixture, the largest corpus HWP and the largest HWPX. Cold = the first call on a new server (lazy
  imports + parse + the tool's work), one new server per sample; cached = the same call repeated
  on one server (the parsed document and rendered views are reused). Medians.
- load: in-process `rhwp_core.load(path)` on an unchanged file (the cache hit: a stat and a dict
  lookup). Target <= 1 ms.
- http: one `rhwp-mcp --transport streamable-http` server on loopback; 1, 4 and 16 concurrent SDK
  client sessions (one asyncio loop in this process) alternate extract_text / parse_hwp_summary on
  the small fixture, for --http-calls calls or --http-seconds per level; calls/s, p50, p99.
- threads: `rhwp_core.parse(path).extract_text()` on two different documents, both in one thread
  vs one thread each (speed-up = one-thread time / two-thread time, median of 5 rounds).
- sources: what documents from anywhere cost. With `--baseline REV` (a git revision), the host and
  packs of REV (pure Python, taken with `git archive`, put first on PYTHONPATH) against the
  working tree's, in alternating rounds: start-up and a cached local-path call, the costs the
  issue says must not grow. Then, current code only, a cached call on the same document given as
  a local path, a doc: handle, a data: URI (decoded and hashed on every call) and a fetched URL
  (downloaded on every call), on the small fixture and the largest corpus HWP.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parents[1]
BENCHES = ROOT / "benches"
sys.path.insert(0, str(BENCHES))
sys.path.insert(0, str(ROOT / "tests"))

import startup  # noqa: E402  (benches/startup.py: the raw stdio start-up runner)
import test_soak  # noqa: E402  (the soak driver and the SDK helpers)

CORPUS = Path(os.environ.get("RHWP_CORPUS", "/work/shared/corpus"))
SMALL = ROOT / "tests" / "fixtures" / "hwp" / "hwplib-etc.hwp"
TOOLS: list[tuple[str, dict[str, Any]]] = [
    ("parse_hwp_summary", {}),
    ("extract_text", {}),
    ("get_ir", {}),
    ("iter_blocks", {"limit": 50}),
    ("to_markdown", {}),
    ("to_html", {}),
    ("chunks", {}),
]
SECTIONS = ("startup", "latency", "load", "http", "threads", "sources")


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def documents() -> list[Path]:
    docs = [SMALL]
    for fmt in ("hwp", "hwpx"):
        found = sorted(CORPUS.glob(f"{fmt}/*.{fmt}"), key=lambda p: p.stat().st_size)
        if found:
            docs.append(found[-1])
    return docs


def ms(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    value = seconds * 1000
    return f"{value:.0f}" if value >= 100 else f"{value:.1f}" if value >= 1 else f"{value:.3f}"


# ----------------------------------------------------------------------------------------------- startup


def bench_startup(repeats: int) -> dict[str, Any]:
    python = Path(sys.executable)
    host_cmd = test_soak.command()
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp)
        startup.write_pack(site, 7)
        bare_cmd = [str(python), str(startup.write_bare(site, 7))]
        base_env = test_soak.server_env()
        trivial_env = dict(base_env, PYTHONPATH=str(site), RHWP_MCP_ENABLE="bench")
        kinds: dict[str, tuple[list[str], dict[str, str]]] = {
            "bare FastMCP, 7 trivial tools": (bare_cmd, base_env),
            "rhwp-mcp, 7 trivial tools (one pack)": (host_cmd, trivial_env),
            "rhwp-mcp, core + view + chunks (7 tools)": (host_cmd, base_env),
        }
        for cmd, env in kinds.values():  # warm the page cache and .pyc files
            startup.one_run(cmd, env, 7)
        times: dict[str, list[float]] = {name: [] for name in kinds}
        for _ in range(repeats):
            for name, (cmd, env) in kinds.items():
                times[name].append(startup.one_run(cmd, env, 7))
    medians = {name: statistics.median(values) for name, values in times.items()}
    bare = medians["bare FastMCP, 7 trivial tools"]
    return {
        "repeats": repeats,
        "rows": [
            {"server": name, "median_s": round(m, 4), "min_s": round(min(times[name]), 4), "ratio": round(m / bare, 3)}
            for name, m in medians.items()
        ],
    }


def startup_table(result: dict[str, Any]) -> str:
    lines = [
        "`initialize` + `tools/list` over stdio, process spawn to the tools/list reply, "
        f"median of {result['repeats']}:",
        "",
        "| server | median ms | min ms | ÷ bare |",
        "|---|---:|---:|---:|",
    ]
    for row in result["rows"]:
        lines.append(f"| {row['server']} | {ms(row['median_s'])} | {ms(row['min_s'])} | {row['ratio']:.2f} |")
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------------- latency


async def _stdio_calls(
    calls: list[tuple[str, dict[str, Any]]],
    repeats: int,
    rss: list[int] | None = None,
    env: dict[str, str] | None = None,
    args: tuple[str, ...] = (),
) -> list[tuple[list[float], str]]:
    """One new server; each call made ``repeats`` times in turn; (durations, outcome of the first).

    With ``rss``, the server's VmRSS (KiB) after the calls is appended to it.
    """
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    cmd = test_soak.command()
    params = StdioServerParameters(command=cmd[0], args=[*cmd[1:], *args], env=env or test_soak.server_env())
    out: list[tuple[list[float], str]] = []
    with tempfile.TemporaryFile("w+") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                for tool, args in calls:
                    durations, outcome = [], ""
                    for i in range(repeats):
                        t0 = time.perf_counter()
                        with anyio.fail_after(600):
                            result = await session.call_tool(tool, args)
                        durations.append(time.perf_counter() - t0)
                        if i == 0:
                            outcome = test_soak.outcome_of(result)
                    out.append((durations, outcome))
                if rss is not None:
                    rss.append(test_soak.vm_rss_kb(test_soak.server_pid()))
    return out


def bench_latency(docs: list[Path], cold_repeats: int, cached_repeats: int) -> dict[str, Any]:
    rows = []
    rss_after: dict[str, float] = {}
    for doc in docs:
        calls = [(tool, {"path": str(doc), **args}) for tool, args in TOOLS]
        log(f"latency: {doc.name} cached")
        # Cached: first pass warms (it is the cold call for the first tool only), then repeats.
        rss: list[int] = []
        cached = anyio.run(_stdio_calls, calls, cached_repeats + 1, rss)
        rss_after[doc.name] = round(rss[0] / 1024, 1)
        cold: dict[str, list[float]] = {tool: [] for tool, _ in TOOLS}
        for r in range(cold_repeats):
            for call in calls:
                log(f"latency: {doc.name} cold {call[0]} ({r + 1}/{cold_repeats})")
                [(durations, _)] = anyio.run(_stdio_calls, [call], 1)
                cold[call[0]].append(durations[0])
        for (tool, _), (durations, outcome) in zip(calls, cached, strict=True):
            rows.append(
                {
                    "document": doc.name,
                    "bytes": doc.stat().st_size,
                    "tool": tool,
                    "outcome": outcome,
                    "cold_median_s": round(statistics.median(cold[tool]), 5),
                    "cached_median_s": round(statistics.median(durations[1:]), 5),
                }
            )
    return {
        "cold_repeats": cold_repeats,
        "cached_repeats": cached_repeats,
        "rows": rows,
        "server_rss_mb_after_all_tools": rss_after,
    }


def latency_table(result: dict[str, Any]) -> str:
    docs = list(dict.fromkeys(r["document"] for r in result["rows"]))
    sizes = {r["document"]: r["bytes"] for r in result["rows"]}
    head = " | ".join(f"{d} ({sizes[d] / 1e6:.2f} MB) cold / cached" for d in docs)
    lines = [
        f"Per-call latency in ms over stdio (SDK client): cold = first call on a new server (median of "
        f"{result['cold_repeats']} servers), cached = repeat call (median of {result['cached_repeats']}). "
        "A code after the time is the (typed) error the call returned.",
        "",
        f"| tool | {head} |",
        "|---|" + "---:|" * len(docs),
    ]
    by_key = {(r["document"], r["tool"]): r for r in result["rows"]}
    for tool, _ in TOOLS:
        cells = []
        for d in docs:
            r = by_key[(d, tool)]
            note = "" if r["outcome"] == "ok" else f" ({r['outcome']})"
            cells.append(f"{ms(r['cold_median_s'])} / {ms(r['cached_median_s'])}{note}")
        lines.append(f"| {tool} | " + " | ".join(cells) + " |")
    rss = result.get("server_rss_mb_after_all_tools", {})
    lines.append("| server VmRSS MB after the cached run | " + " | ".join(str(rss.get(d, "—")) for d in docs) + " |")
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------------- load


def bench_load(docs: list[Path], calls: int = 2000) -> dict[str, Any]:
    import rhwp_core

    rows = []
    for doc in docs:
        t0 = time.perf_counter()
        rhwp_core.load(doc)
        first = time.perf_counter() - t0
        samples = []
        for _ in range(calls):
            t0 = time.perf_counter()
            rhwp_core.load(doc)
            samples.append(time.perf_counter() - t0)
        samples.sort()
        rows.append(
            {
                "document": doc.name,
                "first_s": round(first, 5),
                "cached_median_s": round(statistics.median(samples), 7),
                "cached_p99_s": round(samples[int(0.99 * (len(samples) - 1))], 7),
            }
        )
    return {"calls": calls, "target_s": 0.001, "rows": rows}


def load_table(result: dict[str, Any]) -> str:
    lines = [
        f"In-process `rhwp_core.load(path)`, unchanged file ({result['calls']} calls; target cached <= 1 ms):",
        "",
        "| document | first call (parse) ms | cached median ms | cached p99 ms |",
        "|---|---:|---:|---:|",
    ]
    for r in result["rows"]:
        lines.append(f"| {r['document']} | {ms(r['first_s'])} | {ms(r['cached_median_s'])} | {ms(r['cached_p99_s'])} |")
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------------- http


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_for_port(port: int, process: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the HTTP server exited with {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing listens on port {port}")


def http_client_factory() -> Callable[..., Any]:
    try:
        from mcp.client.streamable_http import streamable_http_client
    except ImportError:  # mcp 1.x
        from mcp.client.streamable_http import streamablehttp_client as streamable_http_client  # type: ignore
    return streamable_http_client  # type: ignore[no-any-return]


async def _http_level(url: str, clients: int, max_calls: int, max_seconds: float, doc: Path) -> dict[str, Any]:
    from mcp import ClientSession

    connect = http_client_factory()
    ready = anyio.Event()
    sessions_ready = 0
    issued = 0
    latencies: list[float] = []
    errors = 0
    start = end = 0.0

    async def client(index: int) -> None:
        nonlocal sessions_ready, issued, errors, start, end
        async with connect(url) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                sessions_ready += 1
                if sessions_ready == clients:
                    start = time.perf_counter()
                    ready.set()
                await ready.wait()
                while issued < max_calls and time.perf_counter() - start < max_seconds:
                    issued += 1
                    tool = "extract_text" if issued % 2 else "parse_hwp_summary"
                    t0 = time.perf_counter()
                    result = await session.call_tool(tool, {"path": str(doc)})
                    latencies.append(time.perf_counter() - t0)
                    if test_soak.outcome_of(result) != "ok":
                        errors += 1
                end = max(end, time.perf_counter())

    with anyio.fail_after(max_seconds + 120):
        async with anyio.create_task_group() as group:
            for i in range(clients):
                group.start_soon(client, i)
    latencies.sort()
    wall = end - start
    return {
        "clients": clients,
        "calls": len(latencies),
        "errors": errors,
        "seconds": round(wall, 3),
        "calls_per_s": round(len(latencies) / wall, 1),
        "p50_s": round(statistics.median(latencies), 5),
        "p99_s": round(latencies[int(0.99 * (len(latencies) - 1))], 5),
    }


def bench_http(levels: list[int], max_calls: int, max_seconds: float, doc: Path) -> dict[str, Any]:
    port = _free_port()
    with tempfile.TemporaryFile("w+b") as errlog:
        process = subprocess.Popen(
            [*test_soak.command(), "--transport", "streamable-http", "--host", "127.0.0.1", "--port", str(port)],
            env=test_soak.server_env(),
            stdout=subprocess.DEVNULL,
            stderr=errlog,
        )
        try:
            _wait_for_port(port, process)
            url = f"http://127.0.0.1:{port}/mcp"
            anyio.run(_http_level, url, 1, 20, 10.0, doc)  # warm: imports, parse, first connection
            rows = []
            for clients in levels:
                log(f"http: {clients} clients")
                rows.append(anyio.run(_http_level, url, clients, max_calls, max_seconds, doc))
        finally:
            process.terminate()
            process.wait(timeout=30)
    return {"document": doc.name, "max_calls": max_calls, "max_seconds": max_seconds, "rows": rows}


def http_table(result: dict[str, Any]) -> str:
    lines = [
        f"streamable-http on loopback, one server, extract_text / parse_hwp_summary alternating on "
        f"{result['document']} (cached), up to {result['max_calls']} calls or {result['max_seconds']:.0f} s per level:",
        "",
        "| concurrent clients | calls | errors | calls/s | p50 ms | p99 ms |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for r in result["rows"]:
        lines.append(
            f"| {r['clients']} | {r['calls']} | {r['errors']} | {r['calls_per_s']:.0f} | {ms(r['p50_s'])} "
            f"| {ms(r['p99_s'])} |"
        )
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------------- threads


def _thread_docs() -> list[Path]:
    """The largest HWP and HWPX (native work dominates a call), or two fixtures."""
    picks = documents()[1:]
    if len(picks) < 2:
        picks = [SMALL, ROOT / "tests" / "fixtures" / "hwpx" / "rhwp-footnote-01.hwpx"]
    return picks


def _one_vs_two(work: list[Callable[[], None]], rounds: int) -> dict[str, float]:
    """Both loops in one thread, then one thread each; medians of ``rounds``."""
    ratios, one_times, two_times, busy = [], [], [], []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for loop in work:
            loop()
        one = time.perf_counter() - t0
        threads = [threading.Thread(target=loop) for loop in work]
        t0, cpu0 = time.perf_counter(), time.process_time()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        two = time.perf_counter() - t0
        busy.append((time.process_time() - cpu0) / two)
        one_times.append(one)
        two_times.append(two)
        ratios.append(one / two)
    return {
        "one_thread_s": round(statistics.median(one_times), 4),
        "two_threads_s": round(statistics.median(two_times), 4),
        "speedup": round(statistics.median(ratios), 3),
        # CPU seconds per wall second while two threads ran: near 2 means both ran at once.
        "two_threads_cpu_per_wall": round(statistics.median(busy), 2),
    }


def _sized_loop(step: Callable[[], object], seconds: float = 0.3) -> tuple[Callable[[], None], int]:
    t0 = time.perf_counter()
    step()
    count = max(1, int(seconds / max(time.perf_counter() - t0, 1e-6)))

    def loop() -> None:
        for _ in range(count):
            step()

    return loop, count


def bench_threads(rounds: int = 5) -> dict[str, Any]:
    import hashlib

    import rhwp_core

    docs = _thread_docs()
    data = [d.read_bytes() for d in docs]

    def reader(blob: bytes) -> Callable[[], object]:
        return lambda: rhwp_core.parse(blob).extract_text()

    ours = [_sized_loop(reader(blob)) for blob in data]
    # The control: hashlib releases the GIL on large buffers, so it shows what two threads can
    # gain on this machine right now (other processes on the cores cap everyone alike).
    buffer = bytes(16 << 20)
    control = [_sized_loop(lambda: hashlib.sha256(buffer).digest()) for _ in range(2)]
    return {
        "documents": [d.name for d in docs],
        "loops": [count for _, count in ours],
        "cpus": os.cpu_count(),
        "rows": [
            {"work": "rhwp_core.parse(bytes).extract_text()", **_one_vs_two([loop for loop, _ in ours], rounds)},
            {"work": "control: hashlib.sha256 of 16 MB", **_one_vs_two([loop for loop, _ in control], rounds)},
        ],
    }


def threads_table(result: dict[str, Any]) -> str:
    lines = [
        "Two threads, two different documents, in a loop "
        f"({result['loops'][0]} × {result['documents'][0]}, {result['loops'][1]} × {result['documents'][1]}); "
        f"{result['cpus']} CPUs:",
        "",
        "| work | one thread, both loops s | two threads, one loop each s | speed-up "
        "| CPU s per wall s (two threads) |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in result["rows"]:
        lines.append(
            f"| {r['work']} | {r['one_thread_s']:.3f} | {r['two_threads_s']:.3f} | {r['speedup']:.2f}× "
            f"| {r['two_threads_cpu_per_wall']:.2f} |"
        )
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------------- soak


def bench_soak(n: int) -> dict[str, Any]:
    def progress(report: test_soak.SoakReport) -> None:
        if report.calls % 1000 == 0:
            log(f"soak: {report.calls} calls, RSS {report.rss_kb[-1][1] / 1024:.1f} MB")

    report = anyio.run(lambda: test_soak.soak(n, sample_every=max(100, n // 20), progress=progress))
    summary = report.summary()
    summary["growth_after_warmup_mb"] = round(report.growth_mb(after=test_soak.WARMUP_CALLS), 1)
    summary["growth_after_10pct_mb"] = round(report.growth_mb(after=max(test_soak.WARMUP_CALLS, n // 10)), 1)
    return summary


def soak_table(result: dict[str, Any]) -> str:
    lat = result["latency_ms"]
    samples = ", ".join(f"{done}: {mb}" for done, mb in result["rss_mb"])
    outcomes = ", ".join(f"{k} {v}" for k, v in result["outcomes"].items())
    return "\n".join(
        [
            f"Soak: one stdio session, {result['calls']} mixed calls (tests/test_soak.py's plan):",
            "",
            "| calls | seconds | calls/s | p50 ms | p99 ms | max ms | RSS growth after warm-up MB "
            "| after 10% MB | failures |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
            f"| {result['calls']} | {result['seconds']:.0f} | {result['calls_per_s']:.0f} | {lat['p50']} "
            f"| {lat['p99']} | {lat['max']} | {result['growth_after_warmup_mb']} | {result['growth_after_10pct_mb']} "
            f"| {result['failure_count']} |",
            "",
            f"Outcomes: {outcomes}. Server RSS (MB) by calls done: {samples}.",
        ]
    )


# ----------------------------------------------------------------------------------------------- sources


def _baseline_pythonpath(revision: str, into: Path) -> str:
    """The host and packs of ``revision`` as a PYTHONPATH (their entry points resolve to these first)."""
    folders = ["rhwp_mcp_host", "rhwp_mcp_tools_core", "rhwp_mcp_tools_view", "rhwp_mcp_tools_chunks"]
    archive = subprocess.run(
        ["git", "archive", revision, *[f"{f}/src" for f in folders]], cwd=ROOT, capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return os.pathsep.join(str(into / f / "src") for f in folders)


class _Files(threading.Thread):
    """A loopback HTTP server for the URL rows (the fetcher allows it with --fetch-allow-private)."""

    def __init__(self, folder: Path) -> None:
        import functools
        import http.server

        class Quiet(http.server.SimpleHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

        handler = functools.partial(Quiet, directory=str(folder))
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        super().__init__(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"


def bench_sources(docs: list[Path], baseline: str | None, repeats: int, rounds: int) -> dict[str, Any]:
    import base64
    import hashlib
    import shutil

    result: dict[str, Any] = {"repeats": repeats, "rounds": rounds, "baseline": baseline}
    call = ("extract_text", {"path": str(SMALL), "max_chars": 2000})
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "store"
        env = test_soak.server_env(RHWP_MCP_STORE_DIR=str(store))
        if baseline:
            base_env = dict(env, PYTHONPATH=_baseline_pythonpath(baseline, Path(tmp)))
            kinds = {"baseline": base_env, "current": env}
            startup_times: dict[str, list[float]] = {k: [] for k in kinds}
            call_times: dict[str, list[float]] = {k: [] for k in kinds}
            for r in range(rounds):
                log(f"sources: baseline vs current, round {r + 1}/{rounds}")
                for name, kind_env in kinds.items():
                    startup_times[name].append(startup.one_run(test_soak.command(), kind_env, 7))
                    [(durations, outcome)] = anyio.run(_stdio_calls, [call], repeats + 1, None, kind_env)
                    assert outcome == "ok", outcome
                    call_times[name].append(statistics.median(durations[1:]))
            result["ab"] = {
                name: {
                    "startup_median_s": round(statistics.median(startup_times[name]), 4),
                    "local_call_median_s": round(statistics.median(call_times[name]), 6),
                }
                for name in kinds
            }
        rows = []
        site = Path(tmp) / "site"
        site.mkdir()
        picked = [d for d in docs if d == SMALL or d.suffix == ".hwp"][:2]
        server = _Files(site)
        server.start()
        try:
            for doc in picked:
                shutil.copy(doc, site / doc.name)
                raw = doc.read_bytes()
                sources = {
                    "local path": str(doc),
                    "doc: handle": "doc:" + hashlib.sha256(raw).hexdigest(),
                    "data: URI": "data:;base64," + base64.b64encode(raw).decode(),
                    "URL (fetched)": f"{server.url}/{doc.name}",
                }
                calls = [("parse_hwp_summary", {"path": path}) for path in sources.values()]
                log(f"sources: {doc.name}")
                # The data: URI row runs first, so the doc: handle exists when its row runs.
                order = [2, 0, 1, 3]
                timed = anyio.run(
                    _stdio_calls,
                    [calls[i] for i in order],
                    repeats + 1,
                    None,
                    env,
                    ("--fetch", "--fetch-allow-private", "--fetch-allow-http", "--upload-max-mb", "200"),
                )
                for i, (durations, outcome) in zip(order, timed, strict=True):
                    rows.append(
                        {
                            "document": doc.name,
                            "bytes": len(raw),
                            "source": list(sources)[i],
                            "outcome": outcome,
                            "median_s": round(statistics.median(durations[1:]), 5),
                        }
                    )
        finally:
            server.server.shutdown()
            server.server.server_close()
        result["rows"] = rows
    return result


def sources_table(result: dict[str, Any]) -> str:
    lines = []
    ab = result.get("ab")
    if ab:
        base, cur = ab["baseline"], ab["current"]
        lines += [
            f"Against {result['baseline']} (its host and packs on PYTHONPATH), {result['rounds']} alternating "
            "rounds, medians:",
            "",
            "| | baseline ms | current ms | current ÷ baseline |",
            "|---|---:|---:|---:|",
            f"| start-up (initialize + tools/list, stdio) | {ms(base['startup_median_s'])} | "
            f"{ms(cur['startup_median_s'])} | {cur['startup_median_s'] / base['startup_median_s']:.2f} |",
            f"| cached extract_text, local path, stdio | {ms(base['local_call_median_s'])} | "
            f"{ms(cur['local_call_median_s'])} | {cur['local_call_median_s'] / base['local_call_median_s']:.2f} |",
            "",
        ]
    docs = list(dict.fromkeys(r["document"] for r in result["rows"]))
    sizes = {r["document"]: r["bytes"] for r in result["rows"]}
    lines += [
        f"parse_hwp_summary over stdio by source, ms (median of {result['repeats']} repeats after a first call):",
        "",
        "| source | " + " | ".join(f"{d} ({sizes[d] / 1e6:.2f} MB)" for d in docs) + " |",
        "|---|" + "---:|" * len(docs),
    ]
    by_key = {(r["document"], r["source"]): r for r in result["rows"]}
    for source in dict.fromkeys(r["source"] for r in result["rows"]):
        cells = []
        for d in docs:
            r = by_key[(d, source)]
            cells.append(ms(r["median_s"]) + ("" if r["outcome"] == "ok" else f" ({r['outcome']})"))
        lines.append(f"| {source} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------------- main


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--only", help="comma-separated sections: " + ",".join(SECTIONS))
    parser.add_argument("--soak", type=int, metavar="N", help="run the soak with N calls (alone unless --only)")
    parser.add_argument("--startup-repeats", type=int, default=9)
    parser.add_argument("--cold-repeats", type=int, default=3)
    parser.add_argument("--cached-repeats", type=int, default=15)
    parser.add_argument("--http-calls", type=int, default=200)
    parser.add_argument("--http-seconds", type=float, default=20.0)
    parser.add_argument("--http-levels", default="1,4,16")
    parser.add_argument("--out", type=Path, default=BENCHES / "results" / "server.json")
    parser.add_argument("--baseline", metavar="REV", help="sources: compare with the host and packs of this revision")
    parser.add_argument("--sources-repeats", type=int, default=20)
    parser.add_argument("--sources-rounds", type=int, default=7)
    args = parser.parse_args()

    if args.only:
        sections = [s.strip() for s in args.only.split(",") if s.strip()]
        unknown = set(sections) - set(SECTIONS)
        if unknown:
            parser.error(f"unknown sections: {', '.join(sorted(unknown))}")
    else:
        sections = [] if args.soak else list(SECTIONS)

    results: dict[str, Any] = {}
    if args.out.exists():
        try:
            results = json.loads(args.out.read_text(encoding="utf-8"))
        except ValueError:
            results = {}
    machine = {"load_average_before": load_average(), "cpus": os.cpu_count(), "python": sys.version.split()[0]}
    tables: list[str] = []
    docs = documents()
    runners: dict[str, tuple[Callable[[], dict[str, Any]], Callable[[dict[str, Any]], str]]] = {
        "startup": (lambda: bench_startup(args.startup_repeats), startup_table),
        "latency": (lambda: bench_latency(docs, args.cold_repeats, args.cached_repeats), latency_table),
        "load": (lambda: bench_load(docs), load_table),
        "http": (
            lambda: bench_http(
                [int(x) for x in args.http_levels.split(",")], args.http_calls, args.http_seconds, SMALL
            ),
            http_table,
        ),
        "threads": (bench_threads, threads_table),
        "sources": (
            lambda: bench_sources(docs, args.baseline, args.sources_repeats, args.sources_rounds),
            sources_table,
        ),
    }
    for name in sections:
        log(f"== {name}")
        run, table = runners[name]
        results[name] = run()
        tables.append(f"### {name}\n\n" + table(results[name]))
    if args.soak:
        log(f"== soak {args.soak}")
        results["soak"] = bench_soak(args.soak)
        tables.append("### soak\n\n" + soak_table(results["soak"]))
    machine["load_average_after"] = load_average()
    results["machine"] = machine
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1, ensure_ascii=False), encoding="utf-8")
    print(
        f"Machine: {machine['cpus']} CPUs, Python {machine['python']}, load average "
        f"{machine['load_average_before']} before, {machine['load_average_after']} after.\n"
    )
    print("\n\n".join(tables))
    print(f"\n(written: {args.out})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
