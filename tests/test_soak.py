"""Soak: one `rhwp-mcp` stdio session, many mixed calls, bounded memory, never an internal_error.

A real server subprocess, driven by the official MCP SDK client: every tool on every good fixture
(with varied arguments), every bad fixture, missing paths, a directory, and invalid arguments, in a
seeded random order. The server's resident memory (VmRSS of the child process, from /proc) is
sampled after a warm-up that touches every document and tool once, and at the end: its growth must
stay under GROWTH_BOUND_MB. Every reply must be a success or a typed error of the expected code.

The same driver serves the long benchmark: ``python benches/server_bench.py --soak 10000``.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
sys.path.insert(0, str(ROOT / "tests"))
from corpus_support import BAD_CODES  # noqa: E402

pytestmark = pytest.mark.e2e

CALLS = 1000
WARMUP_CALLS = 200
GROWTH_BOUND_MB = 30.0
TYPED = {"file_not_found", "permission_denied", "invalid_input", "unsupported_format", "corrupt_document", "too_large"}
OK = "ok"


@dataclass(frozen=True)
class Call:
    tool: str
    arguments: dict[str, Any]
    expect: frozenset[str]  # acceptable outcomes: "ok" or error codes
    label: str  # what kind of call, for the report


@dataclass
class SoakReport:
    calls: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    labels: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    rss_kb: list[tuple[int, int]] = field(default_factory=list)  # (calls done, VmRSS in KiB)
    latencies_s: list[float] = field(default_factory=list)
    seconds: float = 0.0
    server_pid: int = 0

    def rss_at(self, calls: int) -> int:
        """The first sample taken at or after ``calls`` calls."""
        return next(kb for done, kb in self.rss_kb if done >= calls)

    def growth_mb(self, after: int) -> float:
        return (self.rss_kb[-1][1] - self.rss_at(after)) / 1024

    def summary(self) -> dict[str, Any]:
        lat = sorted(self.latencies_s)
        return {
            "calls": self.calls,
            "seconds": round(self.seconds, 2),
            "calls_per_s": round(self.calls / self.seconds, 1) if self.seconds else None,
            "latency_ms": {
                "p50": round(statistics.median(lat) * 1000, 2) if lat else None,
                "p99": round(lat[int(0.99 * (len(lat) - 1))] * 1000, 2) if lat else None,
                "max": round(lat[-1] * 1000, 2) if lat else None,
            },
            "outcomes": dict(self.outcomes.most_common()),
            "labels": dict(self.labels.most_common()),
            "rss_mb": [(done, round(kb / 1024, 1)) for done, kb in self.rss_kb],
            "failures": self.failures[:20],
            "failure_count": len(self.failures),
        }


def command() -> list[str]:
    script = Path(sys.executable).with_name("rhwp-mcp")
    return [str(script)] if script.exists() else [sys.executable, "-m", "rhwp_mcp_host"]


def server_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RHWP_MCP_")}
    env.update(extra)
    return env


def field_of(obj: Any, snake: str, camel: str) -> Any:
    """mcp 2.x spells protocol fields in snake_case, 1.x in camelCase: accept both."""
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel)


def reply_text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if getattr(block, "text", None) is not None)


def outcome_of(result: Any) -> str:
    """ "ok", or the error code of a well-formed error result; anything else raises AssertionError."""
    if not field_of(result, "is_error", "isError"):
        return OK
    text = reply_text(result)
    try:
        payload = json.loads(text)
    except ValueError:
        raise AssertionError(f"an error result that is not the JSON error object: {text[:300]}") from None
    if not isinstance(payload, dict) or not set(payload) >= {"error", "message", "suggestion"}:
        raise AssertionError(f"an error result without error/message/suggestion: {text[:300]}")
    return str(payload["error"])


def children_of(parent: int) -> list[int]:
    """Pids whose parent is ``parent`` (from /proc: psutil is not a dependency)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # Field 4 is the parent pid; the command name (field 2) may hold spaces and parentheses.
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[1]) == parent:
            found.append(int(entry.name))
    return found


def server_pid(parent: int | None = None) -> int:
    """The `rhwp-mcp` child of this process (the SDK client spawned it)."""
    parent = os.getpid() if parent is None else parent
    for pid in children_of(parent):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"rhwp-mcp" in cmdline or b"rhwp_mcp_host" in cmdline:
            return pid
    raise LookupError(f"no rhwp-mcp child of pid {parent}")


def vm_rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise LookupError(f"no VmRSS for pid {pid}")


def good_documents() -> list[Path]:
    return sorted((FIXTURES / "hwp").glob("*.hwp")) + sorted((FIXTURES / "hwpx").glob("*.hwpx"))


def bad_documents() -> list[Path]:
    return sorted(p for p in (FIXTURES / "bad").iterdir() if p.name in BAD_CODES)


def good_call(rng: random.Random, tool: str, doc: Path) -> Call:
    """A valid call of ``tool`` on a good document, with varied optional arguments."""
    path = str(doc) if rng.random() < 0.9 else doc.as_uri()
    args: dict[str, Any] = {"path": path}
    if tool in ("extract_text", "to_markdown", "to_html"):
        args["include_furniture"] = rng.random() < 0.5
        args["offset"] = rng.choice([0, 0, 100, 3000])
        max_chars = rng.choice([None, 200, 5000])
        if max_chars is not None:
            args["max_chars"] = max_chars
        if tool == "to_html":
            args["include_css"] = rng.random() < 0.5
    elif tool == "iter_blocks":
        kind = rng.choice([None, "paragraph", "table", "picture", "equation", "shape", "unknown"])
        if kind is not None:
            args["kind"] = kind
        args["scope"] = rng.choice(["body", "furniture", "all"])
        args["offset"] = rng.choice([0, 5])
        args["limit"] = rng.choice([1, 10, 100])
    elif tool == "get_ir":
        if rng.random() < 0.5:
            args["first_section"] = 0
            args["last_section"] = 0
    elif tool == "chunks":
        mode = rng.choice(["single", "paragraph", "ir-blocks"])
        args.update(mode=mode, size=rng.choice([200, 500, 2000]), overlap=rng.choice([0, 50]))
        if mode == "ir-blocks":
            args["include_furniture"] = rng.random() < 0.5
        args["limit"] = rng.choice([5, 50])
    # too_large is a typed answer for get_ir on a document whose IR exceeds the response cap, and an
    # offset past the end of a short document is refused with invalid_input (it names the valid range).
    expect = {OK, "too_large"}
    if args.get("offset"):
        expect.add("invalid_input")
    return Call(tool, args, frozenset(expect), "good")


TOOLS = ("parse_hwp_summary", "extract_text", "get_ir", "iter_blocks", "to_markdown", "to_html", "chunks")


def invalid_calls(sample: Path) -> list[Call]:
    """Calls the schema (or the tool's own check) must refuse with invalid_input."""
    p = str(sample)
    bad = frozenset({"invalid_input"})
    return [
        Call("iter_blocks", {"path": p, "kind": "invalid_value"}, bad, "invalid"),
        Call("iter_blocks", {"path": p, "scope": "everywhere"}, bad, "invalid"),
        Call("iter_blocks", {"path": p, "limit": 0}, bad, "invalid"),
        Call("extract_text", {"path": p, "offset": -1}, bad, "invalid"),
        Call("extract_text", {"path": p, "max_chars": 0}, bad, "invalid"),
        Call("extract_text", {"path": p, "include_furniture": "sometimes"}, bad, "invalid"),
        Call("to_markdown", {"path": p, "offset": "ten"}, bad, "invalid"),
        Call("to_html", {"path": p, "include_css": [1]}, bad, "invalid"),
        Call("chunks", {"path": p, "mode": "pages"}, bad, "invalid"),
        Call("chunks", {"path": p, "size": 10}, bad, "invalid"),
        Call("chunks", {"path": p, "size": 100, "overlap": 100}, bad, "invalid"),
        Call("chunks", {"path": p, "mode": "single", "include_furniture": True}, bad, "invalid"),
        Call("get_ir", {"path": p, "first_section": 99}, bad, "invalid"),
        Call("get_ir", {"path": p, "first_section": -1}, bad, "invalid"),
        Call("parse_hwp_summary", {}, bad, "invalid"),
        Call("parse_hwp_summary", {"path": 42}, bad, "invalid"),
        Call("parse_hwp_summary", {"path": p, "colour": "red"}, bad, "invalid"),
        # A directory: rhwp_core reports it as file_not_found ("no such file"), the host as invalid_input.
        Call("parse_hwp_summary", {"path": str(FIXTURES)}, frozenset({"invalid_input", "file_not_found"}), "invalid"),
        Call("no_such_tool", {"path": p}, bad, "invalid"),
    ]


def plan(n: int, seed: int, missing_dir: Path) -> list[Call]:
    """Warm-up first (every good document × every tool, every bad file once), then a seeded mix."""
    rng = random.Random(seed)
    goods, bads = good_documents(), bad_documents()
    invalids = invalid_calls(goods[0])
    calls = [good_call(rng, tool, doc) for doc in goods for tool in TOOLS]
    calls += [Call(rng.choice(TOOLS), {"path": str(b)}, frozenset(BAD_CODES[b.name]), "bad") for b in bads]
    calls += invalids
    while len(calls) < n:
        roll = rng.random()
        if roll < 0.55:
            calls.append(good_call(rng, rng.choice(TOOLS), rng.choice(goods)))
        elif roll < 0.7:
            bad = rng.choice(bads)
            calls.append(Call(rng.choice(TOOLS), {"path": str(bad)}, frozenset(BAD_CODES[bad.name]), "bad"))
        elif roll < 0.8:
            missing = missing_dir / f"missing-{rng.randrange(10**6)}{rng.choice(['.hwp', '.hwpx'])}"
            calls.append(Call(rng.choice(TOOLS), {"path": str(missing)}, frozenset({"file_not_found"}), "missing"))
        else:
            calls.append(rng.choice(invalids))
    return calls[:n]


async def soak(
    n: int,
    *,
    seed: int = 20261123,
    sample_every: int = 100,
    progress: Callable[[SoakReport], None] | None = None,
) -> SoakReport:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    report = SoakReport()
    cmd = command()
    params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=server_env())
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryFile("w+") as errlog:
        calls = plan(n, seed, Path(tmp))
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                report.server_pid = pid = server_pid()
                report.rss_kb.append((0, vm_rss_kb(pid)))
                started = time.perf_counter()
                for done, call in enumerate(calls, start=1):
                    t0 = time.perf_counter()
                    with anyio.fail_after(120):
                        result = await session.call_tool(call.tool, call.arguments)
                    report.latencies_s.append(time.perf_counter() - t0)
                    try:
                        outcome = outcome_of(result)
                    except AssertionError as exc:
                        outcome = "malformed"
                        report.failures.append(f"{call.tool} {call.arguments}: {exc}")
                    report.outcomes[outcome] += 1
                    report.labels[call.label] += 1
                    if outcome != "malformed" and outcome not in call.expect:
                        report.failures.append(
                            f"{call.tool} {call.arguments}: {outcome}, expected one of {sorted(call.expect)}: "
                            f"{reply_text(result)[:300]}"
                        )
                    report.calls = done
                    if done % sample_every == 0 or done in (WARMUP_CALLS, len(calls)):
                        report.rss_kb.append((done, vm_rss_kb(pid)))
                        if progress is not None:
                            progress(report)
                report.seconds = time.perf_counter() - started
        errlog.seek(0)
        stderr = errlog.read()
    if "Traceback" in stderr:
        report.failures.append("the server's stderr holds a traceback: " + stderr[-2000:])
    return report


def test_a_thousand_mixed_calls_stay_typed_and_bounded() -> None:
    report = anyio.run(soak, CALLS)
    summary = report.summary()
    assert not report.failures, json.dumps(summary, ensure_ascii=False, indent=1)
    assert report.calls == CALLS
    assert report.outcomes["internal_error"] == 0
    # Every kind of call happened, and both answers (successes and typed errors) occurred.
    assert set(report.labels) == {"good", "bad", "missing", "invalid"}
    assert report.outcomes[OK] > CALLS // 3
    growth = report.growth_mb(after=WARMUP_CALLS)
    assert growth < GROWTH_BOUND_MB, f"RSS grew {growth:.1f} MB after the warm-up: {summary['rss_mb']}"
