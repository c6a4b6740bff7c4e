"""The tools of every installed pack end to end (issue: the three tool packs), over real transports.

A real `rhwp-mcp` subprocess with every pack installed, driven by the official MCP SDK client
over a stdio pipe and over streamable HTTP on a real socket, and by the MCP Inspector CLI.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import typing
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from corpus_support import FIXTURES, SHARED
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

import rhwp_mcp_tools_core

pytestmark = pytest.mark.e2e

# The repository's packs' tools (./dev test installs every pack). The server must list exactly what
# discovery reports loaded (`rhwp-mcp packs --json`), and these among them: a pack added later
# adds its tools without breaking the test.
OURS = {
    "parse_hwp_summary",
    "extract_text",
    "get_ir",
    "iter_blocks",
    "to_markdown",
    "to_html",
    "chunks",
    "get_image",
    "search",
}
CAP = 20_000  # a small cap makes paging happen on mid-sized documents too
SAMPLE = FIXTURES / "hwp" / "rhwp-nested-cell-pagination.hwp"


def _command() -> list[str]:
    script = Path(sys.executable).with_name("rhwp-mcp")
    return [str(script)] if script.exists() else [sys.executable, "-m", "rhwp_mcp_host"]


def _discovered_tools() -> set[str]:
    """The tools of every loaded pack, as `rhwp-mcp packs --json` reports them."""
    out = subprocess.run([*_command(), "packs", "--json"], capture_output=True, text=True, check=True, timeout=120)
    packs = json.loads(out.stdout)
    packs = packs["packs"] if isinstance(packs, dict) else packs
    tools: set[str] = set().union(*(pack["tools"] for pack in packs if pack["status"] == "loaded"))
    assert OURS <= tools, sorted(OURS - tools)
    return tools


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RHWP_MCP_")}
    env.update(extra)
    return env


def _field(obj: Any, snake: str, camel: str) -> Any:
    """mcp 2.x spells protocol fields in snake_case, 1.x in camelCase: accept both."""
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel)


def _is_error(result: Any) -> bool:
    return bool(_field(result, "is_error", "isError"))


def _schema(tool: Any) -> dict[str, Any]:
    schema: dict[str, Any] = _field(tool, "input_schema", "inputSchema")
    return schema


def _text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if getattr(block, "text", None) is not None)


def _error(result: Any) -> dict[str, Any]:
    assert _is_error(result), _text(result)[:300]
    payload: dict[str, Any] = json.loads(_text(result))
    assert set(payload) >= {"error", "message", "suggestion"}
    return payload


@asynccontextmanager
async def _stdio_session(*args: str, env: dict[str, str] | None = None) -> AsyncIterator[ClientSession]:
    cmd = _command()
    params = StdioServerParameters(command=cmd[0], args=[*cmd[1:], *args], env=env or _env())
    with tempfile.TemporaryFile("w+") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


def _run(body: Callable[[ClientSession], Awaitable[None]], *args: str, env: dict[str, str] | None = None) -> None:
    async def main() -> None:
        async with _stdio_session(*args, env=env) as session:
            await body(session)

    anyio.run(main)


def test_tools_list_is_exactly_the_installed_packs_with_enums_and_annotations() -> None:
    expected = _discovered_tools()

    async def body(session: ClientSession) -> None:
        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert set(tools) == expected
        writing = {"fill_form"}  # writes a new file: not read-only, never destructive
        for tool in tools.values():
            assert tool.annotations is not None, tool.name
            read_only = _field(tool.annotations, "read_only_hint", "readOnlyHint")
            assert read_only is (tool.name not in writing), tool.name
            if tool.name in writing:
                assert _field(tool.annotations, "destructive_hint", "destructiveHint") is False, tool.name
            else:
                assert _field(tool.annotations, "idempotent_hint", "idempotentHint") is True, tool.name
            assert tool.description and len(tool.description) > 80, tool.name
        kind = json.dumps(_schema(tools["iter_blocks"])["properties"]["kind"])
        # Every block kind of the IR, no other (the pack spells them out to stay light at start-up).
        from rhwp_core.ir import BLOCK_KINDS

        assert set(re.findall(r'"(\w+)"', kind)) & set(BLOCK_KINDS) == set(BLOCK_KINDS)
        assert sorted(typing.get_args(rhwp_mcp_tools_core.BlockKind)) == sorted(BLOCK_KINDS)
        assert "furniture" in json.dumps(_schema(tools["iter_blocks"])["properties"]["scope"])
        assert "ir-blocks" in json.dumps(_schema(tools["chunks"])["properties"]["mode"])

    _run(body)


def _documents() -> list[Path]:
    if SHARED is None:
        return sorted((FIXTURES / "hwp").glob("*.hwp")) + sorted((FIXTURES / "hwpx").glob("*.hwpx"))
    corpus = SHARED / "corpus"
    return sorted(corpus.glob("hwp/*.hwp")) + sorted(corpus.glob("hwpx/*.hwpx"))


@pytest.mark.corpus
def test_every_tool_succeeds_on_every_document_over_stdio() -> None:
    if SHARED is None and os.environ.get("CI"):
        pytest.fail("the shared corpus is missing — in CI a missing corpus is a failure")
    docs = _documents()
    calls = [
        ("parse_hwp_summary", {}),
        ("extract_text", {}),
        ("iter_blocks", {"limit": 20}),
        ("to_markdown", {"include_furniture": True}),
        ("to_html", {"include_css": True}),
        ("chunks", {"mode": "paragraph"}),
        ("chunks", {"mode": "ir-blocks", "include_furniture": True}),
        ("chunks", {"mode": "single"}),
    ]

    chars = _manifest_chars()

    async def body(session: ClientSession) -> None:
        for doc in docs:
            for tool, args in calls:
                result = await session.call_tool(tool, {"path": str(doc), **args})
                assert not _is_error(result), f"{tool} on {doc.name}: {_text(result)[:300]}"
                text = _text(result)
                assert len(text) <= CAP + 200, f"{tool} on {doc.name} returned {len(text)} characters"
                if tool == "parse_hwp_summary":
                    assert json.loads(text)["format"] == doc.suffix[1:]
                has_content = chars.get(f"{doc.parent.name}/{doc.name}", 0) > 0
                if has_content and tool in ("extract_text", "to_markdown"):
                    assert text.strip(), f"{tool} on {doc.name} is empty"
                if has_content and tool == "chunks" and args.get("include_furniture"):
                    assert json.loads(text)["total"] > 0, f"{tool} {args} on {doc.name} has no chunks"
            # get_ir either answers or says too_large with the way to ask for part of it.
            ir = await session.call_tool("get_ir", {"path": str(doc)})
            if _is_error(ir):
                payload = _error(ir)
                assert payload["error"] == "too_large", payload
                assert "iter_blocks" in payload["suggestion"] or "section" in payload["suggestion"]
            else:
                assert json.loads(_text(ir))["schema_version"]

    _run(body, "--max-chars", str(CAP))


def _manifest_chars() -> dict[str, int]:
    """Visible characters per document, as the corpus MANIFEST counts them (`chars=N`)."""
    if SHARED is None:
        return {}
    out: dict[str, int] = {}
    for line in (SHARED / "corpus" / "MANIFEST.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        fields = line.split("\t")
        for feature in fields[-1].split(","):
            if feature.startswith("chars="):
                out[fields[0]] = int(feature[6:])
    return out


def _bad_files() -> list[Path]:
    base = SHARED / "corpus" / "bad" if SHARED is not None else FIXTURES / "bad"
    return sorted(p for p in base.iterdir() if p.is_file() and p.suffix in (".hwp", ".hwpx", ".hml"))


def test_errors_are_typed_and_the_server_keeps_serving(tmp_path: Path) -> None:
    expected = _expected_codes()

    async def body(session: ClientSession) -> None:
        missing = await session.call_tool("extract_text", {"path": str(tmp_path / "missing.hwp")})
        assert _error(missing)["error"] == "file_not_found"
        bad_kind = await session.call_tool("iter_blocks", {"path": str(SAMPLE), "kind": "invalid_value"})
        payload = _error(bad_kind)
        assert payload["error"] == "invalid_input" and "kind" in payload["message"]
        for bad in _bad_files():
            for tool in ("extract_text", "parse_hwp_summary", "to_markdown"):
                result = await session.call_tool(tool, {"path": str(bad)})
                if "read" in expected(bad.name) and not _is_error(result):
                    continue
                code = _error(result)["error"]
                assert code in expected(bad.name), f"{tool} on {bad.name}: {code}"
        again = await session.call_tool("extract_text", {"path": str(SAMPLE), "max_chars": 2000})
        assert not _is_error(again) and _text(again)

    _run(body)


def _expected_codes() -> Callable[[str], set[str]]:
    if SHARED is not None:
        sys.path.insert(0, str(SHARED / "tools"))
        from corpus_report import expected_codes  # type: ignore[import-not-found]

        return expected_codes  # type: ignore[no-any-return]
    from corpus_support import BAD_CODES

    return lambda name: BAD_CODES[name]


def _largest_document() -> Path:
    return max(_documents(), key=lambda p: p.stat().st_size)


@pytest.mark.corpus
def test_paging_walk_reassembles_the_unpaged_text() -> None:
    import rhwp_core

    doc = _largest_document()
    expected = rhwp_core.parse(doc).extract_text()
    marker = "\n[cut at "

    async def body(session: ClientSession) -> None:
        offset, parts, calls = 0, [], 0
        while True:
            result = await session.call_tool("extract_text", {"path": str(doc), "offset": offset})
            text = _text(result)
            calls += 1
            if marker not in text:
                parts.append(text)
                break
            body_text, cut = text.rsplit(marker, 1)
            assert len(body_text) == CAP  # the cap's worth of content; the cut line comes on top
            parts.append(body_text)
            assert cut.startswith(str(offset + len(body_text)) + " of ")
            assert "next: extract_text(" in cut
            offset += len(body_text)
        assert "".join(parts) == expected
        assert calls > 1

    _run(body, "--max-chars", str(CAP))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_same_calls_over_streamable_http() -> None:
    expected = _discovered_tools()
    try:
        from mcp.client.streamable_http import streamable_http_client as http_client
    except ImportError:  # mcp 1.x
        from mcp.client.streamable_http import streamablehttp_client as http_client

    port = _free_port()
    proc = subprocess.Popen(
        [*_command(), "--transport", "streamable-http", "--host", "127.0.0.1", "--port", str(port)],
        env=_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
                assert time.monotonic() < deadline
                time.sleep(0.1)

        async def main() -> None:
            async with http_client(f"http://127.0.0.1:{port}/mcp") as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    await session.initialize()
                    assert {t.name for t in (await session.list_tools()).tools} == expected
                    summary = await session.call_tool("parse_hwp_summary", {"path": str(SAMPLE)})
                    assert json.loads(_text(summary))["format"] == "hwp"
                    md = await session.call_tool("to_markdown", {"path": str(SAMPLE)})
                    assert (not _is_error(md) and "|" in _text(md)) or "<table" in _text(md)
                    bad = await session.call_tool("iter_blocks", {"path": str(SAMPLE), "kind": "invalid_value"})
                    assert _error(bad)["error"] == "invalid_input"
                    chunks = await session.call_tool("chunks", {"path": str(SAMPLE), "mode": "ir-blocks"})
                    assert json.loads(_text(chunks))["chunks"][0]["metadata"]["source"] == str(SAMPLE)

        anyio.run(main)
    finally:
        proc.terminate()
        proc.communicate(timeout=10)  # reaps it and closes its pipe


INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"


def _inspector(*args: str) -> subprocess.CompletedProcess[str]:
    if shutil.which("npx") is None:
        if os.environ.get("CI"):
            pytest.fail("npx is needed for the MCP Inspector test")
        pytest.skip("npx not installed")
    return subprocess.run(
        ["npx", "-y", INSPECTOR, "--cli", "--connect-timeout", "120000", *_command(), *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**_env(), "npm_config_yes": "true", "npm_config_update_notifier": "false"},
    )


def test_mcp_inspector_cli_lists_and_calls_the_tools() -> None:
    listed = _inspector("--method", "tools/list")
    assert listed.returncode == 0, listed.stderr[-1000:]
    assert {t["name"] for t in json.loads(listed.stdout)["tools"]} == _discovered_tools()
    called = _inspector("--method", "tools/call", "--tool-name", "parse_hwp_summary", "--tool-arg", f"path={SAMPLE}")
    assert called.returncode == 0, called.stderr[-1000:]
    content = json.loads(called.stdout)["content"][0]["text"]
    assert json.loads(content)["format"] == "hwp"
