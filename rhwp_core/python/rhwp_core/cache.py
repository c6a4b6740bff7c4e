"""A bounded cache of parsed documents, shared by the tool packs.

``parse()`` always reads; ``load()`` is the entry point for repeated calls: it returns
the same ``Document`` while the file's identity (resolved path, size, modification time
in nanoseconds, inode) is unchanged, and parses again as soon as any of them changes.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict

from .document import Document, parse
from .errors import DocumentNotFoundError, DocumentPermissionError

_MAX_ENTRIES = int(os.environ.get("RHWP_CACHE_ENTRIES", "16"))
_lock = threading.Lock()
_entries: OrderedDict[tuple[str, int, int, int], Document] = OrderedDict()


def _identity(path: str) -> tuple[str, int, int, int]:
    try:
        real = os.path.realpath(path)
        st = os.stat(real)
    except FileNotFoundError:
        raise DocumentNotFoundError(path) from None
    except PermissionError:
        raise DocumentPermissionError(path) from None
    return real, st.st_size, st.st_mtime_ns, st.st_ino


def load(path: str | os.PathLike[str]) -> Document:
    """Parse ``path``, or return the cached ``Document`` if the file has not changed."""
    path = os.fspath(path)
    if path.startswith("file://"):
        from urllib.parse import unquote, urlparse

        path = unquote(urlparse(path).path)
    key = _identity(path)
    with _lock:
        doc = _entries.get(key)
        if doc is not None:
            _entries.move_to_end(key)
            return doc
    doc = parse(key[0])
    with _lock:
        _entries[key] = doc
        _entries.move_to_end(key)
        while len(_entries) > _MAX_ENTRIES:
            _entries.popitem(last=False)
    return doc


def clear_cache() -> None:
    with _lock:
        _entries.clear()
