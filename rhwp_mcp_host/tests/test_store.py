"""The document store: content-addressed, read-only, bounded in bytes and time, shared by processes."""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
import sys
import time

import pytest
from rhwp_mcp_host.documents.store import DocumentStore

from rhwp_mcp_host import ToolFailure


def _store(tmp_path, max_bytes=10_000, ttl=3600.0):
    return DocumentStore(tmp_path / "store", max_bytes=max_bytes, ttl=ttl)


def _total(store: DocumentStore) -> int:
    return store.usage()[1]


def test_put_names_the_bytes_by_their_sha256_and_keeps_them_read_only(tmp_path):
    store = _store(tmp_path)
    data = b"HWP Document File" + bytes(range(256))
    stored = store.put(data)
    assert stored.sha256 == hashlib.sha256(data).hexdigest()
    assert stored.handle == "doc:" + stored.sha256 and stored.size == len(data) and stored.created
    with open(stored.path, "rb") as f:
        assert f.read() == data
    assert not os.stat(stored.path).st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
    assert store.open(stored.handle) == stored.path
    assert store.open(stored.handle.upper().replace("DOC:", "doc:")) == stored.path  # hex case does not matter
    # The same bytes again: nothing written, the same file (its mtime, the parse cache's key, unchanged).
    mtime = os.stat(stored.path).st_mtime_ns
    again = store.put(data)
    assert again.path == stored.path and not again.created
    assert os.stat(stored.path).st_mtime_ns == mtime
    assert not [p for p in os.listdir(store.dir) if p.startswith(".part-")]


def test_unknown_and_malformed_handles(tmp_path):
    store = _store(tmp_path)
    with pytest.raises(ToolFailure) as missing:
        store.open("doc:" + "0" * 64)
    assert missing.value.code == "file_not_found" and "upload it again" in missing.value.suggestion
    for bad in ("doc:", "doc:1234", "doc:" + "g" * 64, "doc:../../etc/passwd", "doc:" + "0" * 65):
        with pytest.raises(ToolFailure) as err:
            store.open(bad)
        assert err.value.code == "invalid_input" and "64 hex digits" in err.value.suggestion


def test_least_recently_used_goes_first_and_the_cap_always_holds(tmp_path):
    store = _store(tmp_path, max_bytes=3000)
    docs = [store.put(bytes([i]) * 1000) for i in range(3)]
    assert _total(store) == 3000
    # Use the oldest: the second becomes the least recently used.
    past = time.time() - 100
    for age, doc in enumerate(docs):
        os.utime(doc.path, (past + age, os.stat(doc.path).st_mtime))
    store.open(docs[0].handle)
    fourth = store.put(b"\x09" * 1000)
    assert _total(store) <= 3000
    assert os.path.exists(docs[0].path) and os.path.exists(fourth.path)
    assert not os.path.exists(docs[1].path)
    with pytest.raises(ToolFailure) as gone:
        store.open(docs[1].handle)
    assert gone.value.code == "file_not_found"
    # Many more documents of mixed sizes: never over the cap.
    for i in range(40):
        store.put(os.urandom(100 + 97 * i % 1400))
        assert _total(store) <= 3000


def test_a_document_larger_than_its_cap_or_the_store_is_too_large(tmp_path):
    store = _store(tmp_path, max_bytes=2000)
    with pytest.raises(ToolFailure) as over_cap:
        store.put_chunks([b"x" * 600, b"x" * 600], max_bytes=1000, what="the upload")
    assert over_cap.value.code == "too_large" and "--upload-max-mb" in over_cap.value.suggestion
    with pytest.raises(ToolFailure) as over_store:
        store.put_chunks([b"x" * 3000], max_bytes=10_000)
    assert over_store.value.code == "too_large" and "--store-max-mb" in over_store.value.suggestion
    assert store.usage() == (0, 0)
    assert not [p for p in os.listdir(store.dir) if p.startswith(".part-")]


def test_an_unused_document_expires(tmp_path):
    store = _store(tmp_path, ttl=60)
    doc = store.put(b"old news")
    os.utime(doc.path, (time.time() - 61, os.stat(doc.path).st_mtime))
    with pytest.raises(ToolFailure) as expired:
        store.open(doc.handle)
    assert expired.value.code == "file_not_found" and "expired" in expired.value.message
    assert not os.path.exists(doc.path)
    # Expired documents are swept when something new arrives.
    other = store.put(b"kept")
    stale = store.put(b"stale")
    os.utime(stale.path, (time.time() - 120, os.stat(stale.path).st_mtime))
    store.put(b"newer")
    assert not os.path.exists(stale.path) and os.path.exists(other.path)


def test_a_store_directory_of_another_kind_is_refused(tmp_path):
    target = tmp_path / "elsewhere"
    target.mkdir()
    link = tmp_path / "link"
    try:
        link.symlink_to(target, target_is_directory=True)
    except OSError:  # Windows without the symlink privilege (developer mode)
        pytest.skip("this account cannot create symbolic links")
    with pytest.raises(RuntimeError, match="not a directory"):
        DocumentStore(link, max_bytes=1000, ttl=60).put(b"x")


def test_two_processes_share_one_store(tmp_path):
    """What replicas on one volume rely on: a handle stored by one process opens in another."""
    store = _store(tmp_path)
    code = (
        "import sys; from pathlib import Path; from rhwp_mcp_host.documents.store import DocumentStore;"
        "s = DocumentStore(Path(sys.argv[1]), max_bytes=10000, ttl=3600);"
        "print(s.put(b'from the other process').handle)"
    )
    handle = subprocess.run(
        [sys.executable, "-c", code, str(store.dir)], capture_output=True, text=True, check=True
    ).stdout.strip()
    with open(store.open(handle), "rb") as f:
        assert f.read() == b"from the other process"


def test_the_store_lock_excludes_other_processes(tmp_path):
    """The lock that keeps the byte cap across replicas (flock on POSIX, msvcrt.locking on Windows):
    while another process holds it, taking it waits until that process lets go."""
    store = _store(tmp_path)
    store.put(b"prepare the directory")
    released = tmp_path / "released"
    code = (
        "import sys, time; from pathlib import Path; from rhwp_mcp_host.documents.store import DocumentStore;"
        "s = DocumentStore(Path(sys.argv[1]), max_bytes=10000, ttl=3600);"
        "cm = s._locked(); cm.__enter__(); print('locked', flush=True); time.sleep(1.5);"
        "Path(sys.argv[2]).write_text('x'); cm.__exit__(None, None, None); time.sleep(5)"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", code, str(store.dir), str(released)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        started = time.monotonic()
        with store._locked():
            waited = time.monotonic() - started
            assert released.exists(), "the lock was taken while another process held it"
        assert waited > 0.5
        # Released by this process too: the other side of the same lock can be taken again at once.
        again = time.monotonic()
        with store._locked():
            pass
        assert time.monotonic() - again < 1.0
    finally:
        holder.kill()
        holder.communicate()  # reaps it and closes its pipe
