"""The values that cross the plugin contract: what hooks receive and return.

Kept free of fastmcp so that importing a pack (and ``rhwp-mcp packs``) stays cheap.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
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


@dataclass(frozen=True)
class HostConfig:
    """The server settings handed to every pack through ``rhwp_mcp_configure``."""

    roots: tuple[Path, ...] = ()
    """Directories files may be read from (realpaths); empty = anything the OS user can read."""
    max_chars: int = 20_000
    """The cap on the characters of any one response (see :mod:`rhwp_mcp_host.paging`)."""
    env: Mapping[str, str] = field(default_factory=dict)
    """The environment the server started with (a snapshot)."""
    trace: bool = False
    """True when RHWP_MCP_TRACE=1: packs may log more on stderr."""


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
    ) -> F: ...


class PathArgument:
    """Marks a parameter as a file path on the server's machine (see :data:`FilePath`)."""

    def __repr__(self) -> str:
        return "PathArgument()"


def normalize_path(value: str) -> str:
    """The local path a path argument names: ``file://`` URIs decoded, ``~`` expanded.

    Raises ValueError for a URI naming another host or another scheme, which cannot be read here.
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
    elif "://" in text:
        raise ValueError("only local paths and file:// URIs are accepted")
    if not text:
        raise ValueError("the path is empty")
    return os.path.expanduser(text)


def _validate_path(value: Any) -> Any:
    return normalize_path(value) if isinstance(value, str) else value


FilePath = Annotated[
    str,
    PathArgument(),
    BeforeValidator(_validate_path),
    Field(description="Path of a file on the machine where the server runs (absolute, or a file:// URI)."),
]
"""Annotate a tool's path parameters with this: the tool receives a plain local path, and the
built-in path policy (``--root``) checks every argument so marked before the tool runs."""
