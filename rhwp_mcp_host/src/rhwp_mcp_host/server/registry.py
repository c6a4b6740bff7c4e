"""What a pack registers: one :class:`ToolSpec` per tool, checked when registered."""

from __future__ import annotations

import inspect
import json
import re
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Union

from ..plugin.contract import PathArgument

# MCP tool names: 1-128 characters from this set (the 2025-06 spec's SHOULD, enforced here).
_TOOL_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")


@dataclass
class ToolSpec:
    """One tool as a pack registered it."""

    name: str
    func: Callable[..., Any]
    pack: str
    title: str
    description: str
    read_only: bool = True
    idempotent: bool = True
    destructive: bool = False
    open_world: bool = False
    tags: set[str] = field(default_factory=set)
    path_arguments: tuple[str, ...] = ()
    returns_text: bool = False
    meta: dict[str, Any] = field(default_factory=dict)
    """Extra ``_meta`` the tool carries on the wire (e.g. ``{"ui": {"resourceUri": ...}}`` for MCP Apps)."""


@dataclass
class ResourceSpec:
    """One resource as a pack registered it: ``read()`` gives its content when a client reads it."""

    uri: str
    read: Callable[[], str | bytes]
    pack: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)


# Resource URIs: a scheme and something after it (ui://app/page.html, config://x, ...).
_RESOURCE_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:\S+$")
_HOST_META_KEY = "rhwp_mcp"
"""The ``_meta`` key the host fills itself (the pack's name); a pack's ``meta`` may not use it."""


def check_meta(meta: Any, what: str) -> dict[str, Any]:
    """A pack's ``meta``: a JSON object (string keys, JSON values), without the host's own key."""
    if meta is None:
        return {}
    if not isinstance(meta, dict) or not all(isinstance(k, str) for k in meta):
        raise TypeError(f"{what}: meta must be a dict with string keys, got {type(meta).__name__}")
    if _HOST_META_KEY in meta:
        raise ValueError(f"{what}: meta key {_HOST_META_KEY!r} is the host's own")
    try:
        # A round trip: what goes on the wire is a copy the pack cannot change afterwards.
        copied: dict[str, Any] = json.loads(json.dumps(meta))
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{what}: meta must be JSON-serialisable ({exc})") from exc
    return copied


def build_resource_spec(
    uri: str,
    read: Callable[[], str | bytes],
    *,
    pack: str,
    name: str | None = None,
    title: str | None = None,
    description: str | None = None,
    mime_type: str | None = None,
    meta: dict[str, Any] | None = None,
) -> ResourceSpec:
    """Check one resource registration; raises ValueError/TypeError naming the problem."""
    if not isinstance(uri, str) or not _RESOURCE_URI.match(uri):
        raise ValueError(f"resource URI {uri!r} is not valid: it needs a scheme, e.g. ui://my-pack/page.html")
    if not callable(read):
        raise TypeError(f"resource {uri!r}: read must be a function returning str or bytes")
    if inspect.signature(read).parameters:
        raise TypeError(f"resource {uri!r}: read takes no arguments (templated resources are not supported)")
    return ResourceSpec(
        uri=uri,
        read=read,
        pack=pack,
        name=name or uri,
        title=title,
        description=description,
        mime_type=mime_type,
        meta=check_meta(meta, f"resource {uri!r}"),
    )


def default_title(name: str) -> str:
    """``extract_text`` -> ``Extract text``: set explicitly so titles do not depend on the fastmcp version."""
    words = re.split(r"[_\-.]+", name.strip("_-."))
    text = " ".join(w for w in words if w)
    return text[:1].upper() + text[1:] if text else name


def _mentions_path(annotation: Any) -> bool:
    """Whether a parameter annotation carries the PathArgument marker (also inside Optional/list)."""
    if typing.get_origin(annotation) is typing.Annotated:
        if any(isinstance(m, PathArgument) for m in annotation.__metadata__):
            return True
        return _mentions_path(typing.get_args(annotation)[0])
    origin = typing.get_origin(annotation)
    if origin is Union or (origin is not None and getattr(origin, "__name__", "") == "UnionType"):
        return any(_mentions_path(a) for a in typing.get_args(annotation))
    if origin in (list, tuple, set, frozenset) or str(origin) in ("typing.Sequence", "collections.abc.Sequence"):
        return any(_mentions_path(a) for a in typing.get_args(annotation))
    return False


def build_spec(
    func: Callable[..., Any],
    *,
    pack: str,
    name: str | None = None,
    title: str | None = None,
    description: str | None = None,
    read_only: bool = True,
    idempotent: bool = True,
    destructive: bool = False,
    open_world: bool = False,
    tags: set[str] | None = None,
    meta: dict[str, Any] | None = None,
) -> ToolSpec:
    """Check one registration and describe it; raises ValueError/TypeError naming the problem."""
    if not callable(func):
        raise TypeError(f"register() needs a function, got {type(func).__name__}")
    tool_name = name if name is not None else getattr(func, "__name__", "")
    if not isinstance(tool_name, str) or not _TOOL_NAME.match(tool_name):
        raise ValueError(f"tool name {tool_name!r} is not valid: use 1-128 letters, digits, '_', '-' or '.'")
    doc = description if description is not None else inspect.getdoc(func)
    if not doc or not doc.strip():
        raise ValueError(f"tool {tool_name!r} has no description: give the function a docstring")
    try:
        hints = typing.get_type_hints(func, include_extras=True)
    except Exception as exc:
        raise TypeError(f"tool {tool_name!r}: cannot resolve its annotations ({exc})") from exc
    params = inspect.signature(func).parameters
    for pname, param in params.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise TypeError(f"tool {tool_name!r}: *args/**kwargs cannot become a schema ({pname})")
        if pname not in hints:
            raise TypeError(f"tool {tool_name!r}: parameter {pname!r} has no type annotation")
    path_args = tuple(p for p in params if _mentions_path(hints[p]))
    return ToolSpec(
        name=tool_name,
        func=func,
        pack=pack,
        title=title or default_title(tool_name),
        description=doc.strip(),
        read_only=read_only,
        idempotent=idempotent,
        destructive=destructive,
        open_world=open_world,
        tags=set(tags or ()),
        path_arguments=path_args,
        returns_text=hints.get("return") is str,
        meta=check_meta(meta, f"tool {tool_name!r}"),
    )
