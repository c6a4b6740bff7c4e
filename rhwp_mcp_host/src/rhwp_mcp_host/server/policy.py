"""Built-in plugins, registered through the same hooks as any pack.

- ``builtin:path-policy``: with ``--root DIR`` given, every argument declared as ``FilePath``
  must resolve (symlinks and ``..`` followed, via realpath) inside one of the roots.
- ``builtin:document-sources``: data: URIs, doc: handles and (with --fetch) URLs become local
  files before the tool runs (:mod:`rhwp_mcp_host.sources`).
- ``builtin:read-only``: with ``--read-only``, every tool registered as writing
  (``read_only=False``) is refused with ``permission_denied`` before it runs.
- ``builtin:trace``: with RHWP_MCP_TRACE=1, one stderr line per call start and end, with timing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..documents.sources import DocumentSources
from ..documents.store import DocumentStore
from ..plugin.contract import CallOutcome, Deny, HostConfig, ToolCall, normalize_path
from ..plugin.errors import PERMISSION_DENIED
from ..plugin.hookspecs import hookimpl
from ..plugin.output import is_within


def resolve_roots(roots: Iterable[str | os.PathLike[str]]) -> tuple[Path, ...]:
    """The realpaths of the given directories; a root that is not a directory is an error."""
    resolved: list[Path] = []
    for root in roots:
        real = Path(os.path.realpath(os.path.expanduser(os.fspath(root))))
        if not real.is_dir():
            raise ValueError(f"--root {root}: not a directory")
        if real not in resolved:
            resolved.append(real)
    return tuple(resolved)


class PathPolicy:
    """Refuses path arguments outside the roots; allows everything when there are none."""

    def __init__(self, roots: tuple[Path, ...] = ()) -> None:
        self.roots = roots

    @hookimpl
    def rhwp_mcp_configure(self, config: HostConfig) -> None:
        self.roots = config.roots

    @hookimpl(tryfirst=True)
    def rhwp_mcp_before_call(self, call: ToolCall) -> Deny | None:
        if not self.roots:
            return None
        for name in call.path_arguments:
            value = call.arguments.get(name)
            values = value if isinstance(value, list) else [value]
            for item in values:
                if not isinstance(item, str):
                    continue  # not a string: argument validation reports it
                try:
                    local = normalize_path(item)
                except ValueError:
                    continue  # a malformed URI: argument validation reports it
                if not is_within(local, self.roots):
                    listing = ", ".join(str(r) for r in self.roots)
                    return Deny(
                        PERMISSION_DENIED,
                        f"{item} is outside the directories this server may read",
                        f"ask for a file under {listing} (the server was started with --root; symlinks and '..' "
                        "are resolved before the check)",
                    )
        return None


class ReadOnlyPolicy:
    """Refuses writing tools when the operator said the server only reads."""

    def __init__(self) -> None:
        self.read_only = False

    @hookimpl
    def rhwp_mcp_configure(self, config: HostConfig) -> None:
        self.read_only = config.writing.read_only

    @hookimpl(tryfirst=True)
    def rhwp_mcp_before_call(self, call: ToolCall) -> Deny | None:
        if not self.read_only or call.read_only:
            return None
        return Deny(
            PERMISSION_DENIED,
            f"{call.tool} writes a document, and this server is read-only",
            "ask the operator to start the server without --read-only (RHWP_MCP_READ_ONLY); the reading tools work",
        )


class Tracer:
    """Prints each call's start and end with its duration on stderr."""

    def __init__(self, log: Callable[[str], None]) -> None:
        self.log = log

    @hookimpl(tryfirst=True)
    def rhwp_mcp_before_call(self, call: ToolCall) -> None:
        args = json.dumps(call.arguments, ensure_ascii=False, default=repr)
        if len(args) > 300:
            args = args[:300] + "…"
        self.log(f"trace: call {call.tool} [{call.pack}] {args}")

    @hookimpl(trylast=True)
    def rhwp_mcp_after_call(self, call: ToolCall, outcome: CallOutcome) -> None:
        if outcome.cancelled:
            result = "cancelled"
        else:
            result = "ok" if outcome.ok else f"error {outcome.error.get('error') if outcome.error else '?'}"
        # A call that waited for a slot says so (how an operator sees that --max-calls is tight).
        queued = f" (waited {outcome.waited * 1000:.0f} ms for a slot)" if outcome.waited >= 0.001 else ""
        self.log(f"trace: done {call.tool} in {outcome.elapsed * 1000:.1f} ms{queued}: {result}")


def builtin_plugins(*, trace: bool, log: Callable[[str], None], store: DocumentStore) -> list[tuple[str, Any]]:
    plugins: list[tuple[str, Any]] = [
        ("builtin:path-policy", PathPolicy()),
        ("builtin:read-only", ReadOnlyPolicy()),
        ("builtin:document-sources", DocumentSources(store)),
    ]
    if trace:
        plugins.append(("builtin:trace", Tracer(log)))
    return plugins
