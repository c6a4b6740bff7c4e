"""rhwp_core.batch and rhwp-batch: the schema, chunk_rows, the pool runner, resume, the command."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from corpus_support import BAD_CODES

pa = pytest.importorskip("pyarrow", reason='rhwp_core.batch needs the extra: pip install "rhwp-core[batch]"')
pytest.importorskip("langchain_text_splitters", reason='chunking needs the extra: pip install "rhwp-core[chunks]"')

import pyarrow.parquet as pq  # noqa: E402
from rhwp_core.batch import SCHEMA, BatchOptions, chunk_rows, find_documents, read_rows, run_local  # noqa: E402
from rhwp_core.chunking import chunk_document  # noqa: E402
from rhwp_core.errors import InvalidRequestError  # noqa: E402

import rhwp_core  # noqa: E402
from rhwp_core import batch  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures"
GOOD = sorted((FIXTURES / "hwp").glob("*.hwp")) + sorted((FIXTURES / "hwpx").glob("*.hwpx"))
BAD = sorted((FIXTURES / "bad").iterdir())
EMPTY_DOC = FIXTURES / "hwp" / "hwplib-making_caption.hwp"  # reads, shows no text
SAMPLE = FIXTURES / "hwp" / "rhwp-nested-cell-pagination.hwp"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _by_source(table: Any) -> dict[str, list[dict[str, Any]]]:
    rows: dict[str, list[dict[str, Any]]] = {}
    for row in table.to_pylist():
        rows.setdefault(row["source"], []).append(row)
    return rows


def _sorted_rows(table: Any) -> list[tuple[Any, ...]]:
    return sorted(tuple(r.values()) for r in table.to_pylist())


def _check_accounting(table: Any) -> None:
    """Each source: one error row, or one row without a chunk, or chunk_index 0..n-1 in order."""
    for source, rows in _by_source(table).items():
        if rows[0]["error_code"] is not None or rows[0]["chunk_index"] is None:
            assert len(rows) == 1, source
        else:
            assert [r["chunk_index"] for r in rows] == list(range(len(rows))), source


def test_the_schema_is_fixed() -> None:
    assert SCHEMA.names == [
        "source",
        "sha256",
        "format",
        "chunk_index",
        "page_content",
        "metadata",
        "error_code",
        "error_message",
    ]
    assert SCHEMA.field("chunk_index").type == pa.int32() and SCHEMA.field("chunk_index").nullable
    for name in ("source", "sha256", "format", "page_content", "metadata", "error_code", "error_message"):
        assert SCHEMA.field(name).type == pa.string()
    assert not SCHEMA.field("source").nullable and not SCHEMA.field("page_content").nullable
    assert chunk_rows([]).schema == SCHEMA


def test_rows_are_the_chunks_of_chunk_document() -> None:
    paths = [str(p) for p in GOOD]
    table = chunk_rows(paths, BatchOptions(mode="paragraph", size=300, overlap=30))
    assert table.schema == SCHEMA
    rows = _by_source(table)
    assert list(rows) == paths  # every input once, in order
    _check_accounting(table)
    for path in GOOD:
        doc = rhwp_core.parse(path)
        expected = chunk_document(doc, source=str(path), size=300, overlap=30)
        got = rows[str(path)]
        assert all(r["sha256"] == _sha(path) and r["format"] == doc.format for r in got)
        assert all(r["error_code"] is None and r["error_message"] is None for r in got)
        if not expected:
            assert [(r["chunk_index"], r["page_content"], r["metadata"]) for r in got] == [(None, "", None)]
            continue
        assert [r["page_content"] for r in got] == [c["page_content"] for c in expected]
        # metadata is the chunk's metadata as JSON text, keys in the tool's order
        assert [json.loads(r["metadata"]) for r in got] == [c["metadata"] for c in expected]
        assert all(list(json.loads(r["metadata"])) == list(c["metadata"]) for r, c in zip(got, expected, strict=True))


def test_bad_files_are_error_rows_with_their_codes() -> None:
    table = chunk_rows(BAD)
    rows = _by_source(table)
    assert len(rows) == len(BAD) == table.num_rows
    for path in BAD:
        (row,) = rows[str(path)]
        assert row["error_code"] in BAD_CODES[path.name], (path.name, row)
        assert row["error_message"] and row["sha256"] == _sha(path)
        assert row["chunk_index"] is None and row["page_content"] == "" and row["metadata"] is None
        assert row["format"] is None


def test_a_document_without_text_is_one_row_without_chunk() -> None:
    if rhwp_core.parse(EMPTY_DOC).extract_text().strip():
        pytest.skip("this fixture has text now")
    (row,) = chunk_rows([EMPTY_DOC]).to_pylist()
    assert row["chunk_index"] is None and row["page_content"] == "" and row["metadata"] is None
    assert row["error_code"] is None and row["format"] == "hwp" and row["sha256"] == _sha(EMPTY_DOC)


def test_unreadable_paths_and_bytes_never_raise(tmp_path: Path) -> None:
    empty = tmp_path / "empty.hwp"
    empty.write_bytes(b"")
    data = SAMPLE.read_bytes()
    table = chunk_rows([tmp_path / "missing.hwp", tmp_path, empty, data, b"", b"not a document"])
    rows = _by_source(table)
    assert len(rows) == 6
    assert rows[str(tmp_path / "missing.hwp")][0]["error_code"] == "file_not_found"
    assert rows[str(tmp_path / "missing.hwp")][0]["sha256"] is None
    assert rows[str(tmp_path)][0]["error_code"] == "invalid_input"
    assert rows[str(empty)][0]["error_code"] in {"corrupt_document", "unsupported_format"}
    sample = rows[f"doc:{hashlib.sha256(data).hexdigest()}"]  # bytes are named by their content
    assert sample[0]["chunk_index"] == 0 and json.loads(sample[0]["metadata"])["source"].startswith("doc:")
    assert rows[f"doc:{hashlib.sha256(b'').hexdigest()}"][0]["error_code"] in {"corrupt_document", "unsupported_format"}
    assert rows[f"doc:{hashlib.sha256(b'not a document').hexdigest()}"][0]["error_code"] == "unsupported_format"


def test_a_bug_is_an_internal_error_row_and_the_batch_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    real = batch.chunking.chunk_document

    def flaky(doc: Any, **kwargs: Any) -> list[dict[str, Any]]:
        if kwargs["source"].endswith("hwplib-etc.hwp"):
            raise RuntimeError("boom")
        return real(doc, **kwargs)

    monkeypatch.setattr(batch.chunking, "chunk_document", flaky)
    rows = _by_source(chunk_rows(GOOD))
    assert len(rows) == len(GOOD)
    (bug,) = rows[str(FIXTURES / "hwp" / "hwplib-etc.hwp")]
    assert bug["error_code"] == "internal_error" and "RuntimeError: boom" in bug["error_message"]
    assert rows[str(SAMPLE)][0]["chunk_index"] == 0


def test_text_mode_gives_the_whole_text_per_document() -> None:
    table = chunk_rows([SAMPLE, EMPTY_DOC], BatchOptions(mode="text", include_furniture=True))
    rows = _by_source(table)
    (row,) = rows[str(SAMPLE)]
    assert row["page_content"] == rhwp_core.parse(SAMPLE).extract_text(include_furniture=True)
    assert json.loads(row["metadata"]) == {
        "source": str(SAMPLE),
        "format": "hwp",
        "block_kind": "text",
        "scope": "all",
        "chunk_index": 0,
    }


def test_inconsistent_options_raise_before_reading() -> None:
    with pytest.raises(InvalidRequestError):
        chunk_rows([SAMPLE], BatchOptions(size=100, overlap=100))
    with pytest.raises(InvalidRequestError):
        chunk_rows([SAMPLE], BatchOptions(mode="single", include_furniture=True))


def test_find_documents_walks_folders_case_insensitively(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    for name in ("a/x.HWP", "a/b/y.hwpx", "a/b/z.Hml", "a/notes.txt", "top.hwp"):
        (tmp_path / name).write_bytes(b"")
    found = find_documents([tmp_path / "a", tmp_path / "top.hwp", tmp_path / "a" / "notes.txt"])
    assert found == [
        str(tmp_path / "a" / "b" / "y.hwpx"),
        str(tmp_path / "a" / "b" / "z.Hml"),
        str(tmp_path / "a" / "x.HWP"),
        str(tmp_path / "top.hwp"),
        str(tmp_path / "a" / "notes.txt"),  # a file named explicitly is taken whatever its name
    ]


# --- the pool runner ------------------------------------------------------------------------


@pytest.mark.parametrize("workers", [0, 2])
def test_run_local_writes_the_rows_of_chunk_rows(tmp_path: Path, workers: int) -> None:
    inputs = [str(p) for p in [*GOOD, *BAD]]
    seen: list[batch.Progress] = []
    summary = run_local(inputs, tmp_path / "out", workers=workers, task_size=3, progress=seen.append)
    table = read_rows(tmp_path / "out")
    assert _sorted_rows(table) == _sorted_rows(chunk_rows(inputs))
    assert summary.inputs == summary.files == len(inputs) and summary.skipped == 0
    assert sum(summary.errors.values()) == len(BAD)
    assert summary.chunks == sum(1 for r in table.to_pylist() if r["chunk_index"] is not None)
    assert seen and seen[-1].done == seen[-1].total == len(inputs)
    parts = sorted((tmp_path / "out").iterdir())
    assert len(parts) == -(-len(inputs) // 3) and all(p.name.startswith("part-") for p in parts)
    assert all(pq.read_schema(p) == SCHEMA for p in parts)


def test_sources_are_absolute_and_duplicates_count_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(FIXTURES)
    summary = run_local(
        ["hwp/hwplib-etc.hwp", str(FIXTURES / "hwp" / "hwplib-etc.hwp"), "./hwp/../hwp/hwplib-etc.hwp"],
        tmp_path,
        workers=0,
    )
    assert summary.inputs == summary.files == 1
    assert set(read_rows(tmp_path).column("source").to_pylist()) == {str(FIXTURES / "hwp" / "hwplib-etc.hwp")}


def _copy_fixtures(dest: Path) -> list[str]:
    dest.mkdir()
    for p in [*GOOD[:6], *BAD[:4]]:
        shutil.copy(p, dest / p.name)
    return find_documents([dest])


def test_a_second_run_skips_what_is_done(tmp_path: Path) -> None:
    inputs = _copy_fixtures(tmp_path / "in")
    out = tmp_path / "out"
    first = run_local(inputs, out, workers=2)
    before = read_rows(out)
    parts = sorted(out.iterdir())
    again = run_local(inputs, out, workers=2)
    assert again.skipped == len(inputs) and again.files == 0 and sorted(out.iterdir()) == parts
    assert _sorted_rows(read_rows(out)) == _sorted_rows(before)
    assert first.files == len(inputs)


def test_resume_redoes_changed_and_previously_unreadable_files_exactly_once(tmp_path: Path) -> None:
    inputs = _copy_fixtures(tmp_path / "in")
    missing = str(tmp_path / "in" / "later.hwp")
    out = tmp_path / "out"
    run_local([*inputs, missing], out, workers=0, task_size=4)
    assert _by_source(read_rows(out))[missing][0]["error_code"] == "file_not_found"

    changed = inputs[0]
    Path(changed).write_bytes(SAMPLE.read_bytes())  # new content under the same name
    shutil.copy(SAMPLE, missing)  # the missing file appeared
    summary = run_local([*inputs, missing], out, workers=0, task_size=4)
    assert summary.files == 2 and summary.skipped == len(inputs) - 1

    table = read_rows(out)
    rows = _by_source(table)
    _check_accounting(table)
    assert set(rows) == {*inputs, missing}  # every input exactly once: old rows were removed
    assert {r["sha256"] for r in rows[changed]} == {_sha(SAMPLE)}
    assert rows[missing][0]["chunk_index"] == 0 and rows[missing][0]["sha256"] == _sha(SAMPLE)


def test_an_interrupted_run_leaves_nothing_half_read(tmp_path: Path) -> None:
    inputs = _copy_fixtures(tmp_path / "in")
    out = tmp_path / "out"
    run_local(inputs, out, workers=0, task_size=3)
    parts = sorted(out.glob("*.parquet"))
    # A crash mid-write: a truncated part, and a temporary one that was never renamed.
    truncated = parts[0].read_bytes()[:100]
    parts[0].write_bytes(truncated)
    (out / ".part-x.parquet.0000.parquet.tmp").write_bytes(b"half")
    summary = run_local(inputs, out, workers=0, task_size=3)
    assert summary.files == 3  # the documents of the broken part, again
    assert (out / (parts[0].name + ".incomplete")).exists()
    assert not list(out.glob(".*.tmp"))
    table = read_rows(out)
    _check_accounting(table)
    assert set(_by_source(table)) == set(inputs)


_CRASHY = """
import os
from rhwp_core import batch

_real = batch._task


def task(paths, options, part):
    # Stands for a document that kills its worker (the OOM killer, a signal).
    if any(os.path.basename(p) == "killer.hwp" for p in paths):
        os._exit(9)
    return _real(paths, options, part)
"""


def test_a_file_that_kills_its_worker_is_an_error_row_and_nothing_is_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inputs = _copy_fixtures(tmp_path / "in")
    shutil.copy(SAMPLE, tmp_path / "in" / "killer.hwp")
    inputs = find_documents([tmp_path / "in"])
    (tmp_path / "crashy_task.py").write_text(textwrap.dedent(_CRASHY))
    monkeypatch.syspath_prepend(str(tmp_path))  # the workers get the parent's sys.path
    import crashy_task  # type: ignore[import-not-found]

    monkeypatch.setattr(batch, "_task", crashy_task.task)
    summary = run_local(inputs, tmp_path / "out", workers=2, task_size=4)
    rows = _by_source(read_rows(tmp_path / "out"))
    assert set(rows) == set(inputs) and summary.files == len(inputs)
    (killer,) = rows[str(tmp_path / "in" / "killer.hwp")]
    assert killer["error_code"] == "internal_error" and "worker process died" in killer["error_message"]
    assert summary.errors["internal_error"] == 1


def test_workers_import_neither_the_host_nor_fastmcp() -> None:
    code = textwrap.dedent(
        f"""
        import sys
        from rhwp_core.batch import BatchOptions, chunk_rows
        for mode in ("paragraph", "ir-blocks", "single", "text"):
            chunk_rows([{str(SAMPLE)!r}], BatchOptions(mode=mode))
        print(sorted(m for m in sys.modules if m.split(".")[0] in ("fastmcp", "rhwp_mcp_host", "mcp")))
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "[]"


# --- rhwp-batch -----------------------------------------------------------------------------


def _cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rhwp_core.batch_cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
    )


def test_cli_writes_parquet_and_one_summary_line(tmp_path: Path) -> None:
    done = _cli(str(FIXTURES / "hwp"), str(FIXTURES / "bad"), "--out", str(tmp_path / "out"), "--workers", "2")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1
    n = len(list((FIXTURES / "hwp").glob("*.hwp"))) + len(BAD)
    assert lines[0].startswith(f"{n} files,") and " chunks" in lines[0] and "errors (" in lines[0]
    assert "\r" not in done.stderr  # no progress display when stderr is not a terminal
    table = read_rows(tmp_path / "out")
    assert len(set(table.column("source").to_pylist())) == n
    codes = Counter(c for c in table.column("error_code").to_pylist() if c)
    assert sum(codes.values()) == len(BAD)
    again = _cli(str(FIXTURES / "hwp"), str(FIXTURES / "bad"), "--out", str(tmp_path / "out"))
    assert again.returncode == 0 and f"0 files ({n} already done)" in again.stdout


def test_cli_options_and_manifest(tmp_path: Path) -> None:
    listing = tmp_path / "list.txt"
    listing.write_text(f"# documents to chunk\n{SAMPLE}\n\nmissing.hwp\n{FIXTURES / 'hwpx'}\n", encoding="utf-8")
    done = _cli(
        f"@{listing}", "--out", str(tmp_path / "out"), "--mode", "ir-blocks", "--size", "300", "--overlap", "0",
        "--include-furniture", "--workers", "0", "--quiet",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = _by_source(read_rows(tmp_path / "out"))
    assert rows[str(tmp_path / "missing.hwp")][0]["error_code"] == "file_not_found"  # relative to the list
    assert len(rows) == 2 + len(list((FIXTURES / "hwpx").glob("*.hwpx")))
    meta = [json.loads(r["metadata"]) for r in rows[str(SAMPLE)]]
    expected = chunk_document(
        rhwp_core.parse(SAMPLE), source=str(SAMPLE), mode="ir-blocks", size=300, overlap=0, include_furniture=True
    )
    assert meta == [c["metadata"] for c in expected]


@pytest.mark.parametrize(
    "args",
    [
        [],  # no inputs
        ["/no/such/folder"],
        ["--size", "100", "--overlap", "100", "@LIST"],
        ["--mode", "paragraph", "--include-furniture", "@LIST"],
        ["--workers", "-1", "@LIST"],
        ["@/no/such/list.txt"],
        ["EMPTYDIR"],  # no documents in it
    ],
)
def test_cli_bad_arguments_exit_2(tmp_path: Path, args: list[str]) -> None:
    listing = tmp_path / "list.txt"
    listing.write_text(f"{SAMPLE}\n")
    (tmp_path / "empty").mkdir()
    placeholders = {"@LIST": f"@{listing}", "EMPTYDIR": str(tmp_path / "empty")}
    args = [placeholders.get(a, a) for a in args]
    done = _cli(*args, "--out", str(tmp_path / "out"))
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stderr.strip() and not done.stdout.strip()


def test_cli_unwritable_output_exits_2(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    done = _cli(str(SAMPLE), "--out", str(blocker / "out"))
    assert done.returncode == 2 and "cannot write to the output folder" in done.stderr


def test_cli_shows_progress_on_a_terminal(tmp_path: Path) -> None:
    pty = pytest.importorskip("pty")
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "rhwp_core.batch_cli", str(FIXTURES / "hwpx"), "--out", str(tmp_path / "o")],
            stdout=subprocess.PIPE,
            stderr=follower,
            timeout=300,
            text=True,
        )
        os.close(follower)
        follower = -1
        shown = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
    finally:
        if follower >= 0:
            os.close(follower)
        os.close(leader)
    assert done.returncode == 0
    n = len(list((FIXTURES / "hwpx").glob("*.hwpx")))
    text = shown.decode()
    assert f"{n}/{n} files" in text and "files/s" in text and "0 errors" in text


def test_cli_a_failing_run_exits_1(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    from rhwp_core import batch_cli

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(batch, "run_local", broken)
    assert batch_cli.main([str(SAMPLE), "--out", str(tmp_path / "o")]) == 1
    assert "the run failed" in capsys.readouterr().err


def test_cli_ctrl_c_stops_soon_and_the_next_run_resumes(tmp_path: Path) -> None:
    import signal
    import time

    farm = tmp_path / "in"
    out = tmp_path / "out"
    # ~1,000 small documents under distinct names (several seconds on one worker); should a busy
    # machine let the whole run end before the interrupt lands, once more over four times as many.
    for dirs in (60, 240):
        for k in range(dirs):
            folder = farm / f"c{k:03d}"
            if folder.exists():
                continue
            folder.mkdir(parents=True)
            for p in GOOD:
                (folder / p.name).symlink_to(p)
        shutil.rmtree(out, ignore_errors=True)
        cmd = [sys.executable, "-m", "rhwp_core.batch_cli", str(farm), "--out", str(out), "--workers", "1"]
        # Its own process group, as a terminal's Ctrl-C reaches it: the parent and its workers.
        # A child inherits an ignored SIGINT (another test of the run may leave it ignored in
        # this process, as a pool worker does), and Python then never raises KeyboardInterrupt:
        # the child starts with the default Ctrl-C, as from a terminal.
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            proc = subprocess.Popen(
                cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
            )
        finally:
            signal.signal(signal.SIGINT, previous)
        deadline = time.monotonic() + 120
        while not list(out.glob("part-*.parquet")) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        if proc.poll() is None:
            break
        proc.communicate(timeout=60)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "run the same command again to resume" in err
    assert len(list(out.glob("part-*.parquet"))) < 8  # queued tasks were dropped, not run
    assert not list(out.glob(".*.tmp"))  # the task that was running finished its part

    again = _cli(str(farm), "--out", str(out), "--workers", "2")
    assert again.returncode == 0 and "already done" in again.stdout
    table = read_rows(out)
    _check_accounting(table)
    assert len(_by_source(table)) == dirs * len(GOOD)


def test_a_file_name_that_is_not_utf8_is_a_source_all_the_same(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    euc_kr = os.fsencode(str(folder)) + b"/\xb9\xae\xbc\xad.hwp"  # "문서.hwp" in EUC-KR, as old archives name it
    try:
        with open(euc_kr, "wb") as f:
            f.write(SAMPLE.read_bytes())
    except OSError:
        pytest.skip("this file system refuses file names that are not UTF-8")
    shutil.copy(SAMPLE, folder / "plain.hwp")
    inputs = find_documents([folder])
    out = tmp_path / "out"
    summary = run_local(inputs, out, workers=0)
    assert summary.files == 2 and not summary.errors
    rows = _by_source(read_rows(out))
    escaped = str(folder) + "/\\xb9\\xae\\xbc\\xad.hwp"  # the bytes spelled out, valid text
    assert set(rows) == {escaped, str(folder / "plain.hwp")}
    assert rows[escaped][0]["chunk_index"] == 0 and json.loads(rows[escaped][0]["metadata"])["source"] == escaped
    again = run_local(inputs, out, workers=0)  # resume recognises it
    assert again.skipped == 2 and again.files == 0
