"""Documents from anywhere, end to end: the seven tools of the real packs give the same answer for
a local path, a data: URI, an uploaded doc: handle and a fetched URL — over a stdio pipe and over
HTTP on a real socket — and a bad document gets the same typed error whichever way it came.

Responses name their source (a summary's `path`, a chunk's `source`, a page's next call); those
names are replaced by one placeholder before comparing, and the names a source-given document
gets are checked to be its doc: handle, never the server's storage path.
"""

from __future__ import annotations

import base64
import hashlib
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import AbstractContextManager, AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from corpus_support import FIXTURES
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from rhwp_mcp_host.testing import serve_http

pytestmark = pytest.mark.e2e

CAP = 4_000  # small, so that text tools cut pages and name the next call
DOCS = [FIXTURES / "hwpx" / "rhwp-footnote-01.hwpx", FIXTURES / "hwp" / "hwplib-merging-cell.hwp"]
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("parse_hwp_summary", {}),
    ("extract_text", {}),
    ("extract_text", {"offset": 1000, "max_chars": 1500}),
    ("get_ir", {}),
    ("iter_blocks", {"kind": "table", "limit": 2}),
    ("to_markdown", {}),
    ("to_html", {"include_css": False}),
    ("chunks", {"mode": "paragraph", "size": 300, "limit": 5}),
]


def _command() -> list[str]:
    script = Path(sys.executable).with_name("rhwp-mcp")
    return [str(script)] if script.exists() else [sys.executable, "-m", "rhwp_mcp_host"]


def _text(result: Any) -> str:
    return "\n".join(b.text for b in result.content if getattr(b, "text", None) is not None)


def _is_error(result: Any) -> bool:
    value = getattr(result, "is_error", None)
    return bool(getattr(result, "isError", False) if value is None else value)


class _Files(http.server.BaseHTTPRequestHandler):
    root = FIXTURES

    def do_GET(self) -> None:
        path = (self.root / self.path.lstrip("/")).resolve()
        if not path.is_file() or self.root.resolve() not in path.parents:
            self.send_error(404)
            return
        data = path.read_bytes()
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def file_server() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Files)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("RHWP_MCP_")}
    base["RHWP_MCP_STORE_DIR"] = str(tmp_path_factory.mktemp("store"))
    return base


FLAGS = ["--max-chars", str(CAP), "--fetch", "--fetch-allow-private", "--fetch-allow-http"]


@asynccontextmanager
async def _stdio(env: dict[str, str]) -> AsyncIterator[ClientSession]:
    cmd = _command()
    params = StdioServerParameters(command=cmd[0], args=[*cmd[1:], *FLAGS], env=env)
    with tempfile.TemporaryFile("w+") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


def _http_server(env: dict[str, str]) -> AbstractContextManager[str]:
    return serve_http(*FLAGS, env=env, command=_command())


@asynccontextmanager
async def _http(url: str) -> AsyncIterator[ClientSession]:
    from mcp.client.streamable_http import streamable_http_client

    async with AsyncExitStack() as stack:
        streams = await stack.enter_async_context(streamable_http_client(url + "/mcp"))
        session = await stack.enter_async_context(ClientSession(streams[0], streams[1]))
        await session.initialize()
        yield session


def _normalized(text: str, names: list[str]) -> str:
    for name in names:
        text = text.replace(json.dumps(name)[1:-1], "<SOURCE>").replace(name, "<SOURCE>")
    return text


async def _answers(session: ClientSession, path: str) -> list[tuple[bool, str]]:
    out = []
    for tool, args in CALLS:
        result = await session.call_tool(tool, {"path": path, **args})
        out.append((_is_error(result), _text(result)))
    return out


def _data_uri(path: Path) -> str:
    return "data:application/octet-stream;base64," + base64.b64encode(path.read_bytes()).decode()


def _check_same(local: list[tuple[bool, str]], other: list[tuple[bool, str]], path: Path, how: str) -> None:
    handle = "doc:" + hashlib.sha256(path.read_bytes()).hexdigest()
    # Some calls fail under this small cap (get_ir too_large, an offset past a short text): the
    # error must then be the same, its suggestion naming a call on the same source.
    assert not local[0][0] and not local[1][0], (local[0][1][:200], local[1][1][:200])
    for (tool, args), (l_err, l_text), (o_err, o_text) in zip(CALLS, local, other, strict=True):
        assert o_err == l_err, (how, tool, o_text[:300])
        assert _normalized(o_text, [handle, str(path)]) == _normalized(l_text, [str(path)]), (how, tool, args)
        # A source-given document is named by its handle, never by where the server keeps it.
        if str(path) in l_text and how != "file://":
            assert handle in o_text, (how, tool)
        assert "/store/" not in o_text and "rhwp-mcp-" not in o_text, (how, tool)


def test_every_source_gives_the_same_answers_over_stdio(env, file_server):
    async def main() -> None:
        async with _stdio(env) as session:
            for path in DOCS:
                local = await _answers(session, str(path))
                if path == DOCS[0]:
                    assert any("[cut at" in text for _, text in local), "the cap should make pages"
                _check_same(local, await _answers(session, path.as_uri()), path, "file://")
                _check_same(local, await _answers(session, _data_uri(path)), path, "data:")
                handle = "doc:" + hashlib.sha256(path.read_bytes()).hexdigest()
                _check_same(local, await _answers(session, handle), path, "doc: after data:")
                url = f"{file_server}/{path.parent.name}/{path.name}"
                _check_same(local, await _answers(session, url), path, "URL")

    anyio.run(main)


def test_every_source_gives_the_same_answers_over_http(env, file_server):
    with _http_server(env) as url:
        handles = {}
        for path in DOCS:
            answer = httpx.post(url + "/documents", content=path.read_bytes())
            assert answer.status_code == 201, answer.text
            handles[path] = answer.json()["document"]

        async def main() -> None:
            async with _http(url) as session:
                for path in DOCS:
                    local = await _answers(session, str(path))
                    _check_same(local, await _answers(session, handles[path]), path, "upload")
                    _check_same(local, await _answers(session, _data_uri(path)), path, "data:")
                    link = f"{file_server}/{path.parent.name}/{path.name}"
                    _check_same(local, await _answers(session, link), path, "URL")

        anyio.run(main)


def test_bad_documents_get_the_same_code_from_every_source(env, file_server):
    bad = sorted((FIXTURES / "bad").iterdir())

    async def main() -> None:
        async with _stdio(env) as session:
            for path in bad:
                local = await session.call_tool("extract_text", {"path": str(path)})
                for source in (_data_uri(path), f"{file_server}/bad/{path.name}"):
                    other = await session.call_tool("extract_text", {"path": source})
                    assert _is_error(other) == _is_error(local), path.name
                    if _is_error(local):
                        assert json.loads(_text(other))["error"] == json.loads(_text(local))["error"], path.name
                        assert json.loads(_text(other))["suggestion"]
            # Still serving after all of them.
            again = await session.call_tool("parse_hwp_summary", {"path": _data_uri(DOCS[0])})
            assert not _is_error(again)

    anyio.run(main)


def test_the_readme_upload_example_runs(env, tmp_path):
    """The README's Python example, run as written against a server with a token."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("### Documents from anywhere") :]
    snippet = section[section.index("```python\n") + 10 :]
    snippet = snippet[: snippet.index("```")]
    assert "BASE, TOKEN, FILE = " in snippet
    token = "readme-example-token-0123456789"
    with _http_server({**env, "RHWP_MCP_AUTH_TOKEN": token}) as url:
        settings = f"BASE, TOKEN, FILE = {url!r}, {token!r}, {str(DOCS[0])!r}"
        line = next(line for line in snippet.splitlines() if line.startswith("BASE, TOKEN, FILE = "))
        script = tmp_path / "example.py"
        script.write_text(snippet.replace(line, settings), encoding="utf-8")
        done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "3D 프린팅 기술의 등장과" in done.stdout and "[^9]:" in done.stdout
