"""Start-up budget: `initialize` + `tools/list` over stdio, `rhwp-mcp` vs a bare FastMCP server with the
same tools, which it must stay within a small margin of (benches/README.md, "The budgets").

Both servers offer the same N trivial tools: rhwp-mcp gets them from a pack installed for the run
(a module plus a dist-info directory with its entry point, on PYTHONPATH), the bare server defines
them itself. Each run spawns the server, speaks raw JSON-RPC over its pipes until the tools/list
reply arrives, and closes stdin. The two kinds alternate; the report is the median of each and
their ratio (goal: <= 1.2).

    python benches/startup.py [--tools 20] [--repeats 9] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TOOL = '''
def tool_{i}(text: str, count: int = 1) -> str:
    """Trivial tool number {i}."""
    return text * count
'''


def write_pack(site: Path, n: int) -> None:
    body = "from rhwp_mcp_host import hookimpl\n" + "".join(TOOL.format(i=i) for i in range(n))
    body += "\n@hookimpl\ndef rhwp_mcp_register_tools(register):\n"
    body += "".join(f"    register(tool_{i})\n" for i in range(n))
    (site / "rhwp_bench_pack.py").write_text(body)
    info = site / "rhwp_bench_pack-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: rhwp-bench-pack\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[rhwp.mcp_tools]\nbench = rhwp_bench_pack\n")


def write_bare(site: Path, n: int) -> Path:
    body = "from fastmcp import FastMCP\nmcp = FastMCP('bare')\n" + "".join(TOOL.format(i=i) for i in range(n))
    body += "".join(f"mcp.tool(tool_{i})\n" for i in range(n))
    body += "mcp.run(transport='stdio', show_banner=False)\n"
    path = site / "bare_server.py"
    path.write_text(body)
    return path


MESSAGES: list[dict[str, Any]] = [
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "1"},
        },
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]


def one_run(cmd: list[str], env: dict[str, str], expect_tools: int) -> float:
    started = time.perf_counter()
    process = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    assert process.stdin is not None and process.stdout is not None
    try:
        for message in MESSAGES:
            process.stdin.write(json.dumps(message).encode() + b"\n")
            process.stdin.flush()
            if "id" not in message:
                continue
            while True:
                line = process.stdout.readline()
                if not line:
                    raise RuntimeError(f"{cmd} closed stdout")
                reply = json.loads(line)
                if reply.get("id") == message["id"]:
                    break
        elapsed = time.perf_counter() - started
        tools = reply["result"]["tools"]
        if len(tools) != expect_tools:
            raise RuntimeError(f"{cmd} listed {len(tools)} tools, expected {expect_tools}")
        process.stdin.close()
        process.wait(timeout=30)
        return elapsed
    finally:
        if process.poll() is None:
            process.kill()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    python = Path(sys.executable)
    script = python.with_name("rhwp-mcp")
    host_cmd = [str(script)] if script.exists() else [str(python), "-m", "rhwp_mcp_host"]
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp)
        write_pack(site, args.tools)
        bare_cmd = [str(python), str(write_bare(site, args.tools))]
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(site), env.get("PYTHONPATH", "")) if p)
        env["RHWP_MCP_ENABLE"] = "bench"  # only the bench pack, whatever else is installed
        env.pop("RHWP_MCP_TRACE", None)
        # Warm the OS file cache and .pyc files for both before timing.
        one_run(host_cmd, env, args.tools)
        one_run(bare_cmd, env, args.tools)
        host, bare = [], []
        for _ in range(args.repeats):
            host.append(one_run(host_cmd, env, args.tools))
            bare.append(one_run(bare_cmd, env, args.tools))
    result = {
        "tools": args.tools,
        "repeats": args.repeats,
        "rhwp_mcp_median_s": round(statistics.median(host), 4),
        "bare_fastmcp_median_s": round(statistics.median(bare), 4),
        "ratio": round(statistics.median(host) / statistics.median(bare), 3),
        "goal": 1.2,
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"initialize + tools/list over stdio, {args.tools} tools, median of {args.repeats}: "
            f"rhwp-mcp {result['rhwp_mcp_median_s'] * 1000:.0f} ms, "
            f"bare FastMCP {result['bare_fastmcp_median_s'] * 1000:.0f} ms, "
            f"ratio {result['ratio']:.2f} (goal <= {result['goal']})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
