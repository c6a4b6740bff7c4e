"""Password-protected documents end to end (issue 24): a real `rhwp-mcp` over stdio, the official
MCP client, licence-noted encrypted fixtures.

Without a password or with a wrong one every document tool answers `password_required` (with a
suggestion to pass `password`); with it, a full paging walk of extract_text, to_markdown and chunks
reads the same text as the unencrypted twin, and the password appears in no response, no next:
line, no error and nothing the server writes to stderr.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio
import pytest
from corpus_support import FIXTURES
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

pytestmark = pytest.mark.e2e

ENCRYPTED = FIXTURES / "encrypted"
DOCUMENTS = {
    "kordoc-hwpx-password-123456.hwpx": "123456",
    "rhwp-hwp3-password-123456.hwp": "123456",
}
WRONG = "wrong-비밀번호-0000"
CAP = 2_000  # small, so every walk takes several pages


def _command() -> list[str]:
    script = Path(sys.executable).with_name("rhwp-mcp")
    return [str(script)] if script.exists() else [sys.executable, "-m", "rhwp_mcp_host"]


def _text(result: Any) -> str:
    return "\n".join(b.text for b in result.content if getattr(b, "text", None) is not None)


def _is_error(result: Any) -> bool:
    # mcp 2.x: is_error (its old isError warns when read); 1.x: isError only.
    return bool(result.is_error if hasattr(result, "is_error") else result.isError)


async def _walk(session: ClientSession, tool: str, arguments: dict[str, Any]) -> list[str]:
    """Every page of a text tool, following offsets as an agent follows the cut line."""
    pages: list[str] = []
    offset = 0
    while True:
        result = await session.call_tool(tool, {**arguments, "offset": offset})
        text = _text(result)
        assert not _is_error(result), text[:300]
        pages.append(text)
        if not text.rstrip().endswith("]") or "[cut at " not in text.rsplit("\n", 1)[-1]:
            return pages
        line = text.rsplit("\n", 1)[-1]
        assert "with the same password" in line, line
        offset = int(line.split("[cut at ", 1)[1].split(" ", 1)[0])


async def _chunks(session: ClientSession, arguments: dict[str, Any]) -> list[str]:
    pages: list[str] = []
    offset: int | None = 0
    while offset is not None:
        result = await session.call_tool("chunks", {**arguments, "offset": offset, "mode": "paragraph"})
        assert not _is_error(result), _text(result)[:300]
        pages.append(_text(result))
        offset = json.loads(_text(result))["next_offset"]
    return pages


async def _session_run(stderr_path: Path, folder: Path) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RHWP_MCP_")}
    env["RHWP_MCP_MAX_CHARS"] = str(CAP)
    env["RHWP_MCP_TRACE"] = "1"  # the trace must not carry the password either
    cmd = _command()
    params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=env)
    seen: dict[str, Any] = {}
    with stderr_path.open("w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            tools = (await session.list_tools()).tools
            seen["schemas"] = {t.name: getattr(t, "input_schema", None) or t.inputSchema for t in tools}
            for i, (name, password) in enumerate(DOCUMENTS.items()):
                # A neutral name: the fixtures' own names spell their password out.
                copy = folder / f"locked-{i}{Path(name).suffix}"
                copy.write_bytes((ENCRYPTED / name).read_bytes())
                path = str(copy)
                refusals = []
                for tool in ("parse_hwp_summary", "extract_text", "to_markdown", "chunks", "iter_blocks"):
                    for given in (None, WRONG):
                        args: dict[str, Any] = {"path": path}
                        if given is not None:
                            args["password"] = given
                        result = await session.call_tool(tool, args)
                        assert _is_error(result), (tool, given, _text(result)[:200])
                        refusals.append(json.loads(_text(result)))
                seen[name] = {
                    "refusals": refusals,
                    "text": await _walk(session, "extract_text", {"path": path, "password": password}),
                    "markdown": await _walk(session, "to_markdown", {"path": path, "password": password}),
                    "chunks": await _chunks(session, {"path": path, "password": password}),
                }
    return seen


@pytest.fixture(scope="module")
def walked() -> tuple[dict[str, Any], str]:
    with tempfile.TemporaryDirectory() as tmp:
        stderr_path = Path(tmp) / "stderr.txt"
        seen = anyio.run(_session_run, stderr_path, Path(tmp))
        return seen, stderr_path.read_text(encoding="utf-8", errors="replace")


def test_every_document_tool_takes_a_password(walked: tuple[dict[str, Any], str]) -> None:
    schemas = walked[0]["schemas"]
    for tool in ("parse_hwp_summary", "extract_text", "get_ir", "iter_blocks", "to_markdown", "chunks"):
        assert "password" in schemas[tool]["properties"], tool


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_missing_or_wrong_password_is_password_required(name: str, walked: tuple[dict[str, Any], str]) -> None:
    for refusal in walked[0][name]["refusals"]:
        assert refusal["error"] == "password_required", refusal
        assert "password" in refusal["suggestion"], refusal


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_with_its_password_the_walk_reads_the_document(name: str, walked: tuple[dict[str, Any], str]) -> None:
    import rhwp_core

    pages = walked[0][name]["text"]
    assert len(pages) > 1, "the cap should make the walk take several pages"
    body = "".join(p.rsplit("\n[cut at ", 1)[0] for p in pages)
    assert body == rhwp_core.parse(ENCRYPTED / name, password=DOCUMENTS[name]).extract_text()
    assert body.strip()


def test_the_password_appears_nowhere(walked: tuple[dict[str, Any], str]) -> None:
    seen, stderr = walked
    # The responses themselves (the keys here are the fixtures' names, which spell their password).
    everything = json.dumps([v for k, v in seen.items() if k != "schemas"], ensure_ascii=False) + stderr
    for password in {*DOCUMENTS.values(), WRONG}:
        assert password not in everything
