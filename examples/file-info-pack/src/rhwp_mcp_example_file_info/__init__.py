"""An example rhwp-mcp tool pack: facts about files.

The module itself is the plugin (the entry point names it): it implements one hook,
``rhwp_mcp_register_tools``, and registers three plain typed functions.
"""

from __future__ import annotations

import hashlib
import os
import stat
from datetime import datetime, timezone
from typing import Annotated, Literal

from pydantic import Field

from rhwp_mcp_host import FilePath, Register, ToolFailure, format_call, hookimpl, page_list, page_text

# Magic numbers at the start of a file -> a name; the first that matches wins.
_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "ole-compound (HWP 5.0, old MS Office)"),
    (b"PK\x03\x04", "zip (HWPX, OOXML, ODF, ...)"),
    (b"%PDF-", "pdf"),
    (b"\x89PNG\r\n\x1a\n", "png"),
    (b"\xff\xd8\xff", "jpeg"),
    (b"GIF8", "gif"),
    (b"HWP Document File", "hwp 3.x"),
    (b"\x1f\x8b", "gzip"),
)
_READ_CHUNK = 1 << 20


def _sniff(head: bytes) -> str:
    for magic, name in _SIGNATURES:
        if head.startswith(magic):
            return name
    if not head:
        return "empty"
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        # A multi-byte character cut by the end of the sample is still text.
        if exc.start < len(head) - 3:
            return "binary"
    return "text (utf-8)"


def file_info(path: FilePath) -> dict[str, object]:
    """Facts about one file: size in bytes, SHA-256, type sniffed from its first bytes, modification time (UTC)."""
    st = os.stat(path)
    if stat.S_ISDIR(st.st_mode):
        raise ToolFailure("invalid_input", f"{path} is a directory", "use list_directory for directories")
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        head = handle.read(64)
        digest.update(head)
        for chunk in iter(lambda: handle.read(_READ_CHUNK), b""):
            digest.update(chunk)
    return {
        "path": os.path.abspath(path),
        "size": st.st_size,
        "sha256": digest.hexdigest(),
        "type": _sniff(head),
        "modified": datetime.fromtimestamp(st.st_mtime, tz=timezone.utc).isoformat(),
    }


def read_text(
    path: FilePath,
    offset: Annotated[int, Field(ge=0, description="Character to start at (from a previous cut line).")] = 0,
    max_chars: Annotated[int | None, Field(ge=1, description="At most this many characters.")] = None,
    encoding: Literal["utf-8", "utf-16", "cp949", "latin-1"] = "utf-8",
) -> str:
    """The text of a plain-text file; long files come in pages that end with the exact next call."""
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise ToolFailure(
            "unsupported_format",
            f"{path} is not {encoding} text (byte {exc.start} does not decode)",
            "try another encoding (cp949 for older Korean files), or file_info to see what the file is",
        ) from None
    return page_text(
        text,
        offset,
        max_chars,
        next_call=lambda next_offset: format_call("read_text", path=path, offset=next_offset, encoding=encoding),
    )


def list_directory(
    path: FilePath,
    offset: Annotated[int, Field(ge=0)] = 0,
    limit: Annotated[int, Field(ge=1, le=500)] = 100,
) -> dict[str, object]:
    """The entries of a directory in name order, each with its kind and size: {entries, total, next_offset}."""
    if not os.path.isdir(path):
        raise ToolFailure("invalid_input", f"{path} is not a directory", "use file_info for a file")
    entries = []
    for entry in sorted(os.scandir(path), key=lambda e: e.name):
        kind = "directory" if entry.is_dir() else "file" if entry.is_file() else "other"
        size = entry.stat().st_size if kind == "file" else None
        entries.append({"name": entry.name, "kind": kind, "size": size})
    return page_list(entries, offset, limit, key="entries")


@hookimpl
def rhwp_mcp_register_tools(register: Register) -> None:
    register(file_info, title="File info")
    register(read_text, title="Read a text file")
    register(list_directory, title="List a directory")
