"""The pack author's kit: load packs into an in-process server and call their tools exactly as a
client would (through FastMCP's in-memory client, so schemas, validation, the call hooks, the
path policy and the error mapping all apply).

    from rhwp_mcp_host.testing import pack_session
    import my_pack

    def test_counts_words(tmp_path):
        (tmp_path / "a.txt").write_text("two words")
        with pack_session(my_pack) as session:
            assert session.call("word_count", path=str(tmp_path / "a.txt")) == {"words": 2}
            assert session.call("word_count", path="/nope")["error"] == "file_not_found"

Plain synchronous functions: no pytest plugin or event loop needed in the test.

For an end-to-end test over a real socket, :func:`serve_http` starts the real ``rhwp-mcp``
command on a free loopback port and yields its base URL (``/mcp``, ``/documents``, ``/healthz``).
"""

from __future__ import annotations

import functools
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, ExitStack, contextmanager
from types import TracebackType
from typing import Any

from .server.host import Host, create_host


def _pack_name(obj: Any) -> str:
    name = getattr(obj, "__name__", None) or type(obj).__name__
    return str(name).rsplit(".", 1)[-1]


class PackSession(AbstractContextManager["PackSession"]):
    """A server holding the given packs, with a connected in-memory client.

    ``packs`` are plugin objects (modules, instances), ``{name: object}`` mappings, or names of
    installed entry points (strings). ``call`` returns the tool's parsed result — a ``str`` for
    text tools, the JSON value otherwise — or, when the call fails, the error object
    ``{"error": CODE, "message": ..., "suggestion": ...}``.
    """

    def __init__(
        self,
        *packs: Any,
        roots: tuple[str | os.PathLike[str], ...] | list[str | os.PathLike[str]] = (),
        max_chars: int | None = None,
        env: Mapping[str, str] | None = None,
        max_image_chars: int | None = None,
    ) -> None:
        plugins: dict[str, Any] = {}
        names: list[str] = []
        for pack in packs:
            if isinstance(pack, str):
                names.append(pack)
            elif isinstance(pack, Mapping):
                plugins.update(pack)
            else:
                plugins[_pack_name(pack)] = pack
        base_env = dict(os.environ if env is None else env)
        # The session holds exactly the packs asked for, whatever the shell's selection says.
        base_env.pop("RHWP_MCP_ENABLE", None)
        base_env.pop("RHWP_MCP_DISABLE", None)
        self.host: Host = create_host(
            roots=roots,
            enable=(names + list(plugins)) if names else None,
            plugins=plugins,
            entry_points=bool(names),
            max_chars=max_chars,
            max_image_chars=max_image_chars,
            env=base_env,
        )
        self.server = self.host.server
        self._stack: ExitStack | None = None
        self._portal: Any = None
        self._client: Any = None

    def __enter__(self) -> PackSession:
        from anyio.from_thread import start_blocking_portal
        from fastmcp import Client

        stack = ExitStack()
        try:
            self._portal = stack.enter_context(start_blocking_portal())
            self._client = stack.enter_context(self._portal.wrap_async_context_manager(Client(self.server)))
        except BaseException:
            stack.close()
            raise
        self._stack = stack
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._stack is not None:
            self._stack.close()
        self._stack = self._portal = self._client = None

    def _need_client(self) -> None:
        if self._client is None:
            raise RuntimeError("use the session in a with-block: with pack_session(...) as session: ...")

    def call_raw(self, tool: str, arguments: Mapping[str, Any] | None = None) -> Any:
        """The client's CallToolResult (content blocks, structured content, is_error)."""
        self._need_client()
        return self._portal.call(
            functools.partial(self._client.call_tool, tool, dict(arguments or {}), raise_on_error=False)
        )

    def call(self, tool: str, /, **arguments: Any) -> Any:
        """Call ``tool`` and return its parsed result, or the error object when the call failed."""
        result = self.call_raw(tool, arguments)
        text = "\n".join(t for t in (getattr(b, "text", None) for b in result.content) if t is not None)
        if result.is_error:
            return json.loads(text)
        if result.structured_content is None:
            return text
        return json.loads(text)

    def list_tools(self) -> list[Any]:
        """The tools as a client lists them (MCP Tool objects: name, title, description, schemas)."""
        self._need_client()
        return list(self._portal.call(self._client.list_tools))

    def tool_names(self) -> list[str]:
        return [tool.name for tool in self.list_tools()]

    def list_resources(self) -> list[Any]:
        """The resources as a client lists them (MCP Resource objects: uri, name, mimeType, _meta)."""
        self._need_client()
        return list(self._portal.call(self._client.list_resources))

    def read_resource(self, uri: str) -> list[Any]:
        """The contents of one resource as a client reads it (text or blob contents, with mimeType)."""
        self._need_client()
        return list(self._portal.call(self._client.read_resource, uri))


def pack_session(
    *packs: Any,
    roots: tuple[str | os.PathLike[str], ...] | list[str | os.PathLike[str]] = (),
    max_chars: int | None = None,
    env: Mapping[str, str] | None = None,
    max_image_chars: int | None = None,
) -> PackSession:
    """See :class:`PackSession`; use it as ``with pack_session(pack) as session: ...``."""
    return PackSession(*packs, roots=roots, max_chars=max_chars, env=env, max_image_chars=max_image_chars)


def call_tool(pack: Any, tool: str, /, **arguments: Any) -> Any:
    """One call in a fresh session: ``call_tool(my_pack, "word_count", path="a.txt")``."""
    with pack_session(pack) as session:
        return session.call(tool, **arguments)


def free_port() -> int:
    """A TCP port nothing listens on right now (loopback)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serve_http(
    *args: str, env: Mapping[str, str] | None = None, port: int | None = None, command: Sequence[str] | None = None
) -> Iterator[str]:
    """Run ``rhwp-mcp --transport streamable-http --port PORT *args`` until the block ends; yields
    ``http://127.0.0.1:PORT``. Waits for ``/healthz``; if the server exits first, RuntimeError
    carries what it said on stderr. ``command`` replaces ``[python, -m, rhwp_mcp_host]``."""
    port = port or free_port()
    cmd = [*(command or [sys.executable, "-m", "rhwp_mcp_host"]), "--transport", "streamable-http"]
    # stderr to a file, not a pipe nobody drains: a pack that logs every call would fill the
    # pipe and stall the server.
    with tempfile.TemporaryFile() as errlog:
        process = subprocess.Popen(
            [*cmd, "--port", str(port), *args],
            env=dict(os.environ if env is None else env),
            stdout=subprocess.DEVNULL,
            stderr=errlog,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                if process.poll() is not None:
                    errlog.seek(0)
                    said = errlog.read().decode("utf-8", "replace")[-2000:]
                    raise RuntimeError(f"rhwp-mcp exited with status {process.returncode}: {said}")
                try:
                    with urllib.request.urlopen(url + "/healthz", timeout=1) as answer:
                        if answer.status == 200:
                            break
                except (urllib.error.URLError, OSError):
                    pass
                if time.monotonic() > deadline:
                    raise TimeoutError(f"rhwp-mcp did not answer on {url} within 60 s")
                time.sleep(0.05)
            yield url
        finally:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


__all__ = ["PackSession", "call_tool", "free_port", "pack_session", "serve_http"]
