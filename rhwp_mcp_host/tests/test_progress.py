"""Progress notifications and cancellation of long calls (rhwp_mcp_host.progress), over real stdio.

A pack with a slow tool (steps of a checkpoint, a progress report and a short sleep) is installed for
a real server subprocess, driven by the official MCP SDK client.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import textwrap
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from _servers import command, cwd, is_error
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from rhwp_mcp_host.plugin import progress

import rhwp_mcp_host

SLOW = '''
import threading
import time

from rhwp_mcp_host import CallCancelled, checkpoint, hookimpl, report_progress

RUNNING = []
PEAK = [0]
LOCK = threading.Lock()


def slow(steps: int = 400, pause: float = 0.05) -> str:
    """Take steps, each a checkpoint, a progress report and a pause."""
    with LOCK:
        RUNNING.append(1)
        PEAK[0] = max(PEAK[0], len(RUNNING))
    try:
        for i in range(steps):
            checkpoint()
            report_progress(i + 1, steps, f"step {i + 1}")
            time.sleep(pause)
        return f"finished {steps}"
    except CallCancelled:
        print("slow: unwound by checkpoint()", flush=True)
        raise
    finally:
        with LOCK:
            RUNNING.pop()


def running() -> int:
    """How many slow calls are running now."""
    return len(RUNNING)


def peak() -> int:
    """The most slow calls that ever ran at once."""
    return PEAK[0]


@hookimpl
def rhwp_mcp_register_tools(register):
    register(slow)
    register(running)
    register(peak)
'''


def _install(site: Path) -> None:
    (site / "rhwp_fake_slow.py").write_text(textwrap.dedent(SLOW).lstrip(), encoding="utf-8")
    info = site / "fake_slow-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-slow\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[rhwp.mcp_tools]\nslow = rhwp_fake_slow\n", encoding="utf-8")


def _text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if getattr(block, "text", None) is not None)


@asynccontextmanager
async def _session(site: Path, errlog: Any, *args: str) -> AsyncIterator[ClientSession]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(site), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env["RHWP_MCP_ENABLE"] = "slow"
    for name in ("RHWP_MCP_DISABLE", "RHWP_MCP_MAX_CHARS"):
        env.pop(name, None)
    env["RHWP_MCP_TRACE"] = "1"  # the after-call hooks' view of each call, on stderr
    cmd = command()
    params = StdioServerParameters(command=cmd[0], args=[*cmd[1:], *args], env=env, cwd=cwd())
    async with stdio_client(params, errlog=errlog) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


def test_outside_a_call_both_are_no_ops() -> None:
    rhwp_mcp_host.report_progress(1, 2, "nothing listens")
    rhwp_mcp_host.checkpoint()
    assert not rhwp_mcp_host.is_cancelled()


def test_checkpoint_raises_once_the_call_is_cancelled() -> None:
    sent: list[tuple[float, float | None, str | None]] = []
    state = progress._CallState(send=lambda *a: sent.append(a))
    token = progress._active.set(state)
    try:
        rhwp_mcp_host.checkpoint()
        rhwp_mcp_host.report_progress(1, 3, "one")
        state.cancelled.set()
        assert rhwp_mcp_host.is_cancelled()
        with pytest.raises(rhwp_mcp_host.CallCancelled):
            rhwp_mcp_host.checkpoint()
    finally:
        progress._active.reset(token)
    assert sent == [(1.0, 3.0, "one")]


def test_one_calls_progress_only_grows_across_its_stages() -> None:
    """A download's bytes, then the tool's phases from 0: the client sees one increasing count."""
    sent: list[tuple[float, float | None, str | None]] = []
    state = progress._CallState(send=lambda *a: sent.append(a))
    token = progress._active.set(state)
    try:
        rhwp_mcp_host.report_progress(65536, None, "bytes")
        rhwp_mcp_host.report_progress(65536, None, "standing still: not sent")
        rhwp_mcp_host.report_progress(1000, None, "backwards: not sent")
        rhwp_mcp_host.report_progress(131072, None, "bytes")
        state.next_stage()
        rhwp_mcp_host.report_progress(0, 2, "phase 0")
        rhwp_mcp_host.report_progress(2, 2, "phase 2")
    finally:
        progress._active.reset(token)
    assert sent == [
        (65536.0, None, "bytes"),
        (131072.0, None, "bytes"),
        (131073.0, 131075.0, "phase 0"),
        (131075.0, 131075.0, "phase 2"),
    ]


def test_a_first_stage_may_start_at_zero() -> None:
    sent: list[tuple[float, float | None, str | None]] = []
    state = progress._CallState(send=lambda *a: sent.append(a))
    state.next_stage()  # nothing sent yet: no offset
    token = progress._active.set(state)
    try:
        rhwp_mcp_host.report_progress(0, 3, "start")
    finally:
        progress._active.reset(token)
    assert sent == [(0.0, 3.0, "start")]


def test_report_progress_never_raises_into_the_tool() -> None:
    def broken(*_: object) -> None:
        raise RuntimeError("the event loop is gone")

    token = progress._active.set(progress._CallState(send=broken))
    try:
        rhwp_mcp_host.report_progress(1)
    finally:
        progress._active.reset(token)


@pytest.mark.e2e
def test_progress_reaches_a_client_that_asked_and_no_other(tmp_path: Path) -> None:
    _install(tmp_path)
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total, message))

    async def main() -> None:
        with tempfile.TemporaryFile("w+") as errlog:
            async with _session(tmp_path, errlog) as session:
                result = await session.call_tool("slow", {"steps": 5, "pause": 0.01}, progress_callback=on_progress)
                assert not is_error(result) and _text(result) == "finished 5"
                with anyio.fail_after(5):
                    while len(seen) < 5:
                        await anyio.sleep(0.01)
                plain = await session.call_tool("slow", {"steps": 5, "pause": 0.01})
                assert not is_error(plain) and _text(plain) == "finished 5"

    anyio.run(main)
    assert seen == [(float(i), 5.0, f"step {i}") for i in range(1, 6)]


@pytest.mark.e2e
def test_a_cancelled_call_unwinds_at_its_next_checkpoint(tmp_path: Path) -> None:
    _install(tmp_path)
    # Uncancelled, the call would take 400 x 0.05 = 20 s.
    timings: dict[str, float] = {}

    async def main(errlog: Any) -> None:
        async with _session(tmp_path, errlog) as session:
            first = anyio.Event()

            async def on_progress(done: float, total: float | None, message: str | None) -> None:
                first.set()

            async with anyio.create_task_group() as tg:

                async def call() -> None:
                    await session.call_tool("slow", {}, progress_callback=on_progress)
                    pytest.fail("the cancelled call returned")

                tg.start_soon(call)
                with anyio.fail_after(30):
                    await first.wait()
                started = time.monotonic()
                tg.cancel_scope.cancel()  # the SDK sends notifications/cancelled
            # The tool's thread is gone, not merely left running in the background.
            with anyio.fail_after(10):
                while json.loads(_text(await session.call_tool("running", {}))) != 0:
                    await anyio.sleep(0.05)
            timings["unwound"] = time.monotonic() - started
            # And the server goes on serving, long calls included.
            again = await session.call_tool("slow", {"steps": 3, "pause": 0.01})
            assert not is_error(again) and _text(again) == "finished 3"

    with tempfile.TemporaryFile("w+") as errlog:
        anyio.run(main, errlog)
        errlog.seek(0)
        log = errlog.read()
    assert timings["unwound"] < 2.0, timings
    assert "unwound by checkpoint()" in log
    # The after-call hooks saw the call end cancelled (not failed), the next one ok.
    assert re.search(r"trace: done slow in [0-9.]+ ms: cancelled", log), log[-2000:]
    assert re.search(r"trace: done slow in [0-9.]+ ms: ok", log), log[-2000:]
    assert "internal_error" not in log and "Traceback" not in log, log[-2000:]


def _post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    """One JSON-RPC request to a stateless server (its answer is plain JSON)."""
    import urllib.request

    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2025-06-18",
        },
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        reply: dict[str, Any] = json.loads(answer.read())
    return reply


def _running(url: str) -> int:
    reply = _post(
        url, {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "running", "arguments": {}}}
    )
    return int(reply["result"]["content"][0]["text"])


@pytest.mark.e2e
def test_a_stateless_server_cancels_the_call_of_a_client_that_hung_up(tmp_path: Path) -> None:
    """Stateless HTTP has no session to cancel in (notifications/cancelled has nothing to match) and
    no way to resume a lost answer: a client that hangs up is taken to cancel its call, which unwinds
    at its next checkpoint; the server goes on answering."""
    import socket
    from urllib.parse import urlsplit

    from rhwp_mcp_host.testing import serve_http

    _install(tmp_path)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env["RHWP_MCP_ENABLE"] = "slow"
    env.pop("RHWP_MCP_DISABLE", None)
    with serve_http("--stateless", env=env) as base:
        url = base + "/mcp"
        where = urlsplit(base)
        body = json.dumps(
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "slow", "arguments": {}}}
        ).encode()
        head = (
            f"POST /mcp HTTP/1.1\r\nHost: {where.netloc}\r\nContent-Type: application/json\r\n"
            "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode()
        with socket.create_connection((where.hostname, where.port)) as client:
            client.sendall(head + body)
            deadline = time.monotonic() + 10
            while _running(url) != 1:
                assert time.monotonic() < deadline, "the slow call did not start"
                time.sleep(0.05)
        hung_up = time.monotonic()  # the socket is closed: the client is gone
        while _running(url) != 0:
            # Uncancelled, the call would run for 400 x 0.05 = 20 s.
            assert time.monotonic() - hung_up < 3, "the call of the client that hung up is still running"
            time.sleep(0.05)
        again = _post(
            url,
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "slow", "arguments": {"steps": 3, "pause": 0.01}},
            },
        )
        assert again["result"]["content"][0]["text"] == "finished 3"


@pytest.mark.e2e
@pytest.mark.parametrize(("max_calls", "peak"), [(2, 2), (8, 5)])
def test_at_most_max_calls_tools_run_at_once(tmp_path: Path, max_calls: int, peak: int) -> None:
    """Five slow calls sent at once: with --max-calls 2 two run and the others wait their turn
    (three waves), all finish; with room for eight all five run together."""
    _install(tmp_path)
    results: list[str] = []
    took: dict[str, float] = {}

    async def main(errlog: Any) -> None:
        async with _session(tmp_path, errlog, "--max-calls", str(max_calls)) as session:

            async def one() -> None:
                results.append(_text(await session.call_tool("slow", {"steps": 10, "pause": 0.05})))

            started = time.monotonic()
            async with anyio.create_task_group() as tg:
                for _ in range(5):
                    tg.start_soon(one)
            took["all"] = time.monotonic() - started
            took["peak"] = float(_text(await session.call_tool("peak", {})))

    with tempfile.TemporaryFile("w+") as errlog:
        anyio.run(main, errlog)
        errlog.seek(0)
        log = errlog.read()
    assert results == ["finished 10"] * 5
    assert took["peak"] == peak, took
    # The trace says which calls waited for a slot, and how long.
    waited = re.findall(r"trace: done slow in [0-9.]+ ms \(waited (\d+) ms for a slot\): ok", log)
    if max_calls == 2:
        assert took["all"] >= 3 * 10 * 0.05 * 0.9, took  # three waves of half a second
        assert len(waited) == 3 and max(int(ms) for ms in waited) >= 700, log[-3000:]
    else:
        assert waited == [], log[-3000:]


def test_max_calls_is_a_positive_bounded_number() -> None:
    from rhwp_mcp_host.plugin.contract import default_max_calls
    from rhwp_mcp_host.server.host import create_host

    assert create_host(entry_points=False, env={}).config.max_calls == default_max_calls() >= 4
    assert create_host(entry_points=False, env={"RHWP_MCP_MAX_CALLS": "3"}).config.max_calls == 3
    assert create_host(entry_points=False, env={"RHWP_MCP_MAX_CALLS": "3"}, max_calls=6).config.max_calls == 6
    for bad in ("0", "-1", "many", "5000"):
        with pytest.raises(ValueError, match="RHWP_MCP_MAX_CALLS"):
            create_host(entry_points=False, env={"RHWP_MCP_MAX_CALLS": bad})
