"""A tool call's own cost and the server's start-up, against a bare FastMCP server (the floor).

Three measures, each a ratio taken in one run (benches/README.md, "The budgets"):

- call: the same answer over stdio (the MCP SDK client spawning the server) from a bare FastMCP
  server whose one tool returns a prepared result, and from ``rhwp-mcp``'s ``parse_hwp_summary``
  on a document it has already parsed (cached). The prepared results are what ``rhwp-mcp``
  answered for the same documents in this run: a small document (~0.5 KB) and one with a long
  outline (~20 KB). The two servers run side by side and their calls alternate; the figure is the
  median per call and the ratio ours ÷ bare (goal <= 1.2).
- repeat: ``parse_hwp_summary`` on each of the three largest corpus documents, a new server each
  (warmed by a call on the small fixture, so the first call pays the parse, not the imports): the
  repeated call's median ÷ the first call (goal <= 0.2).
- startup: ``initialize`` + ``tools/list`` (benches/startup.py's raw JSON-RPC runner), ``rhwp-mcp``
  with every installed pack against a bare FastMCP server with as many trivial tools, alternating;
  medians and ratio (goal <= 1.1); ``kordoc-mcp`` (npm) beside them when ``--kordoc`` names its
  command (e.g. ``/tmp/kordoc/node_modules/.bin/kordoc-mcp``).

- inprocess: the call comparison in this process (``server.call_tool``, no transport), the host's
  own work without the pipes' noise.

    python benches/call_cost.py [--calls 200] [--repeats 9] [--only call,inprocess,repeat,startup] [--kordoc CMD]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benches"))
sys.path.insert(0, str(ROOT / "tests"))

import startup  # noqa: E402  (the raw stdio start-up runner)
import test_soak  # noqa: E402  (the server command and environment)

CORPUS = Path(os.environ.get("RHWP_CORPUS", "/work/shared/corpus"))
SMALL = ROOT / "tests" / "fixtures" / "hwp" / "hwplib-etc.hwp"
LONG_OUTLINE = CORPUS / "hwpx" / "rhwp-kwater-rfp-2004.hwpx"
TOOL = "parse_hwp_summary"

BARE = '''
import json
from typing import Any
from fastmcp import FastMCP

ANSWERS: dict[str, Any] = json.load(open({answers!r}, encoding="utf-8"))
SCHEMA: dict[str, Any] = json.load(open({schema!r}, encoding="utf-8"))
mcp = FastMCP("bare")


@mcp.tool(output_schema=SCHEMA)
def parse_hwp_summary(path: str) -> dict[str, Any]:
    """The prepared answer for this path, declared with rhwp-mcp's output schema."""
    return ANSWERS[path]


@mcp.tool
def parse_hwp_summary_plain(path: str) -> dict[str, Any]:
    """The prepared answer for this path, declared as any object."""
    return ANSWERS[path]


mcp.run(transport="stdio", show_banner=False)
'''


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def largest_documents(count: int = 3) -> list[Path]:
    found = [p for fmt in ("hwp", "hwpx") for p in CORPUS.glob(f"{fmt}/*.{fmt}")]
    return sorted(found, key=lambda p: p.stat().st_size)[-count:][::-1]


@asynccontextmanager
async def session_of(cmd: list[str], env: dict[str, str]) -> AsyncIterator[Any]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=env)
    with tempfile.TemporaryFile("w+") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


async def timed_call(session: Any, path: str, tool: str = TOOL) -> tuple[float, Any]:
    t0 = time.perf_counter()
    with anyio.fail_after(600):
        result = await session.call_tool(tool, {"path": path})
    elapsed = time.perf_counter() - t0
    if test_soak.outcome_of(result) != test_soak.OK:
        raise RuntimeError(f"{TOOL}({path}) failed: {test_soak.reply_text(result)[:300]}")
    return elapsed, result


def answer_of(result: Any) -> tuple[str, Any]:
    return test_soak.reply_text(result), test_soak.field_of(result, "structured_content", "structuredContent")


async def bench_call(calls: int) -> dict[str, Any]:
    docs = [SMALL, LONG_OUTLINE]
    ours_env = test_soak.server_env()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        answers_file = Path(tmp) / "answers.json"
        schema_file = Path(tmp) / "schema.json"
        bare_script = Path(tmp) / "bare_server.py"
        async with session_of(test_soak.command(), ours_env) as ours:
            listed = {tool.name: tool for tool in (await ours.list_tools()).tools}
            schema = test_soak.field_of(listed[TOOL], "output_schema", "outputSchema")
            schema_file.write_text(json.dumps(schema), encoding="utf-8")
            answers: dict[str, Any] = {}
            for doc in docs:
                _, result = await timed_call(ours, str(doc))  # parses: the document is cached from here
                answers[str(doc)] = answer_of(result)[1]
            answers_file.write_text(json.dumps(answers, ensure_ascii=False), encoding="utf-8")
            bare_script.write_text(BARE.format(answers=str(answers_file), schema=str(schema_file)), encoding="utf-8")
            async with session_of([sys.executable, str(bare_script)], ours_env) as bare:
                for doc in docs:
                    path = str(doc)
                    ours_text, ours_structured = answer_of((await timed_call(ours, path))[1])
                    bare_text, bare_structured = answer_of((await timed_call(bare, path))[1])
                    if ours_structured != bare_structured or json.loads(ours_text) != json.loads(bare_text):
                        raise RuntimeError(f"the bare server's answer for {doc.name} differs from ours")
                    for _ in range(10):  # warm both paths
                        await timed_call(ours, path)
                        await timed_call(bare, path)
                    ours_times, bare_times, plain_times = [], [], []
                    for _ in range(calls):
                        ours_times.append((await timed_call(ours, path))[0])
                        bare_times.append((await timed_call(bare, path))[0])
                        plain_times.append((await timed_call(bare, path, TOOL + "_plain"))[0])
                    ours_ms = statistics.median(ours_times) * 1000
                    bare_ms = statistics.median(bare_times) * 1000
                    plain_ms = statistics.median(plain_times) * 1000
                    rows.append(
                        {
                            "document": doc.name,
                            "answer_chars": len(ours_text),
                            "bare_plain_ms": round(plain_ms, 2),
                            "bare_ms": round(bare_ms, 2),
                            "ours_ms": round(ours_ms, 2),
                            "ratio": round(ours_ms / bare_ms, 3),
                        }
                    )
                    log(f"call: {rows[-1]}")
    return {"calls": calls, "goal": 1.2, "rows": rows}


async def bench_inprocess(calls: int) -> dict[str, Any]:
    """The same comparison without the transport: ``server.call_tool`` in this process (FastMCP's
    middleware, the tool, result conversion), where a busy machine's noise is smaller than the
    host's own work."""
    from fastmcp import FastMCP
    from rhwp_mcp_host.server.host import create_host

    ours = create_host(env={}).server
    tool = await ours.get_tool(TOOL)
    if tool is None:
        raise RuntimeError(f"rhwp-mcp serves no {TOOL}")
    answers: dict[str, dict[str, Any]] = {}
    for doc in (SMALL, LONG_OUTLINE):
        answers[str(doc)] = (await ours.call_tool(TOOL, {"path": str(doc)})).structured_content or {}
    bare = FastMCP("bare")

    @bare.tool(name=TOOL, output_schema=tool.output_schema)
    def prepared(path: str) -> dict[str, Any]:
        return answers[path]

    async def median_us(server: Any, path: str) -> float:
        times = []
        for _ in range(calls):
            t0 = time.perf_counter()
            await server.call_tool(TOOL, {"path": path})
            times.append(time.perf_counter() - t0)
        return statistics.median(times) * 1e6

    rows = []
    for path in answers:
        rounds = [(await median_us(bare, path), await median_us(ours, path)) for _ in range(5)]
        bare_us = statistics.median(b for b, _ in rounds)
        ours_us = statistics.median(o for _, o in rounds)
        rows.append(
            {
                "document": Path(path).name,
                "bare_us": round(bare_us),
                "ours_us": round(ours_us),
                "ratio": round(ours_us / bare_us, 3),
            }
        )
        log(f"inprocess: {rows[-1]}")
    return {"calls": calls, "rows": rows}


async def bench_repeat(repeats: int) -> dict[str, Any]:
    rows = []
    for doc in largest_documents():
        async with session_of(test_soak.command(), test_soak.server_env()) as ours:
            await timed_call(ours, str(SMALL))  # the imports, so the first call below is the parse
            first, _ = await timed_call(ours, str(doc))
            again = [(await timed_call(ours, str(doc)))[0] for _ in range(repeats)]
        rows.append(
            {
                "document": doc.name,
                "mb": round(doc.stat().st_size / 1e6, 2),
                "first_ms": round(first * 1000, 1),
                "repeat_ms": round(statistics.median(again) * 1000, 2),
                "ratio": round(statistics.median(again) / first, 3),
            }
        )
        log(f"repeat: {rows[-1]}")
    return {"repeats": repeats, "goal": 0.2, "rows": rows}


def listed_tools(cmd: list[str], env: dict[str, str]) -> int:
    """How many tools a server lists (startup.one_run names the count when it is not the expected one)."""
    try:
        startup.one_run(cmd, env, -1)
    except RuntimeError as exc:
        if " listed " in str(exc):
            return int(str(exc).split(" listed ")[1].split()[0])
        raise
    raise RuntimeError(f"{cmd} listed -1 tools")


def bench_startup(repeats: int, kordoc: str | None) -> dict[str, Any]:
    env = test_soak.server_env()
    n = listed_tools(test_soak.command(), env)
    with tempfile.TemporaryDirectory() as tmp:
        bare_cmd = [sys.executable, str(startup.write_bare(Path(tmp), n))]
        kinds: dict[str, list[str]] = {
            f"bare FastMCP, {n} trivial tools": bare_cmd,
            f"rhwp-mcp, every pack ({n} tools)": test_soak.command(),
        }
        if kordoc:
            kinds["kordoc-mcp (npm)"] = kordoc.split()
        # Counting the tools also warms the page cache and .pyc files.
        counts = {name: listed_tools(cmd, env) for name, cmd in kinds.items()}
        times: dict[str, list[float]] = {name: [] for name in kinds}
        for _ in range(repeats):
            for name, cmd in kinds.items():
                times[name].append(startup.one_run(cmd, env, counts[name]))
    medians = {name: statistics.median(values) for name, values in times.items()}
    bare = medians[f"bare FastMCP, {n} trivial tools"]
    rows = [
        {
            "server": name,
            "tools": counts[name],
            "median_ms": round(m * 1000),
            "min_ms": round(min(times[name]) * 1000),
            "ratio": round(m / bare, 3),
        }
        for name, m in medians.items()
    ]
    for row in rows:
        log(f"startup: {row}")
    return {"repeats": repeats, "goal": 1.1, "rows": rows}


def markdown_table(title: str, head: list[str], rows: list[list[Any]]) -> list[str]:
    """A title line and a Markdown table, the first column left-aligned, the others right."""
    lines = [title, "", "| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return [*lines, ""]


def cells(row: dict[str, Any], *keys: str) -> list[str]:
    return [f"{row[key]:.2f}" for key in keys]


def tables(result: dict[str, Any]) -> str:
    """Each measured section as a titled Markdown table."""
    sections: dict[str, tuple[str, list[str], Callable[[dict[str, Any]], list[Any]]]] = {
        "call": (
            "A call's own cost over stdio, `{tool}`, median of {calls} alternating calls (goal ÷ bare <= {goal}); "
            "bare = the prepared answer under the same output schema (the client checks the answer against it), "
            "bare, any object = under a schema that checks nothing:",
            ["document", "answer chars", "bare, any object ms", "bare ms", "rhwp-mcp ms", "÷ bare"],
            lambda x: [x["document"], x["answer_chars"], *cells(x, "bare_plain_ms", "bare_ms", "ours_ms", "ratio")],
        ),
        "inprocess": (
            "The same call in process (`server.call_tool`, no transport), median of 5 rounds of {calls}:",
            ["document", "bare FastMCP µs", "rhwp-mcp µs", "÷ bare"],
            lambda x: [x["document"], x["bare_us"], x["ours_us"], *cells(x, "ratio")],
        ),
        "repeat": (
            "Repeated `{tool}` ÷ its first call, the three largest corpus documents, median of {repeats} "
            "(goal <= {goal}):",
            ["document", "MB", "first ms", "repeated ms", "ratio"],
            lambda x: [x["document"], x["mb"], x["first_ms"], x["repeat_ms"], f"{x['ratio']:.3f}"],
        ),
        "startup": (
            "`initialize` + `tools/list` over stdio, median of {repeats} alternating (goal ÷ bare <= {goal}):",
            ["server", "tools", "median ms", "min ms", "÷ bare"],
            lambda x: [x["server"], x["tools"], x["median_ms"], x["min_ms"], *cells(x, "ratio")],
        ),
    }
    out: list[str] = []
    for key, (title, head, row) in sections.items():
        if key in result:
            r = result[key]
            out += markdown_table(title.format(tool=TOOL, **r), head, [row(x) for x in r["rows"]])
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--only", default="call,inprocess,repeat,startup")
    parser.add_argument("--kordoc", default=None, help="the kordoc-mcp command, e.g. npx kordoc-mcp")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args()
    only = set(args.only.split(","))
    log(f"load average before: {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")
    result: dict[str, Any] = {}
    if "call" in only:
        result["call"] = anyio.run(bench_call, args.calls)
    if "inprocess" in only:
        result["inprocess"] = anyio.run(bench_inprocess, args.calls)
    if "repeat" in only:
        result["repeat"] = anyio.run(bench_repeat, args.repeats)
    if "startup" in only:
        result["startup"] = bench_startup(args.repeats, args.kordoc)
    log(f"load average after: {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")
    print(tables(result))
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
