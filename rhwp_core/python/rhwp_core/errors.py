"""The error vocabulary: every failure carries a stable ``code`` and a ``suggestion``.

A failed tool call shows both to the client (``{"error": code, "message": ..., "suggestion": ...}``),
so the codes are a contract. The host maps any exception with these two attributes to an MCP
error without knowing these types, so third-party packs can raise their own exceptions the same way.

The codes, their default suggestions (used when an error is raised without a more specific one)
and the class that carries each come from one table in the Rust reader (``rhwp_reader::error::
VOCABULARY``, exported as ``_native.ERROR_CODES``); the classes here take them from it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TypeVar

from . import _native

_ROWS: dict[str, tuple[str, str]] = {cls: (code, suggestion) for code, suggestion, cls in _native.ERROR_CODES}

_C = TypeVar("_C", bound=type)


def _in_vocabulary(cls: _C) -> _C:
    """Give ``cls`` the code and default suggestion the vocabulary's row for its name holds."""
    code, suggestion = _ROWS[cls.__name__]
    # setattr, not assignment: ``_C`` is any class (HwpError's or an OSError's subclass), so the
    # type checker cannot see the two attributes each of them declares.
    setattr(cls, "code", code)  # noqa: B010
    setattr(cls, "suggestion", suggestion)  # noqa: B010
    return cls


class HwpError(Exception):
    """Base of every error ``rhwp_core`` raises about a document."""

    code: str = "corrupt_document"
    suggestion: str = ""

    def __init__(self, message: str, suggestion: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if suggestion is not None:
            self.suggestion = suggestion


@_in_vocabulary
class UnsupportedFormatError(HwpError):
    """HWP 1.x/2.x, DRM or an encryption scheme we cannot open, or not an HWP document at all."""


@_in_vocabulary
class PasswordRequiredError(HwpError):
    """A password-protected document opened without its password, or with a wrong one."""


@_in_vocabulary
class CorruptDocumentError(HwpError):
    """Truncated, bit-damaged, or internally inconsistent."""


@_in_vocabulary
class TooLargeError(HwpError):
    """A safety bound was exceeded, or a result is too big for one response."""


@_in_vocabulary
class InvalidRequestError(HwpError, ValueError):
    """A request the document cannot answer as asked (pages it does not have, a malformed range)."""


@_in_vocabulary
class DocumentNotFoundError(FileNotFoundError):
    """A missing file; a ``FileNotFoundError`` that also carries ``code`` and ``suggestion``."""

    code: str
    suggestion: str

    def __init__(self, path: str) -> None:
        super().__init__(2, "No such file", path)
        self.message = f"no such file: {path}"

    def __str__(self) -> str:
        return self.message


class DocumentIsADirectoryError(IsADirectoryError):
    """The path names a directory, not a document."""

    code = InvalidRequestError.code

    def __init__(self, path: str) -> None:
        super().__init__(21, "Is a directory", path)
        self.message = f"{path} is a directory, not an HWP/HWPX document"
        self.suggestion = "Pass the path of a .hwp or .hwpx file inside it."

    def __str__(self) -> str:
        return self.message


@_in_vocabulary
class DocumentPermissionError(PermissionError):
    """The OS refused to read the file."""

    code: str
    suggestion: str

    def __init__(self, path: str) -> None:
        super().__init__(13, "Permission denied", path)
        self.message = f"permission denied reading {path}"

    def __str__(self) -> str:
        return self.message


# The classes the native layer's codes become (every HwpError of the vocabulary).
_BY_CODE: dict[str, type[HwpError]] = {
    cls.code: cls
    for cls in (UnsupportedFormatError, PasswordRequiredError, CorruptDocumentError, TooLargeError, InvalidRequestError)
}


def from_native(code: str, message: str, suggestion: str) -> HwpError:
    """Build the Python error for a reader error raised by the native layer."""
    return _BY_CODE.get(code, CorruptDocumentError)(message, suggestion)


@contextlib.contextmanager
def opening(path: str) -> Iterator[None]:
    """The OS's refusals to open ``path`` as this vocabulary's errors (carrying code and suggestion)."""
    try:
        yield
    except FileNotFoundError:
        raise DocumentNotFoundError(path) from None
    except PermissionError:
        raise DocumentPermissionError(path) from None
    except IsADirectoryError:
        raise DocumentIsADirectoryError(path) from None
