"""The ``password`` every document-taking tool accepts, added by the host as document sources are.

Any tool with a :data:`~rhwp_mcp_host.FilePath` parameter gets an optional ``password`` in its input
schema without declaring it. The host takes the password out of the arguments before anything else
sees them — the call hooks, the trace, the tool's own validation (whose errors quote inputs) — and
holds it in a context variable for the length of the call; a pack reads it with
:func:`current_password` and hands it to its reader. So it is never part of a ``ToolCall``, a log
line, an error or a ``next:`` line: a cut line says "with the same password" instead, because the
caller repeats it on the next page (the server keeps no password and no decrypted document).

A tool that declares a ``password`` parameter of its own keeps it: the host neither adds nor takes one.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any, Final

from .errors import INVALID_INPUT, ToolFailure

PASSWORD_ARGUMENT: Final = "password"
PASSWORD_DESCRIPTION: Final = (
    "The document's password, when it is password-protected (used to open it for this call only; never "
    "stored, logged or echoed). Repeat it on every call, including the next page."
)
_PASSWORD_SCHEMA: Final[dict[str, Any]] = {
    "anyOf": [{"type": "string"}, {"type": "null"}],
    "default": None,
    "description": PASSWORD_DESCRIPTION,
}

_active: ContextVar[str | None] = ContextVar("rhwp_mcp_password", default=None)


def current_password() -> str | None:
    """The password the caller gave with the current tool call, or None."""
    return _active.get()


def add_password_parameter(parameters: dict[str, Any]) -> bool:
    """Give a tool's input schema the host's optional ``password``; False (schema unchanged) when
    the tool declares its own."""
    properties = parameters.setdefault("properties", {})
    if PASSWORD_ARGUMENT in properties:
        return False
    properties[PASSWORD_ARGUMENT] = dict(_PASSWORD_SCHEMA)
    return True


def take_password(arguments: dict[str, Any]) -> str | None:
    """Remove the password from a call's arguments and return it; ``invalid_input`` (which never
    quotes the value) when it is not a string."""
    value = arguments.pop(PASSWORD_ARGUMENT, None)
    if value is None or isinstance(value, str):
        return value or None
    raise ToolFailure(
        INVALID_INPUT,
        f"argument 'password' must be a string or null, not {type(value).__name__}",
        "pass the document's password as a JSON string",
    )


__all__ = ["PASSWORD_ARGUMENT", "add_password_parameter", "current_password", "take_password"]
