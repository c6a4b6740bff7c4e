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
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Mapping
from contextlib import AbstractContextManager, ExitStack
from types import TracebackType
from typing import Any

from .server import Host, create_host


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


def pack_session(
    *packs: Any,
    roots: tuple[str | os.PathLike[str], ...] | list[str | os.PathLike[str]] = (),
    max_chars: int | None = None,
    env: Mapping[str, str] | None = None,
) -> PackSession:
    """See :class:`PackSession`; use it as ``with pack_session(pack) as session: ...``."""
    return PackSession(*packs, roots=roots, max_chars=max_chars, env=env)


def call_tool(pack: Any, tool: str, /, **arguments: Any) -> Any:
    """One call in a fresh session: ``call_tool(my_pack, "word_count", path="a.txt")``."""
    with pack_session(pack) as session:
        return session.call(tool, **arguments)


__all__ = ["PackSession", "call_tool", "pack_session"]
