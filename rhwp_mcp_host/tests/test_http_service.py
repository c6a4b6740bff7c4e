"""The HTTP service on real sockets: uploads, Host/Origin checks, bearer auth, body bounds,
health, URLs fetched from a real local HTTP server, and stateless replicas."""

from __future__ import annotations

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
from typing import Any, ClassVar

import anyio
import httpx
import pytest
from _servers import command, cwd, free_port, is_error, wait_for_port
from mcp import ClientSession
from rhwp_mcp_host.testing import serve_http

pytestmark = pytest.mark.e2e

TOKEN = "s3cret-token-for-tests-0123456789"
CLIENT = {"name": "t", "version": "1"}
TEXT = "서울특별시 공고 제2026-1호\n두 번째 줄\n"


def serving(env: dict[str, str], *args: str) -> AbstractContextManager[str]:
    """The real ``rhwp-mcp --transport streamable-http`` on a free port; yields its base URL."""
    return serve_http(*args, env=env, command=command())


@pytest.fixture
def env(subprocess_env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    base = {k: v for k, v in subprocess_env.items() if not k.startswith("RHWP_MCP_") or k == "RHWP_MCP_ENABLE"}
    base["RHWP_MCP_STORE_DIR"] = str(tmp_path / "store")
    return base


@pytest.fixture
def document(tmp_path: Path) -> Path:
    path = tmp_path / "notice.txt"
    path.write_text(TEXT, encoding="utf-8")
    return path


@asynccontextmanager
async def _client(url: str, headers: dict[str, str] | None = None) -> AsyncIterator[tuple[Any, ...]]:
    """The SDK's streamable-HTTP client streams; with mcp 2.x over an httpx client this owns and
    closes (the SDK leaves a client it is given open, and its sockets would leak)."""
    try:
        from mcp.client.streamable_http import streamable_http_client
    except ImportError:  # mcp 1.x
        from mcp.client.streamable_http import streamablehttp_client

        async with streamablehttp_client(url, headers=headers) as streams:
            yield streams
        return
    async with (
        httpx.AsyncClient(headers=headers or {}) as http,
        streamable_http_client(url, http_client=http) as streams,
    ):
        yield streams


def _text(result) -> str:
    return "\n".join(b.text for b in result.content if getattr(b, "text", None) is not None)


def call(url: str, tool: str, arguments: dict, headers: dict[str, str] | None = None) -> tuple[bool, str]:
    """One MCP session over HTTP: initialize, call, close."""

    async def main() -> tuple[bool, str]:
        async with AsyncExitStack() as stack:
            streams = await stack.enter_async_context(_client(url + "/mcp", headers))
            session = await stack.enter_async_context(ClientSession(streams[0], streams[1]))
            await session.initialize()
            result = await session.call_tool(tool, arguments)
            return is_error(result), _text(result)

    return anyio.run(main)


def test_upload_then_call_gives_what_the_local_path_gives(env, document):
    with serving(env) as url:
        health = httpx.get(url + "/healthz")
        assert health.status_code == 200 and health.json()["status"] == "ok" and health.json()["tools"] >= 6
        raw = document.read_bytes()
        answer = httpx.post(url + "/documents", content=raw, headers={"Content-Type": "application/octet-stream"})
        assert answer.status_code == 201, answer.text
        body = answer.json()
        assert body == {"document": "doc:" + hashlib.sha256(raw).hexdigest(), "bytes": len(raw), "expires_in": 3600}
        local = call(url, "read_head", {"path": str(document), "chars": 500})
        assert local == (False, TEXT)
        assert call(url, "read_head", {"path": body["document"], "chars": 500}) == local
        # Uploading the same bytes again gives the same handle.
        assert httpx.post(url + "/documents", content=raw).json()["document"] == body["document"]
        assert document.read_text(encoding="utf-8") == TEXT


def test_upload_refusals(env):
    with serving(env, "--upload-max-mb", "0.01") as url:  # 10,485 bytes
        over = httpx.post(url + "/documents", content=b"x" * 20_000)
        assert over.status_code == 413 and over.json()["error"] == "too_large"
        assert "--upload-max-mb" in over.json()["suggestion"]

        def chunked() -> Iterator[bytes]:  # no Content-Length: the cap is counted, not trusted
            for _ in range(20):
                yield b"y" * 1000

        assert httpx.post(url + "/documents", content=chunked()).status_code == 413
        empty = httpx.post(url + "/documents", content=b"")
        assert empty.status_code == 400 and empty.json()["error"] == "invalid_input"
        form = httpx.post(url + "/documents", files={"file": ("a.hwp", b"abc")})
        assert form.status_code == 415 and "raw bytes" in form.json()["message"]
        assert httpx.get(url + "/documents").status_code == 405
        # An MCP request body beyond what the largest data: URI needs is refused before parsing.
        huge = httpx.post(
            url + "/mcp",
            content=b"[" + b" " * 2_000_000 + b"]",
            headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream"},
        )
        assert huge.status_code == 413 and huge.json()["error"] == "too_large"
        # Still serving.
        assert httpx.post(url + "/documents", content=b"small").status_code == 201


def test_the_store_never_exceeds_its_cap(env, tmp_path):
    cap = int(0.02 * 1024 * 1024)
    with serving(env, "--store-max-mb", "0.02", "--upload-max-mb", "0.01") as url:
        handles = []
        for i in range(40):
            body = bytes([i]) * (3000 + 97 * i)
            answer = httpx.post(url + "/documents", content=body)
            assert answer.status_code == 201, answer.text
            handles.append(answer.json()["document"])
            stored = sum(p.stat().st_size for p in (tmp_path / "store").iterdir() if not p.name.startswith("."))
            assert stored <= cap, (i, stored)
        # The newest is there; the oldest made room long ago and says how to get it back.
        assert call(url, "read_head", {"path": handles[-1], "chars": 3})[0] is False
        failed, text = call(url, "read_head", {"path": handles[0]})
        assert failed and json.loads(text)["error"] == "file_not_found" and "upload it again" in text


def test_rebinding_host_and_origin_are_refused(env):
    with serving(env) as url:
        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": CLIENT},
        }
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        evil_host = httpx.post(url + "/mcp", json=init, headers={**headers, "Host": "evil.example.com"})
        assert 400 <= evil_host.status_code < 500
        evil_origin = httpx.post(url + "/mcp", json=init, headers={**headers, "Origin": "http://evil.example.com"})
        assert 400 <= evil_origin.status_code < 500
        upload = httpx.post(url + "/documents", content=b"x", headers={"Origin": "http://evil.example.com"})
        assert 400 <= upload.status_code < 500
        fine = httpx.post(url + "/mcp", json=init, headers={**headers, "Origin": url})
        assert fine.status_code == 200
    with serving(env, "--allowed-origin", "https://app.example") as url:
        allowed = httpx.post(url + "/mcp", json=init, headers={**headers, "Origin": "https://app.example"})
        assert allowed.status_code == 200


def test_bearer_token_on_mcp_and_uploads_not_on_health(env, tmp_path, document):
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n", encoding="utf-8")
    with serving(env, "--auth-token-file", str(token_file)) as url:
        assert httpx.get(url + "/healthz").status_code == 200
        for headers in ({}, {"Authorization": "Bearer wrong-token-wrong-token"}, {"Authorization": "Basic eDp5"}):
            mcp = httpx.post(url + "/mcp", json={}, headers={**headers, "Content-Type": "application/json"})
            assert mcp.status_code == 401 and mcp.headers["www-authenticate"].startswith("Bearer"), headers
            upload = httpx.post(url + "/documents", content=b"abc", headers=headers)
            assert upload.status_code == 401 and upload.headers["www-authenticate"].startswith("Bearer"), headers
        auth = {"Authorization": f"Bearer {TOKEN}"}
        stored = httpx.post(url + "/documents", content=document.read_bytes(), headers=auth)
        assert stored.status_code == 201
        assert call(url, "read_head", {"path": stored.json()["document"], "chars": 500}, auth) == (False, TEXT)
    env_token = {**env, "RHWP_MCP_AUTH_TOKEN": TOKEN}
    with serving(env_token) as url:
        assert httpx.post(url + "/documents", content=b"abc").status_code == 401
        assert httpx.post(url + "/documents", content=b"abc", headers=auth).status_code == 201


def test_a_public_address_without_auth_refuses_to_start(env):
    done = subprocess.run(
        [*command(), "--transport", "streamable-http", "--host", "0.0.0.0", "--port", str(free_port())],
        env=env,
        cwd=cwd(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "without authentication" in done.stderr and "--auth-token-file" in done.stderr and "--no-auth" in done.stderr
    short = subprocess.run(
        [*command(), "--transport", "streamable-http", "--port", str(free_port())],
        env={**env, "RHWP_MCP_AUTH_TOKEN": "short"},
        cwd=cwd(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert short.returncode == 2 and "at least 16 characters" in short.stderr


class _Files(http.server.BaseHTTPRequestHandler):
    """A real HTTP server handing out documents (and one redirect to the same place)."""

    files: ClassVar[dict[str, bytes]] = {}
    seen_headers: ClassVar[list[dict[str, str]]] = []

    def do_GET(self) -> None:
        type(self).seen_headers.append(dict(self.headers))
        if self.path == "/moved":
            self.send_response(302)
            self.send_header("Location", "/notice.hwp")
            self.end_headers()
            return
        data = self.files.get(self.path)
        if data is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html")  # a wrong type: the bytes decide
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def file_server(document):
    _Files.files = {"/notice.hwp": document.read_bytes()}
    _Files.seen_headers = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Files)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_urls_are_fetched_only_as_the_operator_allows(env, document, file_server):
    link = file_server + "/notice.hwp"
    with serving(env, "--fetch", "--fetch-allow-private", "--fetch-allow-http") as url:
        local = call(url, "read_head", {"path": str(document), "chars": 500})
        assert call(url, "read_head", {"path": link, "chars": 500}) == local
        assert call(url, "read_head", {"path": file_server + "/moved", "chars": 500}) == local
        failed, text = call(url, "read_head", {"path": file_server + "/missing.hwp"})
        assert failed and json.loads(text)["error"] == "file_not_found"
        sent = _Files.seen_headers[0]
        assert not {"Cookie", "Authorization", "Proxy-Authorization"} & set(sent)
    with serving(env, "--fetch", "--fetch-allow-http") as url:
        failed, text = call(url, "read_head", {"path": link})
        error = json.loads(text)
        assert failed and error["error"] == "permission_denied" and "--fetch-allow-private" in error["suggestion"]
    with serving(env, "--fetch", "--fetch-allow-private") as url:
        failed, text = call(url, "read_head", {"path": link})
        error = json.loads(text)
        assert failed and error["error"] == "permission_denied" and "--fetch-allow-http" in error["suggestion"]
    with serving(env) as url:
        failed, text = call(url, "read_head", {"path": link})
        assert failed and "--fetch" in json.loads(text)["suggestion"]


def test_two_stateless_replicas_answer_one_client(env, document, tmp_path):
    """A load balancer may send each request to another replica: with --stateless none of them
    holds a session, and with one store directory an upload to one is readable on the other."""
    with serving(env, "--stateless") as first, serving(env, "--stateless") as second:
        handle = httpx.post(first + "/documents", content=document.read_bytes()).json()["document"]
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        init = {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": CLIENT},
        }
        with httpx.Client(headers=headers, timeout=30) as client:
            started = client.post(first + "/mcp", json=init)
            assert started.status_code == 200 and started.json()["result"]["serverInfo"]["name"] == "rhwp-mcp"
            assert "mcp-session-id" not in started.headers
            client.post(second + "/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"})
            errors = 0
            for i in range(200):
                replica = (first, second)[i % 2]
                arguments = {"path": handle if i % 4 < 2 else str(document), "chars": 500}
                answer = client.post(
                    replica + "/mcp",
                    json={
                        "jsonrpc": "2.0",
                        "id": i + 1,
                        "method": "tools/call",
                        "params": {"name": "read_head", "arguments": arguments},
                    },
                )
                result = answer.json().get("result", {}) if answer.status_code == 200 else {}
                if result.get("isError") or result.get("content", [{}])[0].get("text") != TEXT:
                    errors += 1
            assert errors == 0


def test_the_asgi_app_under_uvicorn_workers(env, document):
    """`uvicorn rhwp_mcp_host.asgi:app --workers 2`: configured by the environment, stateless, and
    the workers share the store, so whichever worker takes a request answers it."""
    port = free_port()
    auth = {"Authorization": f"Bearer {TOKEN}"}
    worker_env = {**env, "RHWP_MCP_AUTH_TOKEN": TOKEN}
    errlog = tempfile.TemporaryFile()
    uvicorn = [sys.executable, "-m", "uvicorn", "rhwp_mcp_host.asgi:app", "--port", str(port), "--workers", "2"]
    process = subprocess.Popen(uvicorn, env=worker_env, cwd=cwd(), stdout=subprocess.DEVNULL, stderr=errlog)
    try:
        wait_for_port(port, process)
        url = f"http://127.0.0.1:{port}"
        assert httpx.get(url + "/healthz").json()["tools"] >= 6
        assert httpx.post(url + "/documents", content=b"abc").status_code == 401
        handle = httpx.post(url + "/documents", content=document.read_bytes(), headers=auth).json()["document"]
        headers = {**auth, "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        errors = 0
        for i in range(40):
            # A new connection each time, so the kernel spreads them over the workers.
            answer = httpx.post(
                url + "/mcp",
                headers=headers,
                json={
                    "jsonrpc": "2.0",
                    "id": i,
                    "method": "tools/call",
                    "params": {"name": "read_head", "arguments": {"path": handle, "chars": 500}},
                },
            )
            result = answer.json().get("result", {}) if answer.status_code == 200 else {}
            errors += result.get("isError", True) or result["content"][0]["text"] != TEXT
        assert errors == 0
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
        errlog.close()
    refused = subprocess.run(
        [sys.executable, "-c", "import rhwp_mcp_host.asgi as m; m.app"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode == 2 and "RHWP_MCP_AUTH_TOKEN" in refused.stderr and "RHWP_MCP_NO_AUTH" in refused.stderr


JWT_MODULE = """
import os
from fastmcp.server.auth.providers.jwt import JWTVerifier

def verifier():
    with open(os.environ["TEST_JWT_PUBLIC_KEY"], encoding="utf-8") as f:
        return JWTVerifier(public_key=f.read(), issuer="https://issuer.test", audience="rhwp-mcp")
"""


def test_a_fastmcp_jwt_verifier_guards_mcp_and_uploads(env, tmp_path, document):
    """--auth-provider plugs FastMCP's resource-server verifiers (here a JWTVerifier) in place of
    the shared token; /documents asks the same verifier as /mcp."""
    jwt = pytest.importorskip("fastmcp.server.auth.providers.jwt")
    keys = jwt.RSAKeyPair.generate()
    (tmp_path / "jwt_auth.py").write_text(JWT_MODULE, encoding="utf-8")
    (tmp_path / "public.pem").write_text(keys.public_key, encoding="utf-8")
    provider_env = {
        **env,
        "PYTHONPATH": os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")]),
        "TEST_JWT_PUBLIC_KEY": str(tmp_path / "public.pem"),
    }
    good = keys.create_token(subject="agent", issuer="https://issuer.test", audience="rhwp-mcp")
    stranger = keys.create_token(subject="agent", issuer="https://issuer.test", audience="another-service")
    expired = keys.create_token(
        subject="agent", issuer="https://issuer.test", audience="rhwp-mcp", expires_in_seconds=-60
    )
    with serving(provider_env, "--auth-provider", "jwt_auth:verifier") as url:
        for token in (None, stranger, expired):
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            assert httpx.post(url + "/documents", content=b"abc", headers=headers).status_code == 401
            mcp = httpx.post(url + "/mcp", json={}, headers={**headers, "Content-Type": "application/json"})
            assert mcp.status_code == 401
        auth = {"Authorization": f"Bearer {good}"}
        stored = httpx.post(url + "/documents", content=document.read_bytes(), headers=auth)
        assert stored.status_code == 201
        assert call(url, "read_head", {"path": stored.json()["document"], "chars": 500}, auth) == (False, TEXT)
