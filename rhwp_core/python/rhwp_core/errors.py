"""The error vocabulary (DESIGN §4): every failure carries a stable ``code`` and a ``suggestion``.

The host maps any exception with these two attributes to an MCP error without knowing
these types, so third-party packs can raise their own exceptions the same way.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


class HwpError(Exception):
    """Base of every error ``rhwp_core`` raises about a document."""

    code: str = "corrupt_document"
    suggestion: str = ""

    def __init__(self, message: str, suggestion: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if suggestion is not None:
            self.suggestion = suggestion


class UnsupportedFormatError(HwpError):
    """HWP 1.x/2.x, DRM or an encryption scheme we cannot open, or not an HWP document at all."""

    code = "unsupported_format"
    suggestion = "Pass an HWP 5.0 (.hwp), HWPX (.hwpx) or HWP 3.x document."


class PasswordRequiredError(HwpError):
    """A password-protected document opened without its password, or with a wrong one."""

    code = "password_required"
    suggestion = "Pass the document's password as `password` (it is never stored or echoed)."


class CorruptDocumentError(HwpError):
    """Truncated, bit-damaged, or internally inconsistent."""

    code = "corrupt_document"
    suggestion = "Open the file in Hancom Office and save it again, or obtain an intact copy."


class TooLargeError(HwpError):
    """A safety bound was exceeded, or a result is too big for one response."""

    code = "too_large"
    suggestion = "Split the document, or ask for part of it."


class InvalidRequestError(HwpError, ValueError):
    """A request the document cannot answer as asked (pages it does not have, a malformed range)."""

    code = "invalid_input"
    suggestion = "Check the arguments."


class DocumentNotFoundError(FileNotFoundError):
    """A missing file; a ``FileNotFoundError`` that also carries ``code`` and ``suggestion``."""

    code = "file_not_found"

    def __init__(self, path: str) -> None:
        super().__init__(2, "No such file", path)
        self.message = f"no such file: {path}"
        self.suggestion = (
            "Check the path. It must name a file on the machine where rhwp-mcp runs; a file that lives "
            "only on the client's side (an upload, an attachment) has to be saved to this machine first."
        )

    def __str__(self) -> str:
        return self.message


class DocumentIsADirectoryError(IsADirectoryError):
    """The path names a directory, not a document."""

    code = "invalid_input"

    def __init__(self, path: str) -> None:
        super().__init__(21, "Is a directory", path)
        self.message = f"{path} is a directory, not an HWP/HWPX document"
        self.suggestion = "Pass the path of a .hwp or .hwpx file inside it."

    def __str__(self) -> str:
        return self.message


class DocumentPermissionError(PermissionError):
    """The OS refused to read the file."""

    code = "permission_denied"

    def __init__(self, path: str) -> None:
        super().__init__(13, "Permission denied", path)
        self.message = f"permission denied reading {path}"
        self.suggestion = "Make the file readable by the user rhwp-mcp runs as, or copy it somewhere readable."

    def __str__(self) -> str:
        return self.message


_BY_CODE: dict[str, type[HwpError]] = {
    cls.code: cls for cls in (UnsupportedFormatError, PasswordRequiredError, CorruptDocumentError, TooLargeError)
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
