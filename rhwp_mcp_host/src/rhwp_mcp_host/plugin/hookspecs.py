"""The hooks a tool pack may implement. A pack is a module or object with functions marked
``@hookimpl`` whose names are these; it implements only the hooks it needs."""

from __future__ import annotations

import pluggy

from .contract import CallOutcome, Deny, HostConfig, Register, RegisterResource, ToolCall

PROJECT_NAME = "rhwp_mcp"
# The entry-point group a pack declares itself in: how the host finds it without importing it by name.
ENTRY_POINT_GROUP = "rhwp.mcp_tools"
hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


@hookspec
def rhwp_mcp_register_tools(register: Register) -> None:
    """Contribute tools: call ``register(func, name=..., title=..., read_only=..., ...)`` once per tool.

    ``func`` is a plain typed function; its docstring is the description, its annotated
    parameters the input schema. Called once per pack at start-up; keep heavy imports out of it.
    """


@hookspec
def rhwp_mcp_register_resources(register: RegisterResource) -> None:
    """Contribute resources: call ``register(uri, read, name=..., mime_type=..., meta=...)`` once per
    resource. ``read()`` (no arguments) returns its text or bytes when a client reads it.

    Called once per pack at start-up, right after ``rhwp_mcp_register_tools``; a pack's tools and
    resources are kept or dropped together. E.g. an MCP Apps page: ``register("ui://pack/app.html",
    read, mime_type="text/html;profile=mcp-app")`` beside a tool registered with
    ``meta={"ui": {"resourceUri": "ui://pack/app.html"}}``.
    """


@hookspec
def rhwp_mcp_configure(config: HostConfig) -> None:
    """Receive the server's settings (roots, response cap, environment) once, before serving."""


@hookspec(firstresult=True)
def rhwp_mcp_before_call(call: ToolCall) -> Deny | None:
    """Inspect a call before the tool runs; return a :class:`Deny` to refuse it (the first deny wins)."""


@hookspec(firstresult=True)
def rhwp_mcp_open_source(source: str, scheme: str, call: ToolCall) -> str | None:
    """Turn a path argument that names no local file (``scheme`` is its URI scheme, lowercased:
    ``data``, ``doc``, ``https``...) into the path of a local, read-only file; return None to let
    another plugin answer. Raise :class:`~rhwp_mcp_host.ToolFailure` to refuse it.

    Runs after the before-call hooks (so a deny costs no download), in a worker thread (it may
    block on I/O). The built-in ``builtin:document-sources`` answers data:, doc:, https: and http:;
    a pack may add schemes of its own (s3:, say) and every tool's path accepts them.
    """


@hookspec
def rhwp_mcp_after_call(call: ToolCall, outcome: CallOutcome) -> None:
    """Observe a finished call (also a denied or failed one); exceptions here are logged, never fatal."""
