"""rhwp-mcp-host: the plugin contract and the server of rhwp-mcp.

What a pack imports from here is cheap (no fastmcp): the hook markers, ``FilePath``, the error
type, the paging helpers, and ``report_progress`` / ``checkpoint`` for long calls. The server itself
(``build_server``) is imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._version import __version__
from .plugin.contract import (
    CallOutcome,
    Deny,
    FilePath,
    HostConfig,
    MaxChars,
    Offset,
    Pages,
    PathArgument,
    Register,
    RegisterResource,
    SourceSettings,
    ToolCall,
    WriteSettings,
    caller_source,
    normalize_path,
    source_scheme,
)
from .plugin.errors import ERROR_CODES, ToolFailure
from .plugin.hookspecs import ENTRY_POINT_GROUP, PROJECT_NAME, hookimpl, hookspec
from .plugin.output import save_output
from .plugin.paging import (
    current_max_chars,
    current_max_image_chars,
    format_call,
    next_call_of,
    page_list,
    page_text,
    parameter_defaults,
    split_string_field,
)
from .plugin.passwords import current_password
from .plugin.progress import CallCancelled, checkpoint, is_cancelled, phase, report_progress

if TYPE_CHECKING:
    from .server.host import Host, build_server, create_host

__all__ = [
    "ENTRY_POINT_GROUP",
    "ERROR_CODES",
    "PROJECT_NAME",
    "CallCancelled",
    "CallOutcome",
    "Deny",
    "FilePath",
    "Host",
    "HostConfig",
    "MaxChars",
    "Offset",
    "Pages",
    "PathArgument",
    "Register",
    "RegisterResource",
    "SourceSettings",
    "ToolCall",
    "ToolFailure",
    "WriteSettings",
    "__version__",
    "build_server",
    "caller_source",
    "checkpoint",
    "create_host",
    "current_max_chars",
    "current_max_image_chars",
    "current_password",
    "format_call",
    "hookimpl",
    "hookspec",
    "is_cancelled",
    "next_call_of",
    "normalize_path",
    "page_list",
    "page_text",
    "parameter_defaults",
    "phase",
    "report_progress",
    "save_output",
    "source_scheme",
    "split_string_field",
]


def __getattr__(name: str) -> Any:
    # The server pulls in fastmcp (seconds to import); packs importing the markers must not pay that.
    if name in ("build_server", "create_host", "Host"):
        from .server import host

        return getattr(host, name)
    raise AttributeError(f"module 'rhwp_mcp_host' has no attribute {name!r}")
