"""The error vocabulary every tool speaks and the exception packs raise to use it.

A failed call reaches the client as an ``isError`` result whose text is
``{"error": CODE, "message": ..., "suggestion": ...}``. Packs either raise :class:`ToolFailure`
or any exception carrying string ``.code`` and ``.suggestion`` attributes (duck-typed, so a
domain library's own errors pass through without the host knowing their types); plain
``FileNotFoundError`` / ``PermissionError`` are mapped too. Everything else is a bug and becomes
``internal_error``. The mapping itself lives in :func:`error_from_exception`; the server calls it
from one place.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal, get_args

FILE_NOT_FOUND: Final = "file_not_found"
PERMISSION_DENIED: Final = "permission_denied"
INVALID_INPUT: Final = "invalid_input"
UNSUPPORTED_FORMAT: Final = "unsupported_format"
PASSWORD_REQUIRED: Final = "password_required"
CORRUPT_DOCUMENT: Final = "corrupt_document"
TOO_LARGE: Final = "too_large"
INTERNAL_ERROR: Final = "internal_error"

ErrorCode = Literal[
    "file_not_found",
    "permission_denied",
    "invalid_input",
    "unsupported_format",
    "password_required",
    "corrupt_document",
    "too_large",
    "internal_error",
]
ERROR_CODES: Final[tuple[str, ...]] = get_args(ErrorCode)

# An internal_error message quotes the exception text; cap it so a huge repr cannot flood the client.
_MAX_QUOTED = 400


class ToolFailure(Exception):
    """Raise from a tool to fail the call with a chosen code, message and suggestion."""

    def __init__(self, code: str, message: str, suggestion: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.suggestion = suggestion

    def to_dict(self) -> dict[str, str]:
        return {"error": self.code, "message": self.message, "suggestion": self.suggestion}


def error_payload(code: str, message: str, suggestion: str = "") -> dict[str, str]:
    return {"error": code, "message": message, "suggestion": suggestion}


def error_text(payload: dict[str, str]) -> str:
    """The text of an error result: the JSON object, non-ASCII kept readable."""
    return json.dumps(payload, ensure_ascii=False)


def _quoted(exc: BaseException) -> str:
    text = str(exc)
    if len(text) > _MAX_QUOTED:
        text = text[:_MAX_QUOTED] + "…"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def error_from_exception(exc: BaseException, *, tool: str, pack: str | None = None) -> dict[str, str]:
    """Map an exception raised by a tool body to the error object every tool speaks
    (``{"error": CODE, "message": ..., "suggestion": ...}``).

    Argument-validation failures are handled before this (they need the tool's schema); see
    :func:`invalid_input_from_validation`.
    """
    code = getattr(exc, "code", None)
    suggestion = getattr(exc, "suggestion", None)
    if isinstance(code, str) and code and isinstance(suggestion, str):
        message = getattr(exc, "message", None)
        if not isinstance(message, str) or not message:
            message = str(exc) or code
        return error_payload(code, message, suggestion)
    if isinstance(exc, FileNotFoundError):
        where = exc.filename if exc.filename is not None else str(exc)
        if isinstance(exc.filename, str) and not os.path.isabs(exc.filename):
            where = f"{exc.filename} (that is, {os.path.abspath(exc.filename)})"
        return error_payload(
            FILE_NOT_FOUND,
            f"no file at {where} on the machine where the server runs",
            "check the path; it must name a file on the server's machine (a file attached on the client's side, "
            "e.g. an upload in a chat, is not visible to the server): pass an absolute path or a file:// URI there",
        )
    if isinstance(exc, IsADirectoryError):
        return error_payload(INVALID_INPUT, f"{exc.filename or exc} is a directory", "pass the path of a file")
    if isinstance(exc, PermissionError):
        where = exc.filename if exc.filename is not None else str(exc)
        return error_payload(
            PERMISSION_DENIED,
            f"the server may not read {where}",
            "ask for a file the server's user can read, or fix the file's permissions",
        )
    if isinstance(exc, (MemoryError, RecursionError)):
        return error_payload(
            TOO_LARGE,
            f"the tool {tool!r} ran out of resources ({type(exc).__name__})",
            "ask for a smaller part of the input (offset/limit), or a smaller file",
        )
    culprit = f"the pack {pack!r}" if pack else "the tool"
    return error_payload(
        INTERNAL_ERROR,
        f"the tool {tool!r} failed unexpectedly ({_quoted(exc)})",
        f"this is a bug in {culprit}; the server's stderr has the traceback. Report it with the input that "
        "triggered it; other tools keep working",
    )


def _describe_schema(prop: dict[str, Any]) -> str:
    """A short human description of one JSON Schema property: its allowed values or type and bounds."""
    if "enum" in prop:
        return "one of " + ", ".join(json.dumps(v, ensure_ascii=False) for v in prop["enum"])
    if "const" in prop:
        return "exactly " + json.dumps(prop["const"], ensure_ascii=False)
    if "anyOf" in prop:
        parts = [_describe_schema(p) for p in prop["anyOf"] if isinstance(p, dict)]
        return " or ".join(p for p in parts if p)
    kind = prop.get("type", "")
    words = [str(kind)] if kind else []
    for key, label in (
        ("minimum", ">="),
        ("exclusiveMinimum", ">"),
        ("maximum", "<="),
        ("exclusiveMaximum", "<"),
        ("minLength", "length >="),
        ("maxLength", "length <="),
    ):
        if key in prop:
            words.append(f"{label} {prop[key]}")
    return " ".join(words)


def invalid_input_from_validation(
    errors: Sequence[Mapping[str, Any]], *, tool: str, input_schema: Mapping[str, Any] | None
) -> dict[str, str]:
    """Turn pydantic's error list for a tool call into one ``invalid_input`` object.

    The message names each bad argument and what was wrong; the suggestion gives the allowed
    values (from the tool's input schema, the same schema the client was shown).
    """
    properties: dict[str, Any] = (input_schema or {}).get("properties", {}) or {}
    problems: list[str] = []
    hints: list[str] = []
    for err in errors:
        loc = err.get("loc") or ()
        arg = str(loc[0]) if loc else ""
        path = ".".join(str(p) for p in loc)
        kind = err.get("type", "")
        if kind in ("missing_argument", "missing"):
            problems.append(f"missing required argument {arg!r}")
        elif kind in ("unexpected_keyword_argument", "extra_forbidden"):
            problems.append(f"unknown argument {arg!r}")
            if properties:
                hints.append(f"{tool} takes: " + ", ".join(properties))
            continue
        else:
            got = json.dumps(err.get("input"), ensure_ascii=False, default=repr)
            if len(got) > 80:
                got = got[:80] + "…"
            problems.append(f"argument {path or arg!r}: {err.get('msg', 'invalid value')} (got {got})")
        if arg in properties:
            described = _describe_schema(properties[arg])
            if described:
                hints.append(f"{arg}: {described}")
    if not problems:
        problems.append("the arguments do not match the tool's schema")
    suggestion = "; ".join(dict.fromkeys(hints)) if hints else f"see the input schema of {tool} in tools/list"
    return error_payload(INVALID_INPUT, f"invalid arguments for {tool}: " + "; ".join(problems), suggestion)
