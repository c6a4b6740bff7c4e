"""The official MCP conformance suite (@modelcontextprotocol/conformance) against the real
``rhwp-mcp --transport streamable-http`` with default flags: DNS-rebinding protection and the
scenarios that apply to a tools-only server. ``./dev test`` installs the suite and a Node 22 into
``.cache/conformance``; in CI a missing suite is a failure.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from rhwp_mcp_host.testing import serve_http

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[1]
TOOLS = Path(os.environ.get("RHWP_CONFORMANCE_DIR", ROOT / ".cache" / "conformance"))
NODE = TOOLS / "node_modules" / ".bin" / "node"
SUITE = TOOLS / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
SCENARIOS = [
    "dns-rebinding-protection",
    "server-initialize",
    "ping",
    "tools-list",
    "tools-call-error",
    "server-sse-multiple-streams",
    "logging-set-level",
]


def _command() -> list[str]:
    script = Path(sys.executable).with_name("rhwp-mcp")
    return [str(script)] if script.exists() else [sys.executable, "-m", "rhwp_mcp_host"]


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    if not (NODE.exists() and SUITE.exists()):
        message = f"the MCP conformance suite is not installed in {TOOLS} (./dev test installs it with npm)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    env = {k: v for k, v in os.environ.items() if not k.startswith("RHWP_MCP_")}
    with serve_http(env=env, command=_command()) as url:
        yield url + "/mcp"


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_conformance_scenario(server_url: str, scenario: str) -> None:
    done = subprocess.run(
        [str(NODE), str(SUITE), "server", "--url", server_url, "--scenario", scenario],
        capture_output=True,
        text=True,
        timeout=180,
    )
    output = re.sub(r"\x1b\[[0-9;]*m", "", done.stdout + done.stderr)
    summary = re.search(r"Passed: (\d+)/(\d+), (\d+) failed", output)
    assert summary is not None, output[-3000:]
    passed, total, failed = (int(g) for g in summary.groups())
    assert failed == 0 and passed == total > 0, output[-3000:]
    assert done.returncode == 0, output[-3000:]
