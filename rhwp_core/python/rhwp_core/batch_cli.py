"""``rhwp-batch``: many HWP/HWPX documents to Parquet rows of retrieval chunks.

    rhwp-batch INPUT... --out DIR [--mode paragraph] [--size 500] [--overlap 50]
               [--include-furniture] [--workers N] [--engine local|ray] [--quiet]

INPUT is a file (read whatever its name), a folder (every ``*.hwp``, ``*.hwpx``, ``*.hml`` below it,
case-insensitive) or ``@LIST`` / ``--manifest LIST``: a text file naming one file or folder per
line (blank lines and ``#`` comments skipped; relative names are relative to the list's folder).

Exit status: 0 when the run completed, unreadable documents included (they are error rows);
2 for bad arguments (no inputs, an input that does not exist, an output folder that cannot be
written, a missing extra); 1 when the run itself failed (130 on Ctrl-C). Re-running the same
command on the same ``--out`` resumes: documents already there unchanged are skipped.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO, get_args

if TYPE_CHECKING:
    from .batch import Progress

_MODES = ("paragraph", "single", "ir-blocks", "text")


class _Usage(Exception):
    """A bad argument: exit status 2."""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="rhwp-batch",
        description="Turn many HWP/HWPX documents into Parquet rows of retrieval chunks "
        "(columns: source, sha256, format, chunk_index, page_content, metadata, error_code, error_message).",
        epilog="Inputs: files, folders (*.hwp, *.hwpx, *.hml below them) or @LIST (one path per line). "
        "Re-running with the same --out skips documents already done. With --engine ray, RAY_ADDRESS "
        "selects a Ray cluster.",
    )
    p.add_argument("inputs", nargs="*", metavar="INPUT", help="file, folder, or @LIST (a file of paths)")
    p.add_argument("--manifest", action="append", default=[], metavar="LIST", help="a file of paths, one per line")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder for the Parquet parts")
    p.add_argument(
        "--mode",
        choices=_MODES,
        default="paragraph",
        help="as the chunks tool (paragraph, single, ir-blocks), or text: one row per document, unsplit",
    )
    p.add_argument("--size", type=int, default=500, help="target chunk size in characters (default 500)")
    p.add_argument("--overlap", type=int, default=50, help="characters shared by neighbouring chunks (default 50)")
    p.add_argument(
        "--include-furniture",
        action="store_true",
        help="ir-blocks: headers, footers and notes become chunks too; text: append them to the text",
    )
    p.add_argument("--workers", type=int, default=None, help="processes (default: one per CPU; 0: in this process)")
    p.add_argument("--engine", choices=("local", "ray"), default="local", help="process pool (default) or Ray Data")
    p.add_argument("--quiet", action="store_true", help="no progress display; only the summary line")
    return p


def _read_manifest(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8-sig") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise _Usage(f"cannot read the list {path}: {e.strerror or e}") from None
    base = os.path.dirname(os.path.abspath(path))
    entries = []
    for line in lines:
        entry = line.strip()
        if entry and not entry.startswith("#"):
            # Listed files that are missing are the data's problem, not the command's: they
            # become file_not_found rows, so they are expanded without an existence check.
            entries.append(os.path.join(base, entry))
    return entries


def collect_inputs(inputs: Sequence[str], manifests: Sequence[str]) -> list[str]:
    """The document paths named by the command line (see the module doc); raises ``_Usage``."""
    from .batch import find_documents

    named: list[str] = []
    for item in inputs:
        if item.startswith("@") and len(item) > 1:
            named.extend(_read_manifest(item[1:]))
        elif not os.path.exists(item):
            raise _Usage(f"no such file or folder: {item}")
        else:
            named.append(item)
    for manifest in manifests:
        named.extend(_read_manifest(manifest))
    if not named:
        raise _Usage("no inputs: name files, folders or @LIST")
    found = find_documents(named)
    if not found:
        raise _Usage(f"no HWP/HWPX documents (*.hwp, *.hwpx, *.hml) in: {', '.join(inputs or manifests)}")
    return found


def _check_out_dir(out: str) -> None:
    try:
        os.makedirs(out, exist_ok=True)
        with tempfile.TemporaryFile(dir=out):
            pass
    except OSError as e:
        raise _Usage(f"cannot write to the output folder {out}: {e.strerror or e}") from None


class _ProgressLine:
    """One line on a terminal, rewritten in place: files done/total, files/s, errors so far."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.last = 0.0
        self.shown = False

    def __call__(self, p: Progress) -> None:
        now = time.monotonic()
        if p.done < p.total and now - self.last < 0.2:
            return
        self.last = now
        rate = p.done / p.seconds if p.seconds > 0 else 0.0
        self.stream.write(f"\r{p.done}/{p.total} files  {rate:.1f} files/s  {p.errors} errors ")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        from .batch import BatchOptions, Mode
    except ImportError as e:
        print(f"rhwp-batch: {e}", file=sys.stderr)
        return 2
    assert set(_MODES) == set(get_args(Mode))
    options = BatchOptions(
        mode=args.mode, size=args.size, overlap=args.overlap, include_furniture=args.include_furniture
    )
    try:
        options.require()
        if args.workers is not None and args.workers < 0:
            raise _Usage("--workers must be 0 or more")
        paths = collect_inputs(args.inputs, args.manifest)
        _check_out_dir(args.out)
    except ImportError as e:
        print(f"rhwp-batch: {e}", file=sys.stderr)
        return 2
    except (_Usage, ValueError) as e:  # InvalidRequestError is a ValueError
        print(f"rhwp-batch: {e}", file=sys.stderr)
        return 2

    show = not args.quiet and sys.stderr.isatty()
    bar = _ProgressLine(sys.stderr) if show else None
    try:
        if args.engine == "ray":
            from .batch import run_ray

            summary = run_ray(paths, args.out, options, args.workers, progress_bars=show)
        else:
            from .batch import run_local

            summary = run_local(paths, args.out, options, args.workers, progress=bar)
    except ImportError as e:
        print(f"rhwp-batch: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        if bar is not None:
            bar.close()
        print("rhwp-batch: interrupted; run the same command again to resume", file=sys.stderr)
        return 130
    except Exception as e:
        if bar is not None:
            bar.close()
        print(f"rhwp-batch: the run failed: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    if bar is not None:
        bar.close()
    print(summary.line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
