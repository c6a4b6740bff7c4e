"""The document store: uploads, decoded data: URIs and downloads, kept as read-only files named
by their SHA-256, bounded in bytes and in time.

The directory itself is the index (no database, no in-memory table), so every process that
points at the same directory shares one store: ``uvicorn --workers N`` on one machine, or
replicas that mount one volume, answer a ``doc:`` handle whichever of them took the upload.

- A stored file's mtime is when it was stored (stable, so ``rhwp_core.load``'s cache, keyed
  on path, size, mtime and inode, keeps hitting); its atime, set explicitly, is when it was
  last stored again or used. Least recently used is evicted first, and a document unused for
  ``ttl`` seconds is expired.
- Writes go to a temporary file that is renamed into place once complete and hashed, so a
  reader never sees half a document; the store's byte total never exceeds its cap, because
  room is made (under a lock that other processes honour too) before the rename.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ..plugin.errors import FILE_NOT_FOUND, INVALID_INPUT, TOO_LARGE, ToolFailure

HANDLE_PREFIX = "doc:"
_DIGEST = re.compile(r"^[0-9a-f]{64}$")
_TMP_PREFIX = ".part-"


if sys.platform == "win32":
    import msvcrt

    def _lock_file(fd: int) -> None:
        # Windows has no flock: lock the lock file's first byte (a region may lie past the end of the
        # file). LK_LOCK gives up with OSError after ten one-second tries; a writer may hold the store
        # for longer (evicting many documents), so keep waiting, as flock does.
        while True:
            os.lseek(fd, 0, os.SEEK_SET)
            try:
                msvcrt.locking(fd, msvcrt.LK_LOCK, 1)
                return
            except OSError:
                continue

    def _unlock_file(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _lock_file(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX)

    def _unlock_file(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


def _remove(path: str | os.PathLike[str]) -> None:
    """Delete a stored document, which is read-only: POSIX needs only the directory's permission,
    Windows refuses to delete a read-only file until its read-only attribute is cleared."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    except PermissionError:
        if sys.platform != "win32":
            raise
        with contextlib.suppress(FileNotFoundError):
            os.chmod(path, stat.S_IWRITE)
            os.unlink(path)


def default_store_dir() -> Path:
    """A per-user directory under the system's temp dir (shared by the user's servers)."""
    uid = os.getuid() if hasattr(os, "getuid") else os.getpid()
    return Path(tempfile.gettempdir()) / f"rhwp-mcp-{uid}" / "store"


@dataclass(frozen=True)
class StoredDocument:
    sha256: str
    path: str
    size: int
    created: bool
    """False when the same bytes were already stored (nothing was written)."""

    @property
    def handle(self) -> str:
        return HANDLE_PREFIX + self.sha256


def _mib(n: int) -> str:
    return f"{n / (1024 * 1024):.3g} MB"


class DocumentStore:
    def __init__(self, directory: Path, *, max_bytes: int, ttl: float) -> None:
        self.dir = Path(directory)
        self.max_bytes = max_bytes
        self.ttl = ttl
        self._lock = threading.Lock()
        self._ready = False

    # -- set-up -------------------------------------------------------------------------------

    def _prepare(self) -> None:
        if self._ready:
            return
        self.dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(self.dir)
        # Another user's directory, or a symlink planted in a shared temp dir, must not become
        # the place our documents are read from.
        if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
            raise RuntimeError(f"the document store {self.dir} is not a directory")
        if hasattr(os, "getuid") and info.st_uid != os.getuid():
            raise RuntimeError(f"the document store {self.dir} belongs to another user; choose --store-dir")
        if info.st_mode & 0o022:
            os.chmod(self.dir, 0o700)
        self._ready = True

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """This process's threads, then every process sharing the directory (the lock file's lock)."""
        with self._lock:
            self._prepare()
            fd = os.open(self.dir / ".lock", os.O_RDWR | os.O_CREAT, 0o600)
            try:
                _lock_file(fd)
                try:
                    yield
                finally:
                    _unlock_file(fd)
            finally:
                os.close(fd)

    # -- reading ------------------------------------------------------------------------------

    @staticmethod
    def parse_handle(handle: str) -> str:
        """The digest a ``doc:<sha256>`` handle names; invalid_input for anything else."""
        digest = handle.strip()[len(HANDLE_PREFIX) :].lower()
        if not _DIGEST.match(digest):
            raise ToolFailure(
                INVALID_INPUT,
                f"{handle[:80]!r} is not a document handle",
                "a handle is 'doc:' followed by the 64 hex digits of a SHA-256, as POST /documents returns it",
            )
        return digest

    def open(self, handle: str) -> str:
        """The local path of a stored document, marking it used; file_not_found if unknown or expired."""
        digest = self.parse_handle(handle)
        path = self.dir / digest
        now = time.time()
        try:
            info = os.stat(path)
        except FileNotFoundError:
            raise ToolFailure(
                FILE_NOT_FOUND,
                f"no document {HANDLE_PREFIX}{digest} on this server (it expired, was evicted to make room, "
                "or was uploaded to another server)",
                "upload it again (POST /documents) and use the handle it returns, or pass it as a data: URI",
            ) from None
        if now - info.st_atime > self.ttl:
            _remove(path)
            raise ToolFailure(
                FILE_NOT_FOUND,
                f"the document {HANDLE_PREFIX}{digest} expired ({int(self.ttl)} s after its last use)",
                "upload it again (POST /documents) and use the handle it returns",
            )
        self._touch(path, info.st_mtime, now)
        return str(path)

    @staticmethod
    def _touch(path: Path, mtime: float, now: float) -> None:
        # atime carries "last used"; mtime stays the time of storing (the parse cache's key).
        with contextlib.suppress(OSError):
            os.utime(path, (now, mtime))

    # -- writing ------------------------------------------------------------------------------

    def put(self, data: bytes) -> StoredDocument:
        return self.put_chunks([data], max_bytes=len(data))

    def put_chunks(self, chunks: Iterable[bytes], *, max_bytes: int, what: str = "the document") -> StoredDocument:
        """Store what ``chunks`` yield (too_large past ``max_bytes`` or the store's own cap)."""
        cap = min(max_bytes, self.max_bytes)
        with self._lock:
            self._prepare()
        fd, tmp = tempfile.mkstemp(prefix=_TMP_PREFIX, dir=self.dir)
        digest = hashlib.sha256()
        size = 0
        try:
            with os.fdopen(fd, "wb") as out:
                for chunk in chunks:
                    size += len(chunk)
                    if size > cap:
                        raise self._over_cap(what, size, max_bytes)
                    digest.update(chunk)
                    out.write(chunk)
            return self._commit(tmp, digest.hexdigest(), size)
        finally:
            _remove(tmp)  # gone already once renamed into place

    def _over_cap(self, what: str, size: int, max_bytes: int) -> ToolFailure:
        if max_bytes <= self.max_bytes:
            return ToolFailure(
                TOO_LARGE,
                f"{what} is larger than the server's cap of {_mib(max_bytes)} (more than {size} bytes)",
                "send a smaller document, or ask the operator to raise the cap (--upload-max-mb / --fetch-max-mb)",
            )
        return ToolFailure(
            TOO_LARGE,
            f"{what} is larger than the whole document store ({_mib(self.max_bytes)})",
            "ask the operator to raise --store-max-mb",
        )

    def _commit(self, tmp: str, digest: str, size: int) -> StoredDocument:
        final = self.dir / digest
        now = time.time()
        with self._locked():
            try:
                info = os.stat(final)
            except FileNotFoundError:
                pass
            else:
                self._touch(final, info.st_mtime, now)
                return StoredDocument(digest, str(final), size, created=False)
            self._make_room(size, now)
            os.chmod(tmp, 0o444)
            os.replace(tmp, final)
            self._touch(final, now, now)
        return StoredDocument(digest, str(final), size, created=True)

    def _entries(self) -> list[tuple[float, int, Path]]:
        entries: list[tuple[float, int, Path]] = []
        for entry in os.scandir(self.dir):
            if not _DIGEST.match(entry.name):
                continue
            with contextlib.suppress(FileNotFoundError):
                info = entry.stat(follow_symlinks=False)
                entries.append((info.st_atime, info.st_size, Path(entry.path)))
        return entries

    def _make_room(self, incoming: int, now: float) -> None:
        """Drop expired documents, then the least recently used, until ``incoming`` fits."""
        entries = sorted(self._entries())
        used = sum(size for _, size, _ in entries)
        for used_at, size, path in entries:
            if now - used_at <= self.ttl and used + incoming <= self.max_bytes:
                break
            _remove(path)
            used -= size
        self._sweep_partials(now)

    def _sweep_partials(self, now: float) -> None:
        # Parts left by a process that died mid-write; a live write refreshes its mtime often.
        for entry in os.scandir(self.dir):
            if entry.name.startswith(_TMP_PREFIX):
                with contextlib.suppress(OSError):
                    if now - entry.stat(follow_symlinks=False).st_mtime > 3600:
                        os.unlink(entry.path)

    def usage(self) -> tuple[int, int]:
        """(documents, bytes) stored now."""
        with self._lock:
            self._prepare()
        entries = self._entries()
        return len(entries), sum(size for _, size, _ in entries)


__all__ = ["HANDLE_PREFIX", "DocumentStore", "StoredDocument", "default_store_dir"]
