"""Faults: the server keeps serving (or exits cleanly) whatever a pack, the disk or a client does.

Real `rhwp-mcp` subprocesses, driven by the official MCP SDK client over stdio (and HTTP for the
dropped connection). Throwaway packs are installed for real, as a module plus a ``*.dist-info``
directory on PYTHONPATH (rhwp_mcp_host/tests/fakepacks.py's layout and packs, plus one of ours
whose hooks fail on demand).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from corpus_support import FIXTURES, SHARED
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from test_soak import command, outcome_of, reply_text, server_env

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "rhwp_mcp_host" / "tests"))
import fakepacks  # type: ignore[import-not-found]  # noqa: E402  (the host's real-install helper: GOOD has boom/coded/failure, AUDIT a raising after-hook)

pytestmark = pytest.mark.e2e

SMALL = FIXTURES / "hwp" / "hwplib-etc.hwp"
OTHER = FIXTURES / "hwpx" / "rhwp-footnote-01.hwpx"
TIMEOUT = 120

FAULTY = '''
import sys
from rhwp_mcp_host import hookimpl

def explode() -> str:
    """A tool with a bug."""
    raise RuntimeError("the widget exploded")

def recurse() -> str:
    """A tool that recurses without end."""
    def down(n: int) -> int:
        return down(n + 1)
    return str(down(0))

def exits() -> str:
    """A tool that calls sys.exit (a library doing so by mistake)."""
    sys.exit(3)

def marker(text: str) -> str:
    """Echo; this pack's call hooks fail on the texts fail-before / fail-after."""
    return text

@hookimpl
def rhwp_mcp_register_tools(register):
    register(explode)
    register(recurse)
    register(exits)
    register(marker)

@hookimpl
def rhwp_mcp_before_call(call):
    if call.arguments.get("text") == "fail-before":
        raise RuntimeError("the before-call hook exploded")
    return None

@hookimpl
def rhwp_mcp_after_call(call, outcome):
    if call.arguments.get("text") == "fail-after":
        raise RuntimeError("the after-call hook exploded")
'''


def install_faulty(site: Path) -> None:
    """fakepacks' packs plus ``faulty``, each as a module and a dist-info directory."""
    fakepacks.install(site)
    (site / "rhwp_fault_pack.py").write_text(textwrap.dedent(FAULTY).lstrip(), encoding="utf-8")
    info = site / "rhwp_fault_pack-0.1.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: rhwp-fault-pack\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[rhwp.mcp_tools]\nfaulty = rhwp_fault_pack\n", encoding="utf-8")


def largest_document() -> Path:
    """A document whose cold to_html takes a while (about a second): the corpus's largest."""
    big = SHARED / "corpus" / "hwp" / "hwpswift-constitution-commentary-2007.hwp" if SHARED else None
    if big is None or not big.exists():
        # The fixtures all render in milliseconds: no call would still be running when the client leaves.
        if os.environ.get("CI"):
            pytest.fail("the shared corpus is missing — in CI a missing corpus is a failure")
        pytest.skip("needs the shared corpus's largest document for a call slow enough to interrupt")
    return big


@asynccontextmanager
async def session_with(env: dict[str, str], errlog: Any) -> AsyncIterator[ClientSession]:
    cmd = command()
    params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=env)
    async with stdio_client(params, errlog=errlog) as (read, write):
        async with ClientSession(read, write) as session:
            with anyio.fail_after(TIMEOUT):
                await session.initialize()
            yield session


async def call(session: ClientSession, tool: str, timeout: float = TIMEOUT, **arguments: Any) -> tuple[str, str]:
    """(outcome, text): outcome is "ok" or the error code."""
    with anyio.fail_after(timeout):
        result = await session.call_tool(tool, arguments)
    return outcome_of(result), reply_text(result)


def run_session(body: Callable[[ClientSession], Awaitable[None]], env: dict[str, str]) -> str:
    """Run ``body`` against a fresh server; return the server's stderr."""

    async def main() -> None:
        async with session_with(env, errlog) as session:
            await body(session)

    with tempfile.TemporaryFile("w+") as errlog:
        anyio.run(main)
        errlog.seek(0)
        return errlog.read()


@pytest.fixture(scope="module")
def fault_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    site = tmp_path_factory.mktemp("fault-site")
    install_faulty(site)
    path = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH", "")) if p)
    return server_env(PYTHONPATH=path, RHWP_MCP_ENABLE="core,view,chunks,good,audit,faulty")


def test_tools_that_raise_get_typed_errors_and_the_server_keeps_serving(fault_env: dict[str, str]) -> None:
    async def body(session: ClientSession) -> None:
        for tool, expected in [
            ("explode", "internal_error"),
            ("boom", "internal_error"),
            ("coded", "corrupt_document"),
            ("failure", "unsupported_format"),
            ("recurse", "too_large"),
        ]:
            outcome, text = await call(session, tool)
            assert outcome == expected, f"{tool}: {text}"
            assert "Traceback" not in text and 'File "' not in text, text
            # The next call, to a real tool, works.
            outcome, text = await call(session, "parse_hwp_summary", path=str(SMALL))
            assert outcome == "ok" and json.loads(text)["format"] == "hwp", text
        outcome, text = await call(session, "explode")
        assert "explode" in json.loads(text)["message"] and "faulty" in json.loads(text)["suggestion"]

    stderr = run_session(body, fault_env)
    # The bug is logged once per call on the server's stderr (for the operator), not sent to the client.
    assert "the widget exploded" in stderr


def test_a_tool_calling_sys_exit_does_not_end_the_server(fault_env: dict[str, str]) -> None:
    async def body(session: ClientSession) -> None:
        # Before the host caught SystemExit, the server died and this call never got a reply.
        outcome, text = await call(session, "exits", timeout=30)
        assert outcome == "internal_error", text
        outcome, text = await call(session, "marker", text="still here")
        assert (outcome, text) == ("ok", "still here")

    run_session(body, fault_env)


def test_call_hooks_that_raise(fault_env: dict[str, str]) -> None:
    async def body(session: ClientSession) -> None:
        # A before-call hook that raises stops that call (the tool did not run) with internal_error
        # naming the pack...
        outcome, text = await call(session, "marker", text="fail-before")
        assert outcome == "internal_error", text
        payload = json.loads(text)
        assert "before-call hook" in payload["message"] and "faulty" in payload["message"], payload
        assert "--disable faulty" in payload["suggestion"]
        # ...an after-call hook that raises changes nothing for the caller (fakepacks' audit pack
        # raises after every call, ours on this text)...
        assert await call(session, "marker", text="fail-after") == ("ok", "fail-after")
        # ...and everything keeps working.
        assert await call(session, "marker", text="fine") == ("ok", "fine")
        outcome, text = await call(session, "extract_text", path=str(SMALL))
        assert outcome == "ok" and text.strip(), text

    stderr = run_session(body, fault_env)
    assert "the before-call hook exploded" in stderr and "the after-call hook exploded" in stderr


def _expected_text(source: Path) -> str:
    import rhwp_core

    return rhwp_core.parse(source).extract_text()


def _bump_mtime(path: Path, previous_ns: int) -> None:
    """Make sure the new content has a new mtime (a coarse clock may give the old one)."""
    if path.stat().st_mtime_ns == previous_ns:
        os.utime(path, ns=(previous_ns + 1_000_000_000, previous_ns + 1_000_000_000))


def test_a_file_that_disappears_or_changes_between_calls(tmp_path: Path) -> None:
    target = tmp_path / "report.hwp"
    a_text, b_text = _expected_text(SMALL), _expected_text(OTHER)
    assert a_text != b_text

    async def body(session: ClientSession) -> None:
        shutil.copyfile(SMALL, target)
        assert await call(session, "extract_text", path=str(target)) == ("ok", a_text)
        outcome, text = await call(session, "parse_hwp_summary", path=str(target))
        assert json.loads(text)["format"] == "hwp"
        markdown_a = await call(session, "to_markdown", path=str(target))

        # Gone: file_not_found, not the cached document.
        before = target.stat().st_mtime_ns
        target.unlink()
        for tool in ("extract_text", "parse_hwp_summary", "to_markdown", "chunks"):
            outcome, text = await call(session, tool, path=str(target))
            assert outcome == "file_not_found", f"{tool}: {text}"

        # Back, with another document's bytes (HWPX under an .hwp name: the format is sniffed).
        shutil.copyfile(OTHER, target)
        _bump_mtime(target, before)
        assert await call(session, "extract_text", path=str(target)) == ("ok", b_text)
        outcome, text = await call(session, "parse_hwp_summary", path=str(target))
        assert json.loads(text)["format"] == "hwpx"
        markdown_b = await call(session, "to_markdown", path=str(target))
        assert markdown_b[0] == "ok" and markdown_b != markdown_a

        # Rewritten in place (same inode), back to the first document.
        before = target.stat().st_mtime_ns
        with open(target, "r+b") as f:
            f.truncate(0)
            f.write(SMALL.read_bytes())
        _bump_mtime(target, before)
        assert await call(session, "extract_text", path=str(target)) == ("ok", a_text)
        assert await call(session, "to_markdown", path=str(target)) == markdown_a

        # Replaced atomically (a new inode, as editors save), to the second document again.
        before = target.stat().st_mtime_ns
        staged = tmp_path / "report.hwp.tmp"
        shutil.copyfile(OTHER, staged)
        os.replace(staged, target)
        _bump_mtime(target, before)
        assert await call(session, "extract_text", path=str(target)) == ("ok", b_text)
        outcome, text = await call(session, "chunks", path=str(target), mode="ir-blocks", limit=1)
        assert json.loads(text)["chunks"][0]["metadata"]["format"] == "hwpx"

    run_session(body, server_env())


# ------------------------------------------------------------------------------------------ disconnects


def _wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.02)


def _jsonrpc(process: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
    assert process.stdin is not None
    process.stdin.write(json.dumps(message).encode() + b"\n")
    process.stdin.flush()


def _reply(process: subprocess.Popen[bytes], request_id: int) -> dict[str, Any]:
    assert process.stdout is not None
    while True:
        line = process.stdout.readline()
        if not line:
            raise EOFError("the server closed stdout")
        reply: dict[str, Any] = json.loads(line)
        if reply.get("id") == request_id:
            return reply


def test_stdio_server_exits_cleanly_when_the_client_goes_away_mid_call(tmp_path: Path) -> None:
    """The client sends a slow call (to_html on a big document, cold) and vanishes: both pipes close."""
    big = largest_document()
    stderr_path = tmp_path / "stderr.txt"
    with open(stderr_path, "wb") as stderr:
        process = subprocess.Popen(
            command(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env=server_env(RHWP_MCP_TRACE="1"),
        )
    try:
        _jsonrpc(
            process,
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            },
        )
        assert "result" in _reply(process, 1)
        _jsonrpc(process, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        _jsonrpc(
            process,
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "to_html", "arguments": {"path": str(big)}},
            },
        )
        _wait_for(lambda: b"trace: call to_html" in stderr_path.read_bytes(), 60, "the call to start")
        assert b"trace: done to_html" not in stderr_path.read_bytes(), "the call finished before the client left"
        assert process.stdin is not None and process.stdout is not None
        process.stdin.close()
        process.stdout.close()
        returncode = process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    err = stderr_path.read_text(encoding="utf-8", errors="replace")
    assert returncode == 0, err[-2000:]
    assert "Traceback" not in err, err[-3000:]


CLIENT_SCRIPT = r"""
import sys, anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

async def main():
    command, errlog_path, path = sys.argv[1], sys.argv[2], sys.argv[3]
    params = StdioServerParameters(command=command, args=[], env=dict(__import__("os").environ))
    with open(errlog_path, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                print("initialized", flush=True)
                await session.call_tool("to_html", {"path": path})

anyio.run(main)
"""


def _server_children(parent: int) -> list[int]:
    from test_soak import children_of

    return children_of(parent)


def _gone(pid: int) -> bool:
    """The process has exited (absent, or a zombie nobody has reaped yet)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat[stat.rindex(")") + 2 :].startswith("Z")


def test_sdk_client_killed_mid_call_leaves_no_server_behind(tmp_path: Path) -> None:
    """The SDK client process is SIGKILLed during a slow call; its orphaned server must notice and exit."""
    script = Path(command()[0])
    if not script.name.startswith("rhwp-mcp"):
        pytest.skip("needs the rhwp-mcp console script")
    big = largest_document()
    errlog = tmp_path / "server-stderr.txt"
    client = subprocess.Popen(
        [sys.executable, "-c", CLIENT_SCRIPT, str(script), str(errlog), str(big)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=server_env(RHWP_MCP_TRACE="1"),
    )
    server = 0
    try:
        assert client.stdout is not None
        assert client.stdout.readline().strip() == b"initialized"
        [server] = _server_children(client.pid)
        _wait_for(lambda: b"trace: call to_html" in errlog.read_bytes(), 60, "the call to start")
        client.send_signal(signal.SIGKILL)
        client.wait(timeout=10)
        _wait_for(lambda: _gone(server), 60, f"the orphaned server {server} to exit")
    finally:
        if client.poll() is None:
            client.kill()
        client.communicate()  # reaps it and closes its pipe
        if server and not _gone(server):
            os.kill(server, signal.SIGKILL)
    err = errlog.read_text(encoding="utf-8", errors="replace")
    assert "Traceback" not in err, err[-3000:]


def test_http_client_dropping_mid_call_does_not_break_the_server(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "benches"))
    from server_bench import _free_port, _wait_for_port, http_client_factory

    big = largest_document()
    port = _free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    stderr_path = tmp_path / "stderr.txt"
    connect = http_client_factory()
    with open(stderr_path, "wb") as stderr:
        process = subprocess.Popen(
            [*command(), "--transport", "streamable-http", "--host", "127.0.0.1", "--port", str(port)],
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            env=server_env(RHWP_MCP_TRACE="1"),
        )

    def started() -> bool:
        return b"trace: call to_html" in stderr_path.read_bytes()

    async def dropping_client() -> None:
        with anyio.fail_after(TIMEOUT), anyio.CancelScope() as scope:
            async with connect(url) as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    await session.initialize()
                    async with anyio.create_task_group() as group:

                        async def watch() -> None:
                            while not started():
                                await anyio.sleep(0.02)
                            scope.cancel()  # the client goes away: its connections close

                        group.start_soon(watch)
                        await session.call_tool("to_html", {"path": str(big)})
                        raise AssertionError("the slow call finished before the client dropped it")

    async def next_client() -> None:
        async with connect(url) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                with anyio.fail_after(TIMEOUT):
                    await session.initialize()
                assert (await call(session, "parse_hwp_summary", path=str(SMALL)))[0] == "ok"
                outcome, text = await call(session, "to_html", path=str(big), max_chars=1000)
                assert outcome == "ok" and text.startswith("<!DOCTYPE html>"), text[:200]

    try:
        _wait_for_port(port, process)
        anyio.run(dropping_client)
        anyio.run(next_client)
        anyio.run(next_client)  # and again: nothing is stuck
        assert process.poll() is None, "the server exited"
    finally:
        process.terminate()
        process.wait(timeout=30)
    err = stderr_path.read_text(encoding="utf-8", errors="replace")
    assert "Traceback" not in err, err[-3000:]
