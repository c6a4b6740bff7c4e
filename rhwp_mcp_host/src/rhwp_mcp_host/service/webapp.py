"""The HTTP service around the MCP endpoint: what a server on a network needs besides /mcp.

- ``/mcp``: streamable HTTP (``stateless`` for replicas), behind FastMCP's Host/Origin guard
  (DNS-rebinding protection) and, when configured, bearer-token authentication.
- ``POST /documents``: raw bytes in, ``201 {"document": "doc:<sha256>", "bytes", "expires_in"}``
  out; same authentication as /mcp; the body is capped and read with a deadline.
- ``GET /documents/<handle>``: a stored document's bytes (a writing tool's result comes back as
  such a handle); same authentication; 404 for an unknown or expired handle.
- ``GET /healthz``: ``{"status": "ok", "tools": N}``, answered before any check (load balancers
  and probes reach it by address, without a token).
- Request bodies are bounded before anything parses them: /mcp at what a data: URI of the
  largest allowed document needs, /documents at the upload cap.
"""

from __future__ import annotations

import hmac
import importlib
import json
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from fastmcp.server.auth import AccessToken, AuthProvider, TokenVerifier
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..plugin.contract import MiB
from ..plugin.errors import FILE_NOT_FOUND, INVALID_INPUT, PERMISSION_DENIED, TOO_LARGE, ToolFailure, error_payload
from ..server.host import Host
from ..settings import HttpSettings

MCP_PATH = "/mcp"
UPLOAD_PATH = "/documents"
HEALTH_PATH = "/healthz"
# A slow upload holds a connection; past this it is dropped with 408.
UPLOAD_SECONDS = 300.0


class StaticBearerToken(TokenVerifier):
    """One shared secret (``--auth-token-file`` / ``RHWP_MCP_AUTH_TOKEN``), compared in constant time."""

    def __init__(self, token: str) -> None:
        super().__init__()
        self._token = token.encode("utf-8")

    async def verify_token(self, token: str) -> AccessToken | None:
        if hmac.compare_digest(token.encode("utf-8"), self._token):
            return AccessToken(token="static", client_id="rhwp-mcp-token", scopes=[])
        return None


def load_auth_provider(spec: str) -> AuthProvider:
    """``module:attribute`` -> a FastMCP AuthProvider (the attribute, or what calling it returns)."""
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise ValueError(f"--auth-provider {spec!r}: write it as module:attribute (e.g. my_auth:verifier)")
    try:
        obj: Any = importlib.import_module(module_name)
        for part in attribute.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"--auth-provider {spec!r}: cannot load it ({exc})") from None
    if not isinstance(obj, AuthProvider) and callable(obj):
        obj = obj()
    if not isinstance(obj, AuthProvider):
        raise ValueError(f"--auth-provider {spec!r} is a {type(obj).__name__}, not a fastmcp AuthProvider")
    return obj


def auth_provider(settings: HttpSettings) -> AuthProvider | None:
    if settings.auth_provider:
        return load_auth_provider(settings.auth_provider)
    if settings.auth_token:
        return StaticBearerToken(settings.auth_token)
    return None


def _json_error(
    status: int, code: str, message: str, suggestion: str, headers: dict[str, str] | None = None
) -> Response:
    return JSONResponse(error_payload(code, message, suggestion), status_code=status, headers=headers)


async def _authorized(request: Request, provider: AuthProvider | None) -> Response | None:
    """None when the request may proceed; else the 401 to send (what /mcp answers, as JSON)."""
    if provider is None:
        return None
    header = request.headers.get("authorization", "")
    if header[:7].lower() != "bearer ":
        return _json_error(
            401,
            PERMISSION_DENIED,
            "this endpoint needs a bearer token",
            "send the header 'Authorization: Bearer <token>', the token /mcp takes",
            {"WWW-Authenticate": "Bearer"},
        )
    token = await provider.verify_token(header[7:].strip())
    valid = token is not None and not (token.expires_at and token.expires_at < int(time.time()))
    if valid and token is not None and provider.required_scopes:
        valid = set(provider.required_scopes) <= set(token.scopes)
    if not valid:
        return _json_error(
            401,
            PERMISSION_DENIED,
            "the bearer token was not accepted",
            "send the token the server was configured with",
            {"WWW-Authenticate": 'Bearer error="invalid_token"'},
        )
    return None


def upload_endpoint(host: Host, provider: AuthProvider | None) -> Callable[[Request], Awaitable[Response]]:
    sources = host.config.sources
    cap = sources.upload_max_bytes

    async def upload(request: Request) -> Response:
        refused = await _authorized(request, provider)
        if refused is not None:
            return refused
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        # Only multipart wraps the file in something else; curl's default x-www-form-urlencoded on
        # --data-binary is the raw bytes mislabelled, and the reader sniffs bytes, not labels.
        if kind.startswith("multipart/"):
            return _json_error(
                415,
                INVALID_INPUT,
                f"the body is a form ({kind}); this endpoint takes the document's raw bytes",
                "send the file itself as the body: curl --data-binary @report.hwp -H 'Content-Type: "
                "application/octet-stream' ...",
            )
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > cap:
            return _too_large(cap)
        chunks: list[bytes] = []
        size = 0
        try:
            with anyio.fail_after(UPLOAD_SECONDS):
                async for chunk in request.stream():
                    size += len(chunk)
                    if size > cap:
                        return _too_large(cap)
                    chunks.append(chunk)
        except TimeoutError:
            return _json_error(
                408, TOO_LARGE, f"the upload took longer than {UPLOAD_SECONDS:g} s", "upload again on a faster link"
            )
        if size == 0:
            return _json_error(
                400, INVALID_INPUT, "the body is empty", "send the document's bytes as the body of the POST"
            )
        try:
            stored = await anyio.to_thread.run_sync(
                lambda: host.store.put_chunks(chunks, max_bytes=cap, what="the upload")
            )
        except ToolFailure as failure:
            status = 413 if failure.code == TOO_LARGE else 400
            return _json_error(status, failure.code, failure.message, failure.suggestion)
        return JSONResponse(
            {"document": stored.handle, "bytes": stored.size, "expires_in": int(sources.store_ttl)},
            status_code=201,
        )

    return upload


def download_endpoint(host: Host, provider: AuthProvider | None) -> Callable[[Request], Awaitable[Response]]:
    async def download(request: Request) -> Response:
        refused = await _authorized(request, provider)
        if refused is not None:
            return refused
        handle = str(request.path_params.get("handle", ""))
        try:
            path = await anyio.to_thread.run_sync(host.store.open, handle)
            data = await anyio.to_thread.run_sync(Path(path).read_bytes)
        except ToolFailure as failure:
            status = 404 if failure.code == FILE_NOT_FOUND else 400
            return _json_error(status, failure.code, failure.message, failure.suggestion)
        except OSError:
            return _json_error(404, FILE_NOT_FOUND, f"{handle} is no longer stored", "call the tool that made it again")
        return Response(data, media_type="application/octet-stream")

    return download


def _too_large(cap: int) -> Response:
    return _json_error(
        413,
        TOO_LARGE,
        f"the document is larger than the upload cap of {cap / MiB:g} MB",
        "send a smaller document, or ask the operator to raise --upload-max-mb",
    )


class ServiceApp:
    """The outermost ASGI layer: health first, then the body bound, then FastMCP's app (guard,
    auth, routes). Lifespan events pass straight through to FastMCP's app."""

    def __init__(self, inner: ASGIApp, *, tools: int, mcp_body_limit: int, cancel_on_hang_up: bool = False) -> None:
        self.inner = inner
        self.health = json.dumps({"status": "ok", "tools": tools}).encode()
        self.mcp_body_limit = mcp_body_limit
        self.cancel_on_hang_up = cancel_on_hang_up
        """Stateless mode: a client that hangs up before its answer cancels the call (see
        :func:`_cancelled_on_hang_up`)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.inner(scope, receive, send)
            return
        path = scope.get("path", "")
        if path == HEALTH_PATH and scope.get("method") in ("GET", "HEAD"):
            await Response(self.health, media_type="application/json")(scope, receive, send)
            return
        if path.rstrip("/") == MCP_PATH and scope.get("method") == "POST":
            await self._bounded(scope, receive, send)
            return
        await self.inner(scope, receive, send)

    async def _bounded(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Read the whole JSON-RPC body up to the limit (the MCP transport reads it whole anyway),
        then replay it: an oversized body is refused before any parser sees it."""
        limit = self.mcp_body_limit
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length", b"")
        if declared.isdigit() and int(declared) > limit:
            await self._refuse(scope, receive, send, limit)
            return
        body: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                await self._refuse(scope, receive, send, limit)
                return
            body.append(chunk)
            if not message.get("more_body", False):
                break
        request: Message = {"type": "http.request", "body": b"".join(body), "more_body": False}
        if self.cancel_on_hang_up:
            await _cancelled_on_hang_up(self.inner, scope, request, receive, send)
            return
        replay = [request]

        async def replaying() -> Message:
            return replay.pop() if replay else await receive()

        await self.inner(scope, replaying, send)

    @staticmethod
    async def _refuse(scope: Scope, receive: Receive, send: Send, limit: int) -> None:
        response = _json_error(
            413,
            TOO_LARGE,
            f"the request body is larger than {limit / MiB:g} MB",
            "pass large documents by upload (POST /documents) and call with the doc: handle it returns",
        )
        await response(scope, receive, send)


async def _cancelled_on_hang_up(app: ASGIApp, scope: Scope, request: Message, receive: Receive, send: Send) -> None:
    """Run ``app`` on a request whose body has been read (``request`` replays it), and cancel it if
    the client hangs up before the answer is complete: the tool then stops at its next checkpoint.

    Only for a stateless server. There no one can ever receive a lost answer (no session to resume,
    a plain JSON response), and no notifications/cancelled can reach a call (nothing to correlate it
    with), so the hang-up is the client's only way to say it no longer waits. (With sessions the
    protocol asks servers not to take a dropped stream for a cancel: it may be resumed.)"""
    gone = anyio.Event()
    answered = False
    replay = [request]

    async def app_receive() -> Message:
        if replay:
            return replay.pop()
        await gone.wait()
        return {"type": "http.disconnect"}

    async def app_send(message: Message) -> None:
        nonlocal answered
        if message["type"] == "http.response.body" and not message.get("more_body", False):
            answered = True
        await send(message)

    async with anyio.create_task_group() as tg:

        async def watch() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass
            gone.set()
            if not answered:
                tg.cancel_scope.cancel()

        tg.start_soon(watch)
        await app(scope, app_receive, app_send)
        tg.cancel_scope.cancel()  # answered: stop watching


def build_app(host: Host, settings: HttpSettings) -> ServiceApp:
    """The ASGI app serving ``host`` over HTTP with ``settings`` (auth, guard, stateless...)."""
    provider = auth_provider(settings)
    server = host.server
    server.auth = provider
    server.custom_route(UPLOAD_PATH, methods=["POST"])(upload_endpoint(host, provider))
    server.custom_route(UPLOAD_PATH + "/{handle}", methods=["GET"])(download_endpoint(host, provider))
    # Served over HTTP, a writing tool's result goes into the store and comes back as a handle.
    host.outputs.remote = True
    inner = server.http_app(
        path=MCP_PATH,
        transport="http",
        stateless_http=settings.stateless,
        json_response=settings.stateless,
        host_origin_protection="auto",
        allowed_hosts=list(settings.allowed_hosts) or None,
        allowed_origins=list(settings.allowed_origins) or None,
    )
    # A data: URI of the largest allowed document is 4/3 of it in base64, plus the JSON around it.
    mcp_body_limit = host.config.sources.upload_max_bytes * 4 // 3 + MiB
    return ServiceApp(inner, tools=host.tool_count, mcp_body_limit=mcp_body_limit, cancel_on_hang_up=settings.stateless)


__all__ = [
    "HEALTH_PATH",
    "MCP_PATH",
    "UPLOAD_PATH",
    "ServiceApp",
    "StaticBearerToken",
    "auth_provider",
    "build_app",
    "download_endpoint",
    "load_auth_provider",
]
