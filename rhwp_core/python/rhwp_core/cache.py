"""A bounded cache of parsed documents, shared by the tool packs.

``parse()`` always reads; ``load()`` is the entry point for repeated calls: it returns
the same ``Document`` while the file's identity (resolved path, size, modification time
in nanoseconds, inode) is unchanged, and parses again as soon as any of them changes.
A document opened with a password is cached under a salted hash of it (never the password
itself), so a later call must give the same password to get it back.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import threading
from collections import OrderedDict

from .document import Document, parse
from .errors import DocumentNotFoundError, DocumentPermissionError

_MAX_ENTRIES = int(os.environ.get("RHWP_CACHE_ENTRIES", "16"))
_lock = threading.Lock()
_entries: OrderedDict[tuple[str, int, int, int, bytes], Document] = OrderedDict()
# A per-process salt: the cache key of a password cannot be looked up in a table of hashes.
_SALT = secrets.token_bytes(16)


def _password_key(password: str | None) -> bytes:
    """What the cache keys on for a password: nothing for none, else a salted digest."""
    if password is None:
        return b""
    return hashlib.blake2b(password.encode("utf-8"), key=_SALT, digest_size=16).digest()


def _identity(path: str) -> tuple[str, int, int, int]:
    try:
        real = os.path.realpath(path)
        st = os.stat(real)
    except FileNotFoundError:
        raise DocumentNotFoundError(path) from None
    except PermissionError:
        raise DocumentPermissionError(path) from None
    return real, st.st_size, st.st_mtime_ns, st.st_ino


def load(path: str | os.PathLike[str], password: str | None = None) -> Document:
    """Parse ``path``, or return the cached ``Document`` if the file has not changed.

    ``password`` as for :func:`parse`: a protected document is cached for the same password
    only (keyed on a salted hash of it), so a call without it, or with another, reads again
    and is refused as ``parse`` refuses it.
    """
    path = os.fspath(path)
    if path.startswith("file://"):
        from urllib.parse import unquote, urlparse

        path = unquote(urlparse(path).path)
    key = (*_identity(path), _password_key(password))
    with _lock:
        doc = _entries.get(key)
        if doc is not None:
            _entries.move_to_end(key)
            return doc
    doc = parse(key[0], password)
    with _lock:
        _entries[key] = doc
        _entries.move_to_end(key)
        while len(_entries) > _MAX_ENTRIES:
            _entries.popitem(last=False)
    return doc


def clear_cache() -> None:
    with _lock:
        _entries.clear()
