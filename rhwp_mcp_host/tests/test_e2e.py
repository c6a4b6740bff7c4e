"""End to end over real transports with the official MCP Python SDK client and the MCP Inspector CLI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from contextlib import AsyncExitStack

import anyio
import pytest
from _servers import command, cwd, free_port, is_error, wait_for_port
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

pytestmark = pytest.mark.e2e


def _text(result) -> str:
    return "\n".join(block.text for block in result.content if getattr(block, "text", None) is not None)


async def _exercise(session: ClientSession, tmp_path) -> None:
    """The same conversation over any transport."""
    await session.initialize()
    listed = await session.list_tools()
    names = {t.name for t in listed.tools}
    assert {"echo", "add", "pick", "boom", "read_head", "only_here"} <= names

    ok = await session.call_tool("add", {"a": 20, "b": 22})
    assert not is_error(ok) and json.loads(_text(ok)) == {"sum": 42}

    bad = await session.call_tool("pick", {"kind": "tabel"})
    assert is_error(bad)
    payload = json.loads(_text(bad))
    assert payload["error"] == "invalid_input" and "kind" in payload["message"] and "table" in payload["suggestion"]

    bug = await session.call_tool("boom", {})
    assert is_error(bug) and json.loads(_text(bug))["error"] == "internal_error"
    assert "Traceback" not in _text(bug)

    missing = await session.call_tool("read_head", {"path": str(tmp_path / "missing.hwp")})
    assert json.loads(_text(missing))["error"] == "file_not_found"

    denied = await session.call_tool("echo", {"text": "forbidden"})
    assert json.loads(_text(denied))["error"] == "permission_denied"

    # After all those errors the server still serves.
    again = await session.call_tool("echo", {"text": "still here"})
    assert not is_error(again) and _text(again) == "still here"


def test_stdio_with_the_sdk_client(subprocess_env, tmp_path):
    cmd = command()

    async def main() -> None:
        params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=subprocess_env, cwd=cwd())
        with tempfile.TemporaryFile("w+") as errlog:
            async with stdio_client(params, errlog=errlog) as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    await _exercise(session, tmp_path)
            errlog.seek(0)
            log = errlog.read()
        assert "serving" in log and "the widget exploded" in log  # the traceback went to stderr

    anyio.run(main)


def test_stdio_root_refuses_outside_paths(subprocess_env, tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    (root / "in.txt").write_text("inside")
    (tmp_path / "out.txt").write_text("outside")
    (root / "link.txt").symlink_to(tmp_path / "out.txt")
    cmd = command()

    async def main() -> None:
        params = StdioServerParameters(
            command=cmd[0], args=[*cmd[1:], "--root", str(root)], env=subprocess_env, cwd=cwd()
        )
        with tempfile.TemporaryFile("w+") as errlog:
            async with stdio_client(params, errlog=errlog) as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    await session.initialize()
                    inside = await session.call_tool("read_head", {"path": str(root / "in.txt")})
                    assert _text(inside) == "inside"
                    for sneaky in (tmp_path / "out.txt", root / "link.txt", root / ".." / "out.txt"):
                        result = await session.call_tool("read_head", {"path": str(sneaky)})
                        assert json.loads(_text(result))["error"] == "permission_denied", sneaky

    anyio.run(main)


def _http_client(url: str):
    try:
        from mcp.client.streamable_http import streamable_http_client as client
    except ImportError:  # mcp 1.x
        from mcp.client.streamable_http import streamablehttp_client as client
    return client(url)


def test_streamable_http_on_a_real_socket(subprocess_env, tmp_path):
    port = free_port()
    process = subprocess.Popen(
        [*command(), "--transport", "streamable-http", "--port", str(port)],
        env=subprocess_env,
        cwd=cwd(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        wait_for_port(port, process)

        async def main() -> None:
            async with AsyncExitStack() as stack:
                streams = await stack.enter_async_context(_http_client(f"http://127.0.0.1:{port}/mcp"))
                session = await stack.enter_async_context(ClientSession(streams[0], streams[1]))
                await _exercise(session, tmp_path)

        anyio.run(main)
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
    with process.stderr:  # closed once read
        said = process.stderr.read()
    assert b"/mcp" in said


INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"


# A generous connect timeout: a loaded CI machine can take over 15 s (the default) to start Python.
def _inspector(args: list[str], env: dict[str, str], *, tool_error: bool = False) -> subprocess.CompletedProcess[str]:
    npx = shutil.which("npx")
    if npx is None:
        if os.environ.get("CI"):
            pytest.fail("npx is required in CI for the MCP Inspector test")
        pytest.skip("npx not installed")
    cmd = command()
    env_args = [a for key in ("PYTHONPATH", "RHWP_MCP_ENABLE") for a in ("-e", f"{key}={env[key]}")]
    done = subprocess.run(
        [npx, "-y", INSPECTOR, "--cli", "--connect-timeout", "120000", *env_args, *cmd, *args],
        capture_output=True,
        text=True,
        env={**env, "npm_config_yes": "true", "npm_config_update_notifier": "false"},
        cwd=cwd(),
        timeout=300,
    )
    if done.returncode != 0 and not os.environ.get("CI") and "ENOTFOUND" in done.stderr + done.stdout:
        pytest.skip("the npm registry is not reachable")
    if tool_error:
        # The Inspector CLI exits 5 when the tool result has isError: true, and says so on stderr.
        assert done.returncode == 5 and "returned isError:true" in done.stderr, done.stderr[-3000:]
    else:
        assert done.returncode == 0, done.stderr[-3000:]
    return done


def test_mcp_inspector_cli_lists_and_calls(subprocess_env):
    listed = json.loads(_inspector(["--method", "tools/list"], subprocess_env).stdout)
    tools = {t["name"]: t for t in listed["tools"]}
    assert tools["echo"]["title"] == "Echo text"
    assert tools["pick"]["inputSchema"]["properties"]["kind"]["enum"] == ["paragraph", "table", "picture"]
    called = json.loads(
        _inspector(["--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=1", "b=2"], subprocess_env).stdout
    )
    assert json.loads(called["content"][0]["text"]) == {"sum": 3}
    failed = _inspector(
        ["--method", "tools/call", "--tool-name", "pick", "--tool-arg", "kind=x"], subprocess_env, tool_error=True
    )
    assert "tool_is_error" in failed.stderr
