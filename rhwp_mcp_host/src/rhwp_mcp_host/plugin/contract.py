"""The values that cross the plugin contract: what hooks receive and return.

Kept free of fastmcp so that importing a pack (and ``rhwp-mcp packs``) stays cheap.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Protocol, TypeVar
from urllib.parse import unquote, urlsplit

from pydantic import BeforeValidator, Field

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Deny:
    """Returned by ``rhwp_mcp_before_call`` to refuse a call; the first deny wins."""

    code: str
    message: str
    suggestion: str = ""


MiB = 1024 * 1024


@dataclass(frozen=True)
class SourceSettings:
    """Where documents may come from besides local files: data: URIs and doc: handles always, URLs only
    when the operator turns fetching on; each source has a cap on its size (and a download on its time)."""

    fetch: bool = False
    """--fetch: https:// URLs are downloaded (off by default: a server that fetches is a network client)."""
    fetch_allow_http: bool = False
    """--fetch-allow-http: plain http:// too."""
    fetch_allow_private: bool = False
    """--fetch-allow-private: loopback, private and link-local addresses too (intranets)."""
    fetch_max_bytes: int = 50 * MiB
    fetch_timeout: float = 30.0
    upload_max_bytes: int = 50 * MiB
    """The cap on one uploaded document (POST /documents) and on one decoded data: URI."""
    store_dir: Path | None = None
    """Where uploads and downloads are kept; None = a per-user directory under the system's temp dir."""
    store_max_bytes: int = 512 * MiB
    store_ttl: float = 3600.0
    """Seconds a stored document lives after its last upload or use."""


@dataclass(frozen=True)
class WriteSettings:
    """What the operator allows writing tools: nothing (``read_only``), and where files go."""

    read_only: bool = False
    """--read-only / RHWP_MCP_READ_ONLY: every writing tool is refused with permission_denied."""
    output_dir: Path | None = None
    """--output-dir / RHWP_MCP_OUTPUT_DIR: where results are written (an allowed place even with --root)."""


def default_max_calls() -> int:
    """Tool calls run at once by default: two per CPU (their work is mostly native reading, which
    releases the GIL, so a second call per CPU fills the gaps), at least four."""
    return max(4, 2 * (os.cpu_count() or 1))


@dataclass(frozen=True)
class HostConfig:
    """The server settings handed to every pack through ``rhwp_mcp_configure``."""

    roots: tuple[Path, ...] = ()
    """Directories files may be read from (realpaths); empty = anything the OS user can read."""
    max_chars: int = 20_000
    """The cap on the characters of any one response (see :mod:`rhwp_mcp_host.paging`)."""
    max_image_chars: int = 1_400_000
    """The cap on the base64 characters of the pictures of one response."""
    max_calls: int = field(default_factory=default_max_calls)
    """How many tool calls run at once; the others wait their turn (``--max-calls``)."""
    env: Mapping[str, str] = field(default_factory=dict)
    """The environment the server started with (a snapshot)."""
    trace: bool = False
    """True when RHWP_MCP_TRACE=1: packs may log more on stderr."""
    sources: SourceSettings = field(default_factory=SourceSettings)
    writing: WriteSettings = field(default_factory=WriteSettings)
    """Whether writing tools may write, and where (see :mod:`rhwp_mcp_host.plugin.output`)."""


@dataclass
class ToolCall:
    """One tool call as the call hooks see it (before argument validation)."""

    tool: str
    pack: str
    arguments: dict[str, Any]
    """The raw arguments the client sent."""
    path_arguments: tuple[str, ...] = ()
    """Names of the parameters declared as :data:`FilePath` (what the path policy checks)."""
    started: float = field(default_factory=time.perf_counter)
    state: dict[str, Any] = field(default_factory=dict)
    """Scratch space shared by the hooks of one call (e.g. a start time)."""
    read_only: bool = True
    """False for a tool that writes (registered with ``read_only=False``)."""
    sources: dict[str, str] = field(default_factory=dict)
    """Path arguments that named a document source other than a local file (a data: URI, a doc:
    handle, a URL), mapped to the local file the host resolved them to before the tool ran."""


@dataclass(frozen=True)
class CallOutcome:
    """How a call ended, as ``rhwp_mcp_after_call`` sees it."""

    ok: bool
    elapsed: float
    """Seconds from the before-call hooks to the end of the tool."""
    error: dict[str, str] | None = None
    """The error object sent to the client when ``ok`` is False."""
    denied_by: str | None = None
    """The plugin whose before-call hook refused the call, if one did."""
    cancelled: bool = False
    """The client cancelled the call (or left): nothing was sent back, ``ok`` is False, no error."""
    waited: float = 0.0
    """Seconds the call waited for a free slot (``--max-calls``) before its tool ran (in ``elapsed``)."""


class Register(Protocol):
    """The ``register`` callable a pack receives in ``rhwp_mcp_register_tools``."""

    def __call__(
        self,
        func: F,
        /,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        read_only: bool = True,
        idempotent: bool = True,
        destructive: bool = False,
        open_world: bool = False,
        tags: set[str] | None = None,
        meta: dict[str, Any] | None = None,
    ) -> F: ...


class RegisterResource(Protocol):
    """The ``register`` callable a pack receives in ``rhwp_mcp_register_resources``."""

    def __call__(
        self,
        uri: str,
        read: Callable[[], str | bytes],
        /,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        meta: dict[str, Any] | None = None,
    ) -> None: ...


class PathArgument:
    """Marks a parameter as a file path on the server's machine (see :data:`FilePath`)."""

    def __repr__(self) -> str:
        return "PathArgument()"


# A URI scheme has two or more characters, so a Windows drive letter ("C:\\...") is not one.
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]+):")


def source_scheme(value: str) -> str | None:
    """The scheme of a path argument that names a document source other than a local file
    (``data``, ``doc``, ``https``...), lowercased; None for a local path or a ``file:`` URI."""
    match = _SCHEME.match(value.lstrip())
    if match is None:
        return None
    scheme = match.group(1).lower()
    return None if scheme == "file" else scheme


def normalize_path(value: str) -> str:
    """The local path a path argument names: ``file://`` URIs decoded, ``~`` expanded.

    Raises ValueError for a URI naming another host or another scheme, which is no local path
    (the host resolves those document sources to local files before a tool runs).
    """
    text = value.strip()
    if text.lower().startswith("file:"):
        parts = urlsplit(text)
        if parts.netloc not in ("", "localhost"):
            raise ValueError(
                f"the URI names the host {parts.netloc!r}; only files on the server's own machine can be read"
            )
        text = unquote(parts.path)
        if os.name == "nt" and len(text) > 2 and text[0] == "/" and text[2] == ":":
            text = text[1:]
    elif source_scheme(text) is not None or "://" in text:
        raise ValueError("not a local path or file:// URI")
    if not text:
        raise ValueError("the path is empty")
    return os.path.expanduser(text)


# During a call: the local file each resolved document source became -> what the caller named
# (a doc: handle), so that a page's "next:" line and any echo of the path show the caller's name.
_shown_as: ContextVar[Mapping[str, str] | None] = ContextVar("rhwp_mcp_shown_as", default=None)


def caller_source(path: str) -> str:
    """The name the caller can use again for ``path``: for a document the host resolved from a
    data: URI, an upload or a URL, its ``doc:<sha256>`` handle; any other path unchanged.

    Packs echo paths through this (``format_call`` does it for them), so a response never shows
    the server's storage paths and a follow-up call does not download or decode the source again.
    """
    shown = _shown_as.get()
    return shown.get(path, path) if shown else path


def _pages_as_text(value: Any) -> Any:
    # "pages": 3 is what a model often sends for one page.
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


Pages = Annotated[
    str | None,
    BeforeValidator(_pages_as_text),
    Field(
        description='Only these pages, as last laid out by the authoring program: "3", "3-5" or "1,4-6" '
        "(a block belongs to the page it starts on). Default: the whole document."
    ),
]
"""A tool's page selection parameter, for tools over paged documents (the pack parses it)."""

Offset = Annotated[int, Field(ge=0, description="Where to start: 0, or the offset a previous page named.")]
"""A paged tool's ``offset`` parameter: where :func:`page_text` / :func:`page_list` start."""

MaxChars = Annotated[
    int | None,
    Field(ge=1, description="At most this many characters of content (lowered to the server's cap; default: the cap)."),
]
"""A text tool's ``max_chars`` parameter, as :func:`page_text` takes it (never above the server's cap)."""


PATH_DESCRIPTION = (
    "The document: a path on the machine where the server runs (absolute, or a file:// URI), "
    "a data: URI (base64), or a doc:<sha256> handle from the server's upload endpoint."
)


def _validate_path(value: Any) -> Any:
    return normalize_path(value) if isinstance(value, str) else value


FilePath = Annotated[
    str,
    PathArgument(),
    BeforeValidator(_validate_path),
    Field(description=PATH_DESCRIPTION),
]
"""Annotate a tool's path parameters with this: the tool receives a plain local path. The host
resolves the other document sources (data: URIs, doc: handles, URLs) to read-only local files
before the tool runs, and the built-in path policy (``--root``) checks local paths."""
