"""Many documents to rows of one Arrow schema, on a process pool or on Ray Data.

    from rhwp_core.batch import BatchOptions, chunk_rows, run_local

    table = chunk_rows(["a.hwp", "b.hwpx"], BatchOptions(mode="paragraph"))   # a pyarrow.Table
    summary = run_local(paths, "out/", BatchOptions(), workers=4)           # Parquet parts in out/

**Rows.** One row per chunk (the chunk :func:`rhwp_core.chunking.chunk_document` gives, the same
as the ``chunks`` tool's for the same arguments); a document that reads but has no text gives one
row with ``chunk_index`` null and empty ``page_content``; a file that cannot be read gives one row
with ``error_code`` (the stable code a tool would answer with) and ``error_message``.
:func:`chunk_rows` never raises for a document, so no file is ever lost: a bug shows as an
``internal_error`` row and the batch goes on.
Mode ``"text"`` (batch only) gives one row per document holding its whole text, unsplit.

**Workers** import ``rhwp_core`` and pyarrow, never the MCP host or FastMCP, and a ``Document``
never leaves the process that parsed it: only tables, or just counts, travel back.

**Inputs** to the runners are paths. Each is made absolute (``os.path.abspath``: the same name from
any working directory and on every machine of a cluster that mounts the storage at the same
place), and that absolute path is the ``source`` column and ``metadata.source``. A path listed twice
(after ``abspath``) is read once; two different paths to identical bytes are two inputs, two sets of
rows with the same ``sha256``. A name that is not UTF-8 is read all the same and spelled with
``\\xNN`` escapes in ``source`` (Arrow strings are UTF-8).

**Resume.** A runner pointed at an output folder that already holds Parquet reads its ``source``
and ``sha256`` columns first. An input whose source is there is hashed again (one read, in
parallel threads; only for those inputs): same sha256 → skipped as done; different (the file
changed) or no sha256 (it could not be read last time) → its old rows are removed from their part
files (each rewritten atomically) and it is processed again. So re-running the same command after
an interruption finishes the rest, and the folder always holds every input exactly once. Parts are
written to a hidden temporary name and renamed when complete; a part a crash left unreadable is
renamed ``*.incomplete`` (and its documents redone).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, ThreadPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Any, Literal, get_args

try:
    import pyarrow as pa  # type: ignore[import-untyped]
    import pyarrow.compute as pc  # type: ignore[import-untyped]
    import pyarrow.parquet as pq  # type: ignore[import-untyped]
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError('rhwp_core.batch needs pyarrow, which is not installed: pip install "rhwp-core[batch]"') from e

from . import chunking
from .document import parse
from .errors import InvalidRequestError

if TYPE_CHECKING:
    from .document import Document

__all__ = [
    "DOCUMENT_SUFFIXES",
    "MAX_FILE_BYTES",
    "SCHEMA",
    "BatchOptions",
    "Mode",
    "Progress",
    "RunSummary",
    "chunk_rows",
    "find_documents",
    "read_rows",
    "run_local",
    "run_ray",
]

Mode = Literal["text", "single", "paragraph", "ir-blocks"]

SCHEMA = pa.schema(
    [
        pa.field("source", pa.string(), nullable=False),
        pa.field("sha256", pa.string()),  # null only when the file could not be read at all
        pa.field("format", pa.string()),  # "hwp", "hwpx", ...; null on error rows
        pa.field("chunk_index", pa.int32()),  # null: no chunk (no text, or an error row)
        pa.field("page_content", pa.string(), nullable=False),  # "" when there is no chunk
        pa.field("metadata", pa.string()),  # the chunk's metadata as JSON text; null when no chunk
        pa.field("error_code", pa.string()),  # the failure's stable code; null when the document was read
        pa.field("error_message", pa.string()),
    ]
)
"""The fixed schema of :func:`chunk_rows` tables and of every Parquet part the runners write."""

DOCUMENT_SUFFIXES = (".hwp", ".hwpx", ".hml")
"""What :func:`find_documents` picks up in a folder (case-insensitive): HWP, HWPX and HWPML."""

MAX_FILE_BYTES = 1 << 30
"""Files larger than this are refused with ``too_large`` before being read (reading loads the
whole file; no real HWP document comes near 1 GiB)."""

_COMPRESSION = "zstd"  # chunk text compresses well; zstd reads and writes about as fast as snappy


@dataclasses.dataclass(frozen=True)
class BatchOptions:
    """How each document becomes rows; the same meaning as the ``chunks`` tool's parameters.

    ``mode="text"`` (batch only) gives one row per document with its whole text
    (``extract_text(include_furniture)``), unsplit; ``size`` and ``overlap`` are then unused.
    """

    mode: Mode = "paragraph"
    size: int = 500
    overlap: int = 50
    include_furniture: bool = False

    def check(self) -> None:
        """Raise ``InvalidRequestError`` (code ``invalid_input``) for an option set no document can honour."""
        if self.mode == "text":
            return
        if self.mode not in get_args(Mode):
            raise InvalidRequestError(f"unknown mode {self.mode!r}", f"use one of: {', '.join(get_args(Mode))}")
        chunking.check_options(self.mode, self.size, self.overlap, self.include_furniture)

    def require(self) -> None:
        """:meth:`check`, plus the chunking extra when the mode needs it (``ImportError`` naming the install)."""
        self.check()
        if self.mode != "text":
            chunking.require_splitter()


# ---------------------------------------------------------------------------------------------
# One document → rows


def _error_of(exc: BaseException) -> tuple[str, str]:
    """(code, message) for a failure while reading or chunking one document."""
    code = getattr(exc, "code", None)
    message = getattr(exc, "message", None)
    if not isinstance(message, str) or not message:
        message = str(exc)
    if isinstance(code, str) and code:
        return code, message
    if isinstance(exc, (FileNotFoundError, NotADirectoryError)):
        return "file_not_found", f"no such file: {exc.filename}" if exc.filename else message
    if isinstance(exc, PermissionError):
        return "permission_denied", f"permission denied reading {exc.filename}" if exc.filename else message
    if isinstance(exc, IsADirectoryError):
        return "invalid_input", f"{exc.filename} is a directory, not a document"
    if isinstance(exc, OSError):
        # EIO, a name too long, a stale network mount: the file cannot be read as it stands,
        # which is what file_not_found tells a caller; the OS's words say which case it is.
        return "file_not_found", f"cannot read {exc.filename or 'the file'}: {exc.strerror or exc}"
    # Anything else is a bug in the reader or here; the row says what failed, without a traceback.
    text = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    return "internal_error", text[:1000]


def _text_of(value: str) -> str:
    """``value`` as valid UTF-8 text for an Arrow string column. A file name that is not UTF-8
    (an EUC-KR name from an old archive) reaches Python as surrogate escapes, which Arrow refuses;
    its bytes are written as ``\\xNN`` escapes instead, the same way every time."""
    try:
        value.encode("utf-8")
        return value
    except UnicodeEncodeError:
        try:
            return value.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        except UnicodeEncodeError:
            return value.encode("utf-8", "backslashreplace").decode("utf-8")


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size > MAX_FILE_BYTES:
            from .errors import TooLargeError

            raise TooLargeError(
                f"{path} is {size} bytes, over the batch limit of {MAX_FILE_BYTES} bytes",
                "Split or shrink the document (its pictures, most likely).",
            )
        return f.read()


def _text_chunk(doc: Document, source: str, options: BatchOptions) -> list[chunking.Chunk]:
    text = doc.extract_text(include_furniture=options.include_furniture)
    if not text.strip():
        return []
    scope = "all" if options.include_furniture else "body"
    meta = {"source": source, "format": doc.format, "block_kind": "text", "scope": scope, "chunk_index": 0}
    return [{"page_content": text, "metadata": meta}]


class _Columns:
    """Column lists of a table being built (cheaper than a dict per row)."""

    def __init__(self) -> None:
        self.cols: dict[str, list[Any]] = {name: [] for name in SCHEMA.names}

    def add(
        self,
        source: str,
        sha: str | None,
        fmt: str | None,
        index: int | None,
        content: str,
        meta: str | None,
        code: str | None,
        message: str | None,
    ) -> None:
        c = self.cols
        c["source"].append(source)
        c["sha256"].append(sha)
        c["format"].append(fmt)
        c["chunk_index"].append(index)
        c["page_content"].append(content)
        c["metadata"].append(meta)
        c["error_code"].append(code)
        c["error_message"].append(message)

    def table(self) -> Any:
        return pa.Table.from_pydict(self.cols, schema=SCHEMA)


def _document_rows(
    item: str | bytes | os.PathLike[str] | os.PathLike[bytes], options: BatchOptions, out: _Columns
) -> int:
    """Append one document's rows to ``out``; returns how many. Never raises for the document."""
    sha: str | None = None
    given: bytes | None = None
    if isinstance(item, (bytes, bytearray, memoryview)):
        given = bytes(item)
        sha = hashlib.sha256(given).hexdigest()
        source = f"doc:{sha}"  # bytes have no name; the content address is stable and unique
        path = source
    else:
        path = os.fsdecode(os.fspath(item))
        source = _text_of(path)
    try:
        # One read per file: the same bytes are hashed and parsed.
        data = given if given is not None else _read(path)
        if sha is None:
            sha = hashlib.sha256(data).hexdigest()
        doc = parse(data)
        fmt = doc.format
        if options.mode == "text":
            chunks = _text_chunk(doc, source, options)
        else:
            chunks = chunking.chunk_document(
                doc,
                source=source,
                mode=options.mode,
                size=options.size,
                overlap=options.overlap,
                include_furniture=options.include_furniture,
            )
        del doc, data  # the document dies here, in the process that parsed it
    except Exception as exc:
        code, message = _error_of(exc)
        out.add(source, sha, None, None, "", None, code, _text_of(message))
        return 1
    if not chunks:
        out.add(source, sha, fmt, None, "", None, None, None)
        return 1
    for chunk in chunks:
        meta = chunk["metadata"]
        out.add(
            source,
            sha,
            fmt,
            meta["chunk_index"],
            chunk["page_content"],
            json.dumps(meta, ensure_ascii=False),
            None,
            None,
        )
    return len(chunks)


def chunk_rows(
    sources: Iterable[str | bytes | os.PathLike[str] | os.PathLike[bytes]], options: BatchOptions | None = None
) -> Any:
    """The rows (a ``pyarrow.Table`` of :data:`SCHEMA`) of each source in order: paths or bytes.

    A path's ``source`` is the path as given; bytes are named ``doc:<sha256>``. Each file is read
    once: its bytes are hashed and parsed. Never raises for a document (see the module doc); raises
    ``InvalidRequestError`` for inconsistent ``options`` and ``ImportError`` without the extra a
    mode needs, before reading anything.
    """
    options = options or BatchOptions()
    options.require()
    out = _Columns()
    for item in sources:
        _document_rows(item, options, out)
    return out.table()


# ---------------------------------------------------------------------------------------------
# Inputs


def find_documents(inputs: Iterable[str | os.PathLike[str]]) -> list[str]:
    """Expand ``inputs``: a file is kept as is (whatever its name); a folder gives every
    ``*.hwp``/``*.hwpx``/``*.hml`` below it (case-insensitive, sorted, symlinked folders not
    followed). Order is kept, duplicates are not removed (the runners do that)."""
    found: list[str] = []
    for item in inputs:
        path = os.fspath(item)
        if os.path.isdir(path):
            below: list[str] = []
            for root, dirs, files in os.walk(path):
                dirs.sort()
                below.extend(os.path.join(root, f) for f in files if f.lower().endswith(DOCUMENT_SUFFIXES))
            found.extend(sorted(below))
        else:
            found.append(path)
    return found


def _unique_abs(paths: Iterable[str | os.PathLike[str]]) -> list[str]:
    return list(dict.fromkeys(os.path.abspath(os.fspath(p)) for p in paths))


# ---------------------------------------------------------------------------------------------
# Output folder: what is done, resume


@dataclasses.dataclass
class _Plan:
    inputs: int  # distinct inputs
    todo: list[str]  # absolute paths still to process
    skipped: int  # already done in the output folder


def _parts(out_dir: str) -> list[str]:
    return sorted(
        os.path.join(out_dir, n) for n in os.listdir(out_dir) if n.endswith(".parquet") and not n.startswith((".", "_"))
    )


def _sha_of_file(path: str) -> str | None:
    try:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            while block := f.read(1 << 20):
                h.update(block)
        return h.hexdigest()
    except OSError:
        return None


def _plan(paths: Iterable[str | os.PathLike[str]], out_dir: str, threads: int) -> _Plan:
    """Distinct absolute inputs, minus those the output folder already holds with the same sha256
    (see Resume in the module doc); stale rows of inputs to redo are removed here."""
    inputs = _unique_abs(paths)
    os.makedirs(out_dir, exist_ok=True)
    for name in os.listdir(out_dir):
        if name.startswith(".") and name.endswith(".parquet.tmp"):
            os.remove(os.path.join(out_dir, name))  # a part a crash left half-written
    done: dict[str, set[str | None]] = {}
    where: dict[str, list[str]] = {}
    for part in _parts(out_dir):
        try:
            seen = pq.read_table(part, columns=["source", "sha256"])
        except Exception as exc:
            print(
                f"rhwp-batch: {part} is unreadable ({exc}); renamed *.incomplete, its documents are redone",
                file=sys.stderr,
            )
            os.replace(part, part + ".incomplete")
            continue
        for source, sha in zip(seen.column("source").to_pylist(), seen.column("sha256").to_pylist(), strict=True):
            done.setdefault(source, set()).add(sha)
            files = where.setdefault(source, [])
            if not files or files[-1] != part:
                files.append(part)
    spelled = {p: _text_of(p) for p in inputs}  # the source column's spelling of each input
    known = [p for p in inputs if spelled[p] in done]
    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        current = dict(zip(known, pool.map(_sha_of_file, known), strict=True))
    redo = {p for p in known if current[p] is None or done[spelled[p]] != {current[p]} or len(where[spelled[p]]) > 1}
    stale_parts: dict[str, set[str]] = {}
    for p in redo:
        for part in where[spelled[p]]:
            stale_parts.setdefault(part, set()).add(spelled[p])
    for part, sources in stale_parts.items():
        _drop_sources(part, sources)
    todo = [p for p in inputs if spelled[p] not in done or p in redo]
    return _Plan(inputs=len(inputs), todo=todo, skipped=len(inputs) - len(todo))


def _drop_sources(part: str, sources: set[str]) -> None:
    table = pq.read_table(part)
    kept = table.filter(pc.invert(pc.is_in(table.column("source"), value_set=pa.array(sorted(sources)))))
    if kept.num_rows == 0:
        os.remove(part)
    else:
        _write_part(kept, part)


def _write_part(table: Any, path: str) -> None:
    # Written under a hidden name and renamed when complete: a reader (or a resumed run) never
    # sees half a part.
    folder, name = os.path.split(path)
    tmp = os.path.join(folder, f".{name}.{uuid.uuid4().hex[:8]}.parquet.tmp")
    pq.write_table(table, tmp, compression=_COMPRESSION)
    os.replace(tmp, path)


# ---------------------------------------------------------------------------------------------
# Running


@dataclasses.dataclass
class Progress:
    """Where a run stands, for a progress display."""

    done: int  # files finished in this run
    total: int  # files this run processes (inputs minus those already done)
    errors: int  # error rows so far
    seconds: float


@dataclasses.dataclass
class RunSummary:
    """What a run did."""

    inputs: int  # distinct input files
    skipped: int  # already in the output folder, unchanged
    files: int  # processed by this run
    chunks: int  # rows with a chunk
    empty: int  # documents read without text
    errors: dict[str, int]  # error rows by code
    seconds: float
    out_dir: str

    def line(self) -> str:
        """The one-line summary ``rhwp-batch`` prints."""
        n_err = sum(self.errors.values())
        by_code = ", ".join(f"{code} {n}" for code, n in sorted(self.errors.items()))
        skipped = f" ({self.skipped} already done)" if self.skipped else ""
        errors = f"{n_err} errors" + (f" ({by_code})" if by_code else "")
        return (
            f"{self.files} files{skipped}, {self.chunks} chunks, {self.empty} without text, {errors}, "
            f"{self.seconds:.1f} s -> {self.out_dir}"
        )


def _tally(table: Any) -> dict[str, Any]:
    index = table.column("chunk_index")
    codes = table.column("error_code")
    errors = Counter(c for c in codes.to_pylist() if c is not None)
    chunks = index.length() - index.null_count
    return {
        "files": len(set(table.column("source").to_pylist())),
        "chunks": chunks,
        "empty": table.num_rows - chunks - sum(errors.values()),
        "errors": dict(errors),
    }


def _worker_init() -> None:
    # Ctrl-C on a terminal reaches the whole process group. The parent alone decides what it
    # means (stop handing out tasks); a worker finishes the task it has, so no part is half done.
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _task(paths: list[str], options: BatchOptions, part: str) -> dict[str, Any]:
    """One pool task: rows of ``paths`` written to the Parquet part ``part``; returns the counts."""
    table = chunk_rows(paths, options)
    _write_part(table, part)
    return _tally(table)


def _crash_row(path: str, why: str) -> Any:
    out = _Columns()
    sha = _sha_of_file(path)
    out.add(_text_of(path), sha, None, None, "", None, "internal_error", why)
    return out.table()


def _task_size(n: int, workers: int, task_size: int | None) -> int:
    if task_size:
        return task_size
    # Several tasks per worker (balance: documents differ a lot in cost), a few hundred files at
    # most per task (a part per task; progress moves), at least one.
    return max(1, min(256, math.ceil(n / (max(1, workers) * 8))))


def _mp_context() -> Any:
    import multiprocessing

    # Not fork: the parent may hold threads (the hashing pool, a host's event loop) and a forked
    # child would inherit their locks. forkserver starts workers from a clean, small process.
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    ctx = multiprocessing.get_context(method)
    if method == "forkserver":
        # Imported once in the server, so each worker starts with them (pandas: pyarrow pulls it
        # in when it first builds a table). A module that is not installed is skipped.
        ctx.set_forkserver_preload(["rhwp_core.batch", "langchain_text_splitters", "pandas"])
    return ctx


def run_local(
    paths: Sequence[str | os.PathLike[str]],
    out_dir: str | os.PathLike[str],
    options: BatchOptions | None = None,
    workers: int | None = None,
    *,
    task_size: int | None = None,
    progress: Callable[[Progress], None] | None = None,
) -> RunSummary:
    """Process ``paths`` on a pool of ``workers`` processes (default: one per CPU; ``0``: in this
    process) and write Parquet parts (``part-<run>-<n>.parquet``, :data:`SCHEMA`) into ``out_dir``.

    Files go out in tasks of ``task_size`` (default: several tasks per worker, at most 256 files);
    each worker writes its own part. Resumes (module doc). A worker that dies (killed, out of
    memory) loses nothing: its tasks are retried in halves until the one file that kills a worker
    is found, and that file gets an ``internal_error`` row.
    """
    options = options or BatchOptions()
    options.require()
    start = time.perf_counter()
    out = os.fspath(out_dir)
    workers = (os.cpu_count() or 1) if workers is None else workers
    plan = _plan(paths, out, workers or 1)
    run_id = time.strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:6]
    size = _task_size(len(plan.todo), workers, task_size)
    tasks = [plan.todo[i : i + size] for i in range(0, len(plan.todo), size)]
    totals: dict[str, Any] = {"files": 0, "chunks": 0, "empty": 0, "errors": Counter()}
    counter = iter(range(1 << 62))

    def part_name() -> str:
        return os.path.join(out, f"part-{run_id}-{next(counter):06d}.parquet")

    def record(result: dict[str, Any]) -> None:
        totals["files"] += result["files"]
        totals["chunks"] += result["chunks"]
        totals["empty"] += result["empty"]
        totals["errors"].update(result["errors"])
        if progress is not None:
            errs = sum(totals["errors"].values())
            progress(Progress(totals["files"], len(plan.todo), errs, time.perf_counter() - start))

    if workers <= 0:
        for batch in tasks:
            record(_task(batch, options, part_name()))
    else:
        _run_pool(tasks, options, workers, part_name, record)
    return RunSummary(
        inputs=plan.inputs,
        skipped=plan.skipped,
        files=totals["files"],
        chunks=totals["chunks"],
        empty=totals["empty"],
        errors=dict(totals["errors"]),
        seconds=time.perf_counter() - start,
        out_dir=out,
    )


def _run_pool(
    tasks: list[list[str]],
    options: BatchOptions,
    workers: int,
    part_name: Callable[[], str],
    record: Callable[[dict[str, Any]], None],
) -> None:
    """Run ``tasks`` on process pools until every file has rows.

    When a worker dies the pool breaks and every unfinished task fails with it, guilty or not.
    The failed tasks are split in halves and run again on a new pool (bigger ones first, so the
    innocent finish before a suspect can break the pool again); once only single files are left,
    they run one at a time, so the file that kills its worker is known and gets an error row.
    """
    ctx = _mp_context()
    pending = tasks
    first_round = True
    while pending:
        one_at_a_time = not first_round and all(len(t) == 1 for t in pending)
        first_round = False
        failed: list[int] = []  # indexes into pending, in submission order once sorted
        pool = ProcessPoolExecutor(
            max_workers=1 if one_at_a_time else min(workers, len(pending)),
            mp_context=ctx,
            initializer=_worker_init,
        )
        futures: dict[Future[dict[str, Any]], int] = {}
        try:
            for i, batch in enumerate(pending):
                futures[pool.submit(_task, batch, options, part_name())] = i
            remaining: set[Future[dict[str, Any]]] = set(futures)
            while remaining:
                finished, remaining = wait(remaining, return_when=FIRST_COMPLETED)
                for future in finished:
                    try:
                        record(future.result())
                    except BrokenProcessPool:
                        failed.append(futures[future])
        except BaseException:
            # Ctrl-C or a failing run: drop the queued tasks instead of waiting for all of them
            # (a ``with`` block would); the running ones finish their part, which a re-run keeps.
            # Cancelled here, not only by shutdown(cancel_futures=True): that flag lives on the
            # executor, and the pool's thread may look for it after the executor is gone.
            for future in futures:
                future.cancel()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
        if not failed:
            return
        failed.sort()
        if one_at_a_time:
            # One worker, tasks in order: the first one that did not finish is the one that killed it.
            culprit = pending[failed[0]][0]
            table = _crash_row(culprit, "the worker process died while reading this file (killed, or out of memory)")
            _write_part(table, part_name())
            record(_tally(table))
            pending = [pending[i] for i in failed[1:]]
            continue
        halves = [half for i in failed for half in _halves(pending[i])]
        pending = sorted(halves, key=len, reverse=True)


def _halves(batch: list[str]) -> list[list[str]]:
    if len(batch) == 1:
        return [batch]
    mid = len(batch) // 2
    return [batch[:mid], batch[mid:]]


def _ray_batch(batch: Any, options: dict[str, Any]) -> Any:
    """Ray Data ``map_batches`` function: a table of paths → the rows of those documents."""
    # Paths travel as bytes: a file name that is not UTF-8 is no Arrow string.
    return chunk_rows([os.fsdecode(p) for p in batch.column("path").to_pylist()], BatchOptions(**options))


def run_ray(
    paths: Sequence[str | os.PathLike[str]],
    out_dir: str | os.PathLike[str],
    options: BatchOptions | None = None,
    workers: int | None = None,
    *,
    task_size: int | None = None,
    progress_bars: bool = True,
) -> RunSummary:
    """The same run on Ray Data: paths listed up front, ``map_batches`` over Arrow in tasks of many
    files, ``write_parquet`` into ``out_dir``. Connects with ``ray.init()`` unless Ray is already
    initialised, so ``RAY_ADDRESS`` selects a cluster; without it Ray starts locally with
    ``workers`` CPUs (default: all). Ray runs one task per CPU it has (``workers`` does not apply
    to a cluster); tasks are sized so each CPU gets several. Every node must see the input paths
    (shared storage mounted at the same place) and ``out_dir``; rhwp-core must be installed there.

    Resume works as with :func:`run_local` for a local ``out_dir``. Ray retries a task whose
    worker died; a file that kills workers every time fails the run (re-run with
    ``--engine local`` to isolate it).
    """
    try:
        import importlib

        # Ray's annotations do not fit a plain function with keyword arguments; Any at the boundary.
        ray: Any = importlib.import_module("ray")
        importlib.import_module("ray.data")
    except ImportError as e:
        raise ImportError(
            f'--engine ray needs Ray Data, which is not installed: pip install "rhwp-core[ray]" ({e})'
        ) from e
    options = options or BatchOptions()
    options.require()
    start = time.perf_counter()
    out = os.path.abspath(os.fspath(out_dir))
    plan = _plan(paths, out, workers or os.cpu_count() or 1)
    before = set(_parts(out))
    if plan.todo:  # nothing left (a finished run, resumed): no need to start or reach Ray
        if not ray.is_initialized():
            if os.environ.get("RAY_ADDRESS"):
                ray.init()
            else:
                ray.init(num_cpus=workers or None, include_dashboard=False)
        ray.data.DataContext.get_current().enable_progress_bars = progress_bars
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        size = _task_size(len(plan.todo), cpus, task_size)
        blocks = math.ceil(len(plan.todo) / size)
        ds = ray.data.from_items([{"path": os.fsencode(p)} for p in plan.todo], override_num_blocks=blocks)
        # No concurrency cap here: a capped map is not fused with the write, and the fused
        # map+write task (rows written where they are made) is what keeps Ray near the pool.
        # Ray runs as many tasks at once as there are CPUs (``workers`` when it starts Ray itself).
        ds = ds.map_batches(
            _ray_batch,
            fn_kwargs={"options": dataclasses.asdict(options)},
            batch_format="pyarrow",
            batch_size=size,
            num_cpus=1,
        )
        ds.write_parquet(out, compression=_COMPRESSION)
    totals = {"files": 0, "chunks": 0, "empty": 0}
    errors: Counter[str] = Counter()
    for part in sorted(set(_parts(out)) - before):
        result = _tally(pq.read_table(part, columns=["source", "chunk_index", "error_code"]))
        for key in totals:
            totals[key] += result[key]
        errors.update(result["errors"])
    return RunSummary(
        inputs=plan.inputs,
        skipped=plan.skipped,
        files=totals["files"],
        chunks=totals["chunks"],
        empty=totals["empty"],
        errors=dict(errors),
        seconds=time.perf_counter() - start,
        out_dir=out,
    )


def read_rows(out_dir: str | os.PathLike[str]) -> Any:
    """Every row in an output folder as one ``pyarrow.Table`` (of :data:`SCHEMA`)."""
    parts = _parts(os.fspath(out_dir))
    if not parts:
        return SCHEMA.empty_table()
    # Ray writes its own field nullability; the cast gives every part the one schema.
    return pa.concat_tables([pq.read_table(p).select(SCHEMA.names).cast(SCHEMA) for p in parts])
