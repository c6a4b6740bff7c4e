#!/usr/bin/env python3
"""Reader benchmark: rhwp_core against the other HWP/HWPX readers on PyPI, on the same corpus.

    python3 benches/bench_readers.py                      # everything, all readers, the shared corpus
    python3 benches/bench_readers.py --readers ours,unhwp --formats hwp --no-markdown
    python3 benches/bench_readers.py --probe unhwp FILE...  # one reader, one parse each (setup check)

What is measured, per reader and document: parse + full text as one call sequence
(``rhwp_core.parse(path).extract_text()`` for ours, each reader's own equivalent for the others),
warmed up once, then repeated until ``--repeat-time`` seconds have been spent or ``--max-repeats``
runs were made; the median of the repeats is the document's time. Then the same for Markdown for
the readers that offer it, and a two-thread scaling figure.

Isolation: every (reader, format, mode) runs in a fresh child process of that reader's interpreter
(``--python READER=PATH``), so imports, caches and peak memory (the child's ru_maxrss) belong to
one reader. A document that raises, crashes the child or overruns ``--timeout`` is recorded as
failed; the child is restarted after the failing document and carries on with the rest.

Correctness: content recall (the shared tools/recall.py scoring: multiset of in-word character
bigrams) against the consensus of the reference readers in corpus-reference/, leaving the measured
reader's own reference out of its consensus (a reader is not scored against itself). A failed
document scores 0; documents without a consensus are not scored.

This file is both the orchestrator (run with any Python 3.9+, no dependencies) and the worker
(``--worker``, started by the orchestrator inside each reader's interpreter).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import gc
import importlib.util
import io
import json
import math
import os
import platform
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEFAULT_CORPUS = Path(os.environ.get("RHWP_CORPUS", "/work/shared/corpus"))
# legacy-hwp3: the HWP 3.x documents (their recall is scored by corpus_report.py against Hancom's
# own conversions, not here: the reference readers have no output for them).
FORMATS = ("hwp", "hwpx", "legacy-hwp3")

# --------------------------------------------------------------------------------------------
# Readers. Each adapter is imported only inside its worker process. `text` and `markdown` are
# (path) -> str; they must do the whole job from the file on disk (open, parse, render) because
# that is what a user of the library pays for.
# --------------------------------------------------------------------------------------------

# name -> (formats it claims, reference dir in corpus-reference/ or None, default interpreter key)
READERS: dict[str, tuple[tuple[str, ...], str | None, str]] = {
    "ours": (("hwp", "hwpx", "legacy-hwp3"), None, "ours"),
    "rhwp-python": (("hwp", "hwpx", "legacy-hwp3"), "rhwp", "others"),
    "unhwp": (("hwp", "hwpx"), "unhwp", "others"),
    "pyhwp": (("hwp",), "pyhwp", "others"),
    "kreuzberg": (("hwp",), None, "others"),
}
RUN_ORDER = ["ours", "rhwp-python", "unhwp", "pyhwp", "kreuzberg"]
FLOOR = "floor"  # the raw floor row (rhwp_core/reader/examples/floor.rs), when --floor is given


class Adapter:
    def __init__(
        self, version: str, text: Callable[[str], str], markdown: Callable[[str], str] | None = None, api: str = ""
    ) -> None:
        self.version, self.text, self.markdown, self.api = version, text, markdown, api


def _adapter_ours() -> Adapter:
    import rhwp_core

    def text(path: str) -> str:
        return rhwp_core.parse(path).extract_text()

    def markdown(path: str) -> str:
        return rhwp_core.parse(path).to_markdown()

    return Adapter(rhwp_core.__version__, text, markdown, "rhwp_core.parse(path).extract_text() / .to_markdown()")


def _adapter_rhwp_python() -> Adapter:
    import rhwp

    def text(path: str) -> str:
        return rhwp.parse(path).extract_text()

    # rhwp-python has an IR and renderers (SVG/PDF/PNG) but no Markdown or HTML text view.
    return Adapter(f"{rhwp.version()} (core {rhwp.rhwp_core_version()})", text, None, "rhwp.parse(path).extract_text()")


def _adapter_unhwp() -> Adapter:
    import unhwp

    # unhwp.extract_text(path) is exactly this: parse to a handle, render .text, free the handle.
    def text(path: str) -> str:
        with unhwp.parse(path) as result:
            return result.text

    def markdown(path: str) -> str:
        with unhwp.parse(path) as result:
            return result.markdown

    return Adapter(unhwp.__version__, text, markdown, "with unhwp.parse(path) as r: r.text / r.markdown")


def _adapter_pyhwp() -> Adapter:
    from contextlib import closing

    import hwp5
    from hwp5.hwp5txt import TextTransform
    from hwp5.xmlmodel import Hwp5File

    # What the hwp5txt command does: the document as XML events, then the plain-text XSLT.
    # The transform object caches the compiled XSLT, so it is built once, outside the timing.
    to_text = TextTransform().transform_hwp5_to_text

    def text(path: str) -> str:
        out = io.BytesIO()
        with closing(Hwp5File(path)) as hwp5file:
            to_text(hwp5file, out)
        return out.getvalue().decode("utf-8")

    return Adapter(
        hwp5.__version__, text, None, "hwp5.hwp5txt.TextTransform().transform_hwp5_to_text(Hwp5File(path), out)"
    )


def _adapter_kreuzberg() -> Adapter:
    import kreuzberg

    plain = kreuzberg.ExtractionConfig(output_format="plain")
    md = kreuzberg.ExtractionConfig(output_format="markdown")

    def text(path: str) -> str:
        return kreuzberg.extract_file_sync(path, config=plain).content

    def markdown(path: str) -> str:
        return kreuzberg.extract_file_sync(path, config=md).content

    return Adapter(
        kreuzberg.__version__,
        text,
        markdown,
        "kreuzberg.extract_file_sync(path, config=ExtractionConfig(output_format=...)).content",
    )


ADAPTERS: dict[str, Callable[[], Adapter]] = {
    "ours": _adapter_ours,
    "rhwp-python": _adapter_rhwp_python,
    "unhwp": _adapter_unhwp,
    "pyhwp": _adapter_pyhwp,
    "kreuzberg": _adapter_kreuzberg,
}


# --------------------------------------------------------------------------------------------
# Worker side (runs inside the reader's interpreter)
# --------------------------------------------------------------------------------------------


def _error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}".strip()[:300]


def _time_one(fn: Callable[[str], str], path: str, repeat_time: float, max_repeats: int) -> tuple[str, list[float]]:
    """Warm up once (its result is the text we keep), then repeat until the time budget is spent."""
    text = fn(path)
    times: list[float] = []
    spent = 0.0
    while len(times) < max_repeats and (spent < repeat_time or not times):
        t0 = time.perf_counter()
        fn(path)
        dt = time.perf_counter() - t0
        times.append(dt)
        spent += dt
    return text, times


def _warm_up_cpus(seconds: float) -> None:
    """Keep every core busy for a moment before measuring.

    On an idle machine the first reader measured ran ~1.5x slower than the same reader measured
    second (cores clocked down while idle): whoever came first lost. A few seconds of load first
    puts every reader on the same footing.
    """
    if seconds <= 0:
        return
    code = f"import time\nend = time.perf_counter() + {seconds}\nwhile time.perf_counter() < end: pass"
    spinners = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(os.cpu_count() or 1)]
    for p in spinners:
        p.wait()


def _worker_docs(job: dict, adapter: Adapter, emit: Callable[[dict], None]) -> None:
    fn = adapter.text if job["mode"] == "text" else adapter.markdown
    texts_dir = Path(job["texts_dir"])
    for index, doc in enumerate(job["docs"]):
        emit({"event": "begin", "index": index})
        gc.collect()
        try:
            if fn is None:
                raise NotImplementedError("no such mode")
            text, times = _time_one(fn, doc["path"], job["repeat_time"], job["max_repeats"])
            if not isinstance(text, str):
                raise TypeError(f"returned {type(text).__name__}, not str")
        except BaseException as exc:  # a reader failing in any way is a result, not our crash
            if isinstance(exc, KeyboardInterrupt):
                raise
            emit({"event": "doc", "index": index, "ok": False, "error": _error_text(exc)})
            continue
        out = texts_dir / (doc["rel"] + ".txt")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8", errors="surrogatepass")
        emit(
            {
                "event": "doc",
                "index": index,
                "ok": True,
                "median_s": statistics.median(times),
                "min_s": min(times),
                "repeats": len(times),
                "chars": len(text),
            }
        )


def _worker_scaling(job: dict, adapter: Adapter, emit: Callable[[dict], None]) -> None:
    """One thread running A's loop then B's loop, against two threads running one loop each.

    The two documents differ (so no cache inside a reader can make the second one free); each
    loop repeats its document enough times to take about `scaling_time` seconds, so the two
    threads carry equal work and a perfect parallel reader scores 2.0.
    """
    fn = adapter.text
    chosen: list[tuple[str, float]] = []
    for path in job["candidates"]:
        try:
            _, times = _time_one(fn, path, 0.05, 5)
        except Exception as exc:
            emit({"event": "note", "text": f"scaling candidate {path} failed: {_error_text(exc)}"})
            continue
        chosen.append((path, statistics.median(times)))
        if len(chosen) == 2:
            break
    if len(chosen) < 2:
        emit({"event": "scaling", "ok": False, "error": "fewer than two documents could be read"})
        return
    target = job["scaling_time"]
    loops = [(p, max(1, round(target / max(t, 1e-6)))) for p, t in chosen]

    def run(path: str, n: int) -> None:
        for _ in range(n):
            fn(path)

    sequential, parallel = [], []
    for _ in range(job["scaling_rounds"]):
        t0 = time.perf_counter()
        for p, n in loops:
            run(p, n)
        sequential.append(time.perf_counter() - t0)
        barrier = threading.Barrier(3)
        threads = []
        for p, n in loops:

            def body(p: str = p, n: int = n, barrier: threading.Barrier = barrier) -> None:
                barrier.wait()
                run(p, n)

            threads.append(threading.Thread(target=body))
        for t in threads:
            t.start()
        barrier.wait()
        t0 = time.perf_counter()
        for t in threads:
            t.join()
        parallel.append(time.perf_counter() - t0)
    seq, par = statistics.median(sequential), statistics.median(parallel)
    emit(
        {
            "event": "scaling",
            "ok": True,
            "docs": [{"path": p, "loops": n} for p, n in loops],
            "one_thread_s": seq,
            "two_threads_s": par,
            "speedup": seq / par if par else None,
        }
    )


def worker_main(job_path: str) -> int:
    # The protocol goes to a private copy of stdout; fd 1 becomes stderr so that whatever a
    # reader prints cannot corrupt it.
    proto = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def emit(message: dict) -> None:
        proto.write(json.dumps(message, ensure_ascii=False) + "\n")
        proto.flush()

    job = json.loads(Path(job_path).read_text(encoding="utf-8"))
    t0 = time.perf_counter()
    try:
        adapter = ADAPTERS[job["reader"]]()
    except BaseException as exc:
        emit({"event": "import", "ok": False, "error": _error_text(exc)})
        traceback.print_exc()
        return 0
    emit(
        {
            "event": "import",
            "ok": True,
            "version": adapter.version,
            "api": adapter.api,
            "has_markdown": adapter.markdown is not None,
            "import_s": time.perf_counter() - t0,
            "python": sys.version.split()[0],
            "executable": sys.executable,
        }
    )
    if job["mode"] == "scaling":
        _worker_scaling(job, adapter, emit)
    elif job["mode"] != "probe":
        _worker_docs(job, adapter, emit)
    emit({"event": "end"})
    return 0


def probe_main(reader: str, files: list[str]) -> int:
    """Setup check: import the reader, parse each file once, print what came out."""
    try:
        adapter = ADAPTERS[reader]()
    except Exception as exc:
        print(f"{reader}: import failed: {_error_text(exc)}")
        return 1
    print(f"{reader} {adapter.version}: {adapter.api}")
    claimed = READERS[reader][0]
    read = failed = 0
    for f in files:
        fmt = Path(f).suffix.lstrip(".").lower()
        if fmt not in claimed:
            print(f"  {Path(f).name}: not claimed ({fmt}); skipped")
            continue
        for label, fn in (("text", adapter.text), ("markdown", adapter.markdown)):
            if fn is None:
                continue
            try:
                t0 = time.perf_counter()
                out = fn(f)
                dt = (time.perf_counter() - t0) * 1000
                print(f"  {Path(f).name} {label}: {len(out)} chars in {dt:.2f} ms: {out[:60]!r}")
                read += 1
            except Exception as exc:
                print(f"  {Path(f).name} {label}: FAILED {_error_text(exc)}")
                failed += 1
    # A reader refusing one of the check files is information, not a broken install.
    return 0 if read else 1


# --------------------------------------------------------------------------------------------
# Orchestrator side
# --------------------------------------------------------------------------------------------


def find_freetype() -> str | None:
    """The system libfreetype, for rhwp-python's wheel (FT_Palette_Data_Get on Debian 12)."""
    if os.environ.get("RHWP_FREETYPE"):
        return os.environ["RHWP_FREETYPE"]
    for candidate in (
        "/usr/lib/x86_64-linux-gnu/libfreetype.so.6",
        "/usr/lib/aarch64-linux-gnu/libfreetype.so.6",
        "/usr/lib64/libfreetype.so.6",
        "/usr/lib/libfreetype.so.6",
    ):
        if os.path.exists(candidate):
            return candidate
    return None


def default_pythons() -> dict[str, str]:
    ours = os.environ.get("RHWP_PYTHON") or str(REPO / ".venv" / "bin" / "python")
    others = os.environ.get("RHWP_OTHERS_PYTHON") or str(HERE / ".venv-others" / "bin" / "python")
    return {name: (ours if key == "ours" else others) for name, (_, _, key) in READERS.items()}


def discover(corpus: Path, formats: list[str], limit: int | None) -> list[dict]:
    docs = []
    for fmt in formats:
        folder = corpus / fmt
        if not folder.is_dir():
            continue
        files = sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
        for p in files[:limit] if limit else files:
            docs.append({"path": str(p), "rel": f"{fmt}/{p.name}", "format": fmt, "bytes": p.stat().st_size})
    return docs


class Child:
    """One worker process: protocol lines with a per-document deadline, rusage at the end."""

    def __init__(self, python: str, job: dict, env: dict, log: Path, workdir: Path) -> None:
        self.job_file = workdir / f"job-{os.getpid()}-{time.monotonic_ns()}.json"
        self.job_file.write_text(json.dumps(job, ensure_ascii=False), encoding="utf-8")
        self.log = open(log, "a", encoding="utf-8")
        self.log.write(f"\n=== {datetime.datetime.now().isoformat()} {job['reader']} {job['mode']}\n")
        self.log.flush()
        self.proc = subprocess.Popen(
            [python, str(Path(__file__).resolve()), "--worker", str(self.job_file)],
            stdout=subprocess.PIPE,
            stderr=self.log,
            stdin=subprocess.DEVNULL,
            env=env,
            cwd=str(workdir),
            start_new_session=True,
        )
        self.buffer = b""
        self.maxrss_kb = 0
        self.timeout = 60.0  # seconds allowed between two protocol messages; callers adjust it

    def lines(self) -> Iterator[dict | None]:
        """Yield protocol messages; None when `self.timeout` passes without one (caller decides)."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while True:
            while b"\n" in self.buffer:
                line, self.buffer = self.buffer.split(b"\n", 1)
                if line.strip():
                    try:
                        yield json.loads(line)
                    except ValueError:
                        continue
            ready, _, _ = select.select([fd], [], [], self.timeout)
            if not ready:
                yield None
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                return
            self.buffer += chunk

    def finish(self, kill: bool = False) -> tuple[int | None, int]:
        """Reap the child; returns (exit status or -signal, ru_maxrss in KiB)."""
        if kill and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
        status: int | None = None
        try:
            _, raw, usage = os.wait4(self.proc.pid, 0)
            status = os.waitstatus_to_exitcode(raw) if hasattr(os, "waitstatus_to_exitcode") else raw
            self.maxrss_kb = usage.ru_maxrss
        except ChildProcessError:
            status = self.proc.returncode
        self.proc.returncode = status
        if self.proc.stdout:
            self.proc.stdout.close()
        self.log.close()
        with contextlib.suppress(OSError):
            self.job_file.unlink()
        return status, self.maxrss_kb


def run_docs(reader: str, python: str, env: dict, mode: str, docs: list[dict], args, out: Path, workdir: Path) -> dict:
    """Run one (reader, mode) over `docs`, restarting after crashes and timeouts."""
    results: list[dict | None] = [None] * len(docs)
    info: dict = {"import": None, "maxrss_kb": 0, "restarts": 0}
    start = 0
    while start < len(docs):
        job = {
            "reader": reader,
            "mode": mode,
            "docs": docs[start:],
            "texts_dir": str(out / "texts" / reader / mode),
            "repeat_time": args.repeat_time,
            "max_repeats": args.max_repeats,
        }
        child = Child(python, job, env, out / "logs" / f"{reader}.log", workdir)
        current: int | None = None
        reason = None
        child.timeout = args.import_timeout
        for msg in child.lines():
            if msg is None:
                reason = "timeout" if current is not None else "import timeout"
                break
            ev = msg.get("event")
            if ev == "import":
                info["import"] = msg
                if not msg.get("ok"):
                    break
                child.timeout = args.timeout
            elif ev == "begin":
                current = start + msg["index"]
            elif ev == "doc":
                i = start + msg["index"]
                results[i] = msg
                current = None
            elif ev == "end":
                break
        status, rss = child.finish(kill=reason is not None)
        info["maxrss_kb"] = max(info["maxrss_kb"], rss)
        imp = info["import"]
        if imp is not None and not imp.get("ok"):
            for i in range(start, len(docs)):
                results[i] = {"ok": False, "error": f"import failed: {imp.get('error')}"}
            break
        if imp is None:
            err = reason or f"worker exited ({status}) before importing; see logs/{reader}.log"
            for i in range(start, len(docs)):
                results[i] = {"ok": False, "error": err}
            info["import"] = {"ok": False, "error": err}
            break
        if current is not None and results[current] is None:
            why = f"timeout after {args.timeout:g} s" if reason == "timeout" else f"worker died (exit {status})"
            results[current] = {"ok": False, "error": why}
            info["restarts"] += 1
            start = current + 1
            continue
        # Clean end, or the stream closed between documents: anything unanswered failed.
        for i in range(start, len(docs)):
            if results[i] is None:
                results[i] = {"ok": False, "error": f"no answer (worker exit {status})"}
        break
    for doc, res in zip(docs, results, strict=True):
        res = res or {"ok": False, "error": "not run"}
        res.pop("event", None)
        res.pop("index", None)
        res["rel"], res["bytes"], res["format"] = doc["rel"], doc["bytes"], doc["format"]
    info["docs"] = [dict(r) for r in results]  # type: ignore[arg-type]
    return info


def run_scaling(reader: str, python: str, env: dict, candidates: list[str], args, out: Path, workdir: Path) -> dict:
    job = {
        "reader": reader,
        "mode": "scaling",
        "candidates": candidates,
        "scaling_time": args.scaling_time,
        "scaling_rounds": args.scaling_rounds,
        "repeat_time": args.repeat_time,
        "max_repeats": args.max_repeats,
    }
    child = Child(python, job, env, out / "logs" / f"{reader}.log", workdir)
    result: dict = {"ok": False, "error": "no answer"}
    child.timeout = args.import_timeout + 6 * args.timeout
    for msg in child.lines():
        if msg is None:
            result = {"ok": False, "error": "timeout"}
            break
        if msg.get("event") == "import" and not msg.get("ok"):
            result = {"ok": False, "error": f"import failed: {msg.get('error')}"}
            break
        if msg.get("event") == "scaling":
            result = {k: v for k, v in msg.items() if k != "event"}
        if msg.get("event") == "end":
            break
    status, _ = child.finish(kill=True)
    if result.get("error") == "no answer":
        result["error"] = f"worker died (exit {status})"
    return result


def keep_fastest(first: dict[str, Any], again: dict[str, Any]) -> None:
    """Merge a later round into the first: per document, the faster median (text from the first)."""
    first["maxrss_kb"] = max(first.get("maxrss_kb", 0), again.get("maxrss_kb", 0))
    for a, b in zip(first["docs"], again["docs"], strict=True):
        if a.get("ok") and b.get("ok"):
            if "min_s" in a and "min_s" in b:
                a["min_s"] = min(a["min_s"], b["min_s"])
            if b["median_s"] < a["median_s"]:
                a["median_s"] = b["median_s"]
                a["repeats"] = b.get("repeats", a.get("repeats"))


def run_floor(binary: str, docs: list[dict], args, out: Path) -> dict[str, dict]:
    """The raw floor (rhwp_core/reader/examples/floor.rs): container open + stream inflation, per document."""
    per_fmt: dict[str, dict] = {}
    log = open(out / "logs" / "floor.log", "a", encoding="utf-8")
    try:
        proc = subprocess.Popen(
            [binary] + [d["path"] for d in docs], stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL
        )
        # Read, then reap with wait4 ourselves (communicate() would reap it and lose the rusage).
        killer = threading.Timer(args.timeout * max(1, len(docs)), proc.kill)
        killer.start()
        try:
            assert proc.stdout is not None
            raw_out = proc.stdout.read()
            proc.stdout.close()
        finally:
            killer.cancel()
        try:
            _, _, usage = os.wait4(proc.pid, 0)
            maxrss = usage.ru_maxrss
        except ChildProcessError:
            maxrss = 0
        try:
            rows = {r["path"]: r for r in json.loads(raw_out.decode("utf-8"))["files"]}
        except (ValueError, KeyError):
            rows = {}
    except OSError as exc:
        rows, maxrss = {}, 0
        log.write(f"floor: {exc}\n")
    finally:
        log.close()
    for fmt in FORMATS:
        fmt_docs = [d for d in docs if d["format"] == fmt]
        if not fmt_docs:
            continue
        results = []
        for d in fmt_docs:
            r = rows.get(d["path"])
            base = {"rel": d["rel"], "bytes": d["bytes"], "format": fmt}
            if r is None or "error" in r:
                results.append({**base, "ok": False, "error": (r or {}).get("error", "no answer from floor")})
            else:
                results.append(
                    {
                        **base,
                        "ok": True,
                        "median_s": r["median_us"] / 1e6,
                        "repeats": r["repeats"],
                        "chars": 0,
                        "inflated_bytes": r.get("inflated_bytes"),
                        "encrypted_streams": r.get("encrypted_streams", 0),
                    }
                )
        per_fmt[fmt] = {
            "docs": results,
            "maxrss_kb": maxrss,
            "restarts": 0,
            "import": {"ok": True, "version": "cfb+flate2+zip", "api": binary},
        }
    return per_fmt


# ---- correctness ------------------------------------------------------------------------------


class Scorer:
    """Content recall via the shared recall.py, leaving a reader's own reference out."""

    def __init__(self, recall_py: Path | None, out: Path) -> None:
        self.module = None
        self.ref_root: Path | None = None
        self.cache: dict[tuple[str, str], Any] = {}
        self.loo_root = out / "ref-without"
        if recall_py and recall_py.is_file():
            spec = importlib.util.spec_from_file_location("rhwp_shared_recall", recall_py)
            if spec and spec.loader:
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
                self.module = module
                self.ref_root = Path(module.REF)

    @property
    def available(self) -> bool:
        return self.module is not None and self.ref_root is not None and self.ref_root.is_dir()

    def _ref_for(self, exclude: str | None) -> Path:
        assert self.ref_root is not None
        if not exclude:
            return self.ref_root
        target = self.loo_root / exclude
        if not target.exists():
            target.mkdir(parents=True)
            for d in sorted(self.ref_root.iterdir()):
                if d.is_dir() and d.name != exclude:
                    (target / d.name).symlink_to(d.resolve(), target_is_directory=True)
        return target

    def recall(self, text: str, rel: str, exclude: str | None) -> float | None:
        assert self.module is not None
        ref = self._ref_for(exclude)
        key = (str(ref), rel)
        if key not in self.cache:
            agreed = self.module.consensus(rel, ref)
            self.cache[key] = (agreed, sum(agreed.values()))
        agreed, total = self.cache[key]
        if not total:
            return None
        got = self.module.tokens(text)
        return sum(min(n, got[t]) for t, n in agreed.items()) / total


# ---- aggregation ------------------------------------------------------------------------------


def geomean(values: list[float]) -> float | None:
    values = [v for v in values if v > 0]
    if not values:
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))


def aggregate(
    readers: list[str], runs: dict[str, dict[str, dict]], docs: list[dict], scorer: Scorer, out: Path, mode: str
) -> dict[str, dict[str, dict]]:
    """Per reader and format: counts, times, throughput, ratio to ours, RSS, recall."""
    table: dict[str, dict[str, dict]] = {}
    for fmt in FORMATS:
        fmt_docs = [d for d in docs if d["format"] == fmt]
        if not fmt_docs:
            continue
        per_reader = {r: {d["rel"]: d for d in runs[r][fmt]["docs"]} for r in readers if fmt in runs.get(r, {})}
        # The common set: documents read by every reader that read at least one document of this
        # format (a reader that reads none -- not built, refuses the format -- would empty it).
        active = [r for r, res in per_reader.items() if r != FLOOR and any(x["ok"] for x in res.values())]
        common = [d["rel"] for d in fmt_docs if active and all(per_reader[r][d["rel"]]["ok"] for r in active)]
        ours = per_reader.get("ours", {})
        for r, res in per_reader.items():
            ok = [x for x in res.values() if x["ok"]]
            in_common = r in active or (r == FLOOR and all(res.get(rel, {}).get("ok") for rel in common))
            row: dict = {
                "docs": len(fmt_docs),
                "read": len(ok),
                "failed": len(fmt_docs) - len(ok),
                "empty": (
                    None
                    if r == FLOOR
                    else sum(1 for x in ok if x.get("chars", 0) == 0 or not _text_of(out, r, mode, x["rel"]).strip())
                ),
                "in_common_set": in_common,
                "common_docs": len(common),
                "common_s": sum(res[rel]["median_s"] for rel in common) if in_common and common else None,
                "all_s": sum(x["median_s"] for x in ok) if ok else None,
                "read_bytes": sum(x["bytes"] for x in ok),
                "median_doc_ms": (
                    statistics.median(res[rel]["median_s"] for rel in common) * 1000 if in_common and common else None
                ),
                "maxrss_mb": runs[r][fmt]["maxrss_kb"] / 1024,
                "restarts": runs[r][fmt]["restarts"],
            }
            row["mb_per_s"] = (row["read_bytes"] / row["all_s"] / 1e6) if row["all_s"] else None
            both = [rel for rel, x in res.items() if x["ok"] and ours.get(rel, {}).get("ok")]
            ratios = [res[rel]["median_s"] / ours[rel]["median_s"] for rel in both if ours[rel]["median_s"] > 0]
            row["ratio_vs_ours"] = geomean(ratios) if r != "ours" else (1.0 if both else None)
            row["ratio_docs"] = len(ratios)
            if scorer.available and r != FLOOR:
                scores = []
                low = []
                for d in fmt_docs:
                    x = res[d["rel"]]
                    text = _text_of(out, r, mode, d["rel"]) if x["ok"] else ""
                    score = scorer.recall(text, d["rel"], READERS[r][1])
                    if score is None:
                        continue
                    x["recall"] = score
                    scores.append(score)
                    if score < 0.99:
                        low.append(d["rel"])
                row["recall_scored"] = len(scores)
                row["recall_mean"] = statistics.fmean(scores) if scores else None
                row["recall_min"] = min(scores) if scores else None
                row["recall_below_099"] = len(low)
                row["recall_below_099_docs"] = low
            row["failures"] = {x["rel"]: x["error"] for x in res.values() if not x["ok"]}
            table.setdefault(r, {})[fmt] = row
    return table


def _text_of(out: Path, reader: str, mode: str, rel: str) -> str:
    p = out / "texts" / reader / mode / (rel + ".txt")
    try:
        return p.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


# ---- rendering ----------------------------------------------------------------------------------


def _fmt(v: Any, spec: str = ".1f", none: str = "—") -> str:
    if v is None:
        return none
    return format(v, spec)


def render(meta: dict, text_table: dict, md_table: dict, scaling: dict, imports: dict) -> str:
    lines = [
        f"# Reader benchmark — {meta['when']}",
        "",
        f"Corpus `{meta['corpus']}`: {meta['doc_counts']}. Machine: {meta['machine']}. "
        f"Per document: warm-up, then median of repeats until {meta['repeat_time']:g} s "
        f"(max {meta['max_repeats']})"
        + (
            f", parse + text and parse + Markdown in {meta['rounds']} rounds (each document's fastest)"
            if meta.get("rounds", 1) > 1
            else ""
        )
        + f"; timeout {meta['timeout']:g} s. "
        f"Load average {meta['load_average']}: other work on the machine inflates times and "
        "caps the two-thread speed-up.",
        "",
    ]
    lines += ["## Readers", "", "| reader | version | API measured |", "|---|---|---|"]
    for r, imp in imports.items():
        if imp and imp.get("ok"):
            lines.append(f"| {r} | {imp['version']} | `{imp['api']}` |")
        else:
            lines.append(f"| {r} | — | not importable: {(imp or {}).get('error', 'not run')} |")
    for title, table in (("parse + full text", text_table), ("parse + Markdown", md_table)):
        for fmt in FORMATS:
            rows = [(r, t[fmt]) for r, t in table.items() if fmt in t]
            if not rows:
                continue
            common = rows[0][1]["common_docs"]
            lines += [
                "",
                f"## {fmt.upper()} — {title}",
                "",
                f"Common set: {common} documents read by every reader that read any.",
                "",
            ]
            floor = table.get(FLOOR, {}).get(fmt)
            if floor and floor.get("ratio_vs_ours"):
                lines.append(
                    f"Ours against the raw floor (container + inflate): {1 / floor['ratio_vs_ours']:.2f}× "
                    f"its time, geometric mean over {floor['ratio_docs']} documents."
                )
                lines.append("")
            lines += [
                "| reader | read | failed | empty | Σ common ms | median doc ms | Σ all read ms "
                "| MB/s | theirs/ours | peak RSS MB | recall mean | recall min | < 0.99 |",
                "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
            ]
            for r, row in rows:
                ratio = (
                    f"{row['ratio_vs_ours']:.2f}× (n={row['ratio_docs']})" if row["ratio_vs_ours"] is not None else "—"
                )
                lines.append(
                    f"| {r} | {row['read']}/{row['docs']} | {row['failed']} | {_fmt(row['empty'], 'd')} | "
                    f"{_fmt(row['common_s'] and row['common_s'] * 1000, '.1f')} | "
                    f"{_fmt(row['median_doc_ms'], '.3f')} | "
                    f"{_fmt(row['all_s'] and row['all_s'] * 1000, '.1f')} | {_fmt(row['mb_per_s'], '.1f')} | "
                    f"{ratio} | {row['maxrss_mb']:.0f} | {_fmt(row.get('recall_mean'), '.4f')} | "
                    f"{_fmt(row.get('recall_min'), '.4f')} | {_fmt(row.get('recall_below_099'), 'd')} |"
                )
    if scaling:
        lines += [
            "",
            "## Two threads, two different documents (parse + text)",
            "",
            "| reader | one thread ms | two threads ms | speed-up | documents |",
            "|---|---:|---:|---:|---|",
        ]
        for r, s in scaling.items():
            if s.get("ok"):
                docs = ", ".join(f"{Path(d['path']).name}×{d['loops']}" for d in s["docs"])
                lines.append(
                    f"| {r} | {s['one_thread_s'] * 1000:.1f} | {s['two_threads_s'] * 1000:.1f} | "
                    f"{s['speedup']:.2f}× | {docs} |"
                )
            else:
                lines.append(f"| {r} | — | — | — | {s.get('error')} |")
    failures = []
    for r, t in text_table.items():
        for fmt, row in t.items():
            if r == FLOOR:
                continue
            # One line per distinct error, so a reader that refuses everything takes one line.
            by_error: dict[str, list[str]] = {}
            for rel, err in row["failures"].items():
                by_error.setdefault(err, []).append(rel)
            for err, rels in by_error.items():
                names = ", ".join(f"`{x}`" for x in rels[:3]) + (f" and {len(rels) - 3} more" if len(rels) > 3 else "")
                failures.append(f"- {r} {fmt} ({len(rels)}): {err} — {names}")
    if failures:
        lines += ["", "## Failures (parse + text)", ""]
        shown = failures[:80]
        lines += shown
        if len(failures) > len(shown):
            lines.append(f"- … {len(failures) - len(shown)} more in latest.json")
    return "\n".join(lines) + "\n"


SCALING_MAX_BYTES = 600_000


def scaling_candidates(docs: list[dict]) -> list[str]:
    """Sizeable documents, largest HWP and largest HWPX first, alternating, then the rest.

    Capped at SCALING_MAX_BYTES so that a slow pure-Python reader still gets through its loops
    in seconds; the loops repeat each document anyway, so the size only has to be realistic.
    """
    by_fmt = {
        fmt: sorted(
            (d for d in docs if d["format"] == fmt and d["bytes"] <= SCALING_MAX_BYTES), key=lambda d: -d["bytes"]
        )
        for fmt in FORMATS
    }
    out: list[str] = []
    for i in range(max((len(v) for v in by_fmt.values()), default=0)):
        for fmt in FORMATS:
            if i < len(by_fmt[fmt]):
                out.append(by_fmt[fmt][i]["path"])
    return out[:12]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--worker", metavar="JOB", help=argparse.SUPPRESS)
    ap.add_argument("--probe", metavar="READER", help="import READER and read the FILES once")
    ap.add_argument("files", nargs="*", help="files for --probe")
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="folder with hwp/ and hwpx/ (env RHWP_CORPUS)")
    ap.add_argument("--readers", default=",".join(RUN_ORDER), help="comma-separated, from: " + ", ".join(RUN_ORDER))
    ap.add_argument(
        "--python",
        action="append",
        default=[],
        metavar="READER=PATH",
        help="interpreter for a reader (default: ours -> $RHWP_PYTHON or .venv/bin/python; "
        "others -> $RHWP_OTHERS_PYTHON or benches/.venv-others/bin/python)",
    )
    ap.add_argument("--formats", default="hwp,hwpx")
    ap.add_argument("--limit", type=int, help="first N documents per format (a quick look)")
    ap.add_argument("--repeat-time", type=float, default=0.2, help="seconds of repeats per document")
    ap.add_argument("--max-repeats", type=int, default=50)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per document (warm-up + repeats)")
    ap.add_argument("--import-timeout", type=float, default=120.0)
    ap.add_argument("--no-markdown", action="store_true")
    ap.add_argument("--no-scaling", action="store_true")
    ap.add_argument(
        "--warmup", type=float, default=3.0, help="seconds of load on every core before measuring (0: none)"
    )
    ap.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="parse + text and parse + Markdown runs (and the floor) repeated in turn N times; each "
        "document keeps its fastest median (the same rule for every reader and the floor)",
    )
    ap.add_argument("--scaling-time", type=float, default=0.3, help="seconds per thread's loop")
    ap.add_argument("--scaling-rounds", type=int, default=5)
    ap.add_argument(
        "--recall", type=Path, default=None, help="recall.py (default: $RHWP_RECALL or <corpus>/../tools/recall.py)"
    )
    ap.add_argument("--out", type=Path, default=HERE / "results")
    ap.add_argument(
        "--floor",
        metavar="BINARY",
        help="the floor example binary (cargo build --release -p rhwp-reader --example floor)",
    )
    args = ap.parse_args(argv)

    if args.worker:
        return worker_main(args.worker)
    if args.probe:
        return probe_main(args.probe, args.files)

    readers = [r.strip() for r in args.readers.split(",") if r.strip()]
    unknown = [r for r in readers if r not in READERS]
    if unknown:
        ap.error(f"unknown reader(s): {', '.join(unknown)}")
    pythons = default_pythons()
    for item in args.python:
        name, _, path = item.partition("=")
        if name not in READERS or not path:
            ap.error(f"--python wants READER=PATH, got {item!r}")
        # abspath, not resolve(): a venv's python is a symlink whose target is not the venv.
        pythons[name] = os.path.abspath(path) if os.sep in path else path
    formats = [f for f in args.formats.split(",") if f in FORMATS]
    docs = discover(args.corpus, formats, args.limit)
    if not docs:
        ap.error(f"no documents under {args.corpus}/{{{','.join(formats)}}}")

    out: Path = args.out
    for sub in ("texts", "logs", "ref-without"):
        shutil.rmtree(out / sub, ignore_errors=True)
    (out / "logs").mkdir(parents=True, exist_ok=True)
    workdir = Path(tempfile.mkdtemp(prefix="rhwp-bench-"))
    freetype = find_freetype()

    load_before = os.getloadavg()
    _warm_up_cpus(args.warmup)
    runs: dict[str, dict[str, dict]] = {}
    md_runs: dict[str, dict[str, dict]] = {}
    scaling: dict[str, dict] = {}
    imports: dict[str, dict | None] = {}
    try:
        for r in readers:
            python = pythons[r]
            env = dict(os.environ)
            env["PYTHONDONTWRITEBYTECODE"] = "1"
            if r == "rhwp-python" and freetype:
                env["LD_PRELOAD"] = ":".join(filter(None, [freetype, env.get("LD_PRELOAD")]))
            claimed = READERS[r][0]
            if not (shutil.which(python) or os.access(python, os.X_OK)):
                imports[r] = {"ok": False, "error": f"interpreter not found: {python}"}
            for fmt in formats:
                if fmt not in claimed:
                    continue
                fmt_docs = [d for d in docs if d["format"] == fmt]
                if not fmt_docs:
                    continue
                if imports.get(r) and not imports[r].get("ok"):
                    err = imports[r]["error"]
                    runs.setdefault(r, {})[fmt] = {
                        "import": imports[r],
                        "maxrss_kb": 0,
                        "restarts": 0,
                        "docs": [
                            {"ok": False, "error": err, "rel": d["rel"], "bytes": d["bytes"], "format": fmt}
                            for d in fmt_docs
                        ],
                    }
                    continue
                t0 = time.perf_counter()
                info = run_docs(r, python, env, "text", fmt_docs, args, out, workdir)
                imports[r] = info["import"] or imports.get(r)
                runs.setdefault(r, {})[fmt] = info
                read = sum(1 for x in info["docs"] if x["ok"])
                print(
                    f"[bench] {r} {fmt} text: {read}/{len(fmt_docs)} read in {time.perf_counter() - t0:.1f} s",
                    file=sys.stderr,
                )
                if not args.no_markdown and (info["import"] or {}).get("has_markdown"):
                    t0 = time.perf_counter()
                    md_runs.setdefault(r, {})[fmt] = run_docs(r, python, env, "markdown", fmt_docs, args, out, workdir)
                    read = sum(1 for x in md_runs[r][fmt]["docs"] if x["ok"])
                    print(
                        f"[bench] {r} {fmt} markdown: {read}/{len(fmt_docs)} read in {time.perf_counter() - t0:.1f} s",
                        file=sys.stderr,
                    )
            if not args.no_scaling and (imports.get(r) or {}).get("ok"):
                cands = [
                    p
                    for p in scaling_candidates(docs)
                    if Path(p).suffix.lstrip(".").lower() in claimed or Path(p).parent.name in claimed
                ]
                scaling[r] = run_scaling(r, python, env, cands, args, out, workdir)
                print(f"[bench] {r} scaling: {scaling[r].get('speedup') or scaling[r].get('error')}", file=sys.stderr)
            elif not args.no_scaling:
                scaling[r] = {"ok": False, "error": "not importable"}
        if args.floor:
            t0 = time.perf_counter()
            runs[FLOOR] = run_floor(args.floor, docs, args, out)
            print(f"[bench] floor: {time.perf_counter() - t0:.1f} s", file=sys.stderr)
        # Further rounds, every reader then the floor again: this machine's speed drifts by tens of
        # percent over minutes, and a ratio of two runs taken minutes apart drifts with it.
        for round_no in range(2, args.rounds + 1):
            for r in readers:
                if not (imports.get(r) or {}).get("ok"):
                    continue
                env = dict(os.environ)
                env["PYTHONDONTWRITEBYTECODE"] = "1"
                if r == "rhwp-python" and freetype:
                    env["LD_PRELOAD"] = ":".join(filter(None, [freetype, env.get("LD_PRELOAD")]))
                for fmt, first in runs.get(r, {}).items():
                    fmt_docs = [d for d in docs if d["format"] == fmt]
                    keep_fastest(first, run_docs(r, pythons[r], env, "text", fmt_docs, args, out, workdir))
                for fmt, first in md_runs.get(r, {}).items():
                    fmt_docs = [d for d in docs if d["format"] == fmt]
                    keep_fastest(first, run_docs(r, pythons[r], env, "markdown", fmt_docs, args, out, workdir))
                print(f"[bench] {r} text and Markdown, round {round_no}", file=sys.stderr)
            if args.floor:
                again = run_floor(args.floor, docs, args, out)
                for fmt, first in runs[FLOOR].items():
                    if fmt in again:
                        keep_fastest(first, again[fmt])
                print(f"[bench] floor, round {round_no}", file=sys.stderr)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    recall_py = args.recall or (
        Path(os.environ["RHWP_RECALL"])
        if os.environ.get("RHWP_RECALL")
        else args.corpus.resolve().parent / "tools" / "recall.py"
    )
    scorer = Scorer(recall_py, out)
    text_table = aggregate(readers + ([FLOOR] if FLOOR in runs else []), runs, docs, scorer, out, "text")
    md_table = aggregate([r for r in readers if r in md_runs], md_runs, docs, scorer, out, "markdown")
    counts = {fmt: sum(1 for d in docs if d["format"] == fmt) for fmt in formats}
    meta = {
        "when": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
        "corpus": str(args.corpus),
        "doc_counts": ", ".join(f"{n} {fmt}" for fmt, n in counts.items()),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}",
        "repeat_time": args.repeat_time,
        "max_repeats": args.max_repeats,
        "rounds": args.rounds,
        "timeout": args.timeout,
        "recall": str(recall_py) if scorer.available else None,
        "pythons": {r: pythons[r] for r in readers},
        "ld_preload_for_rhwp_python": freetype,
        "load_average": f"{load_before[0]:.2f} before, {os.getloadavg()[0]:.2f} after (1-minute)",
    }
    report = render(meta, text_table, md_table, scaling, imports)
    out.mkdir(parents=True, exist_ok=True)
    (out / "latest.md").write_text(report, encoding="utf-8")
    raw = {
        "meta": meta,
        "imports": imports,
        "text": text_table,
        "markdown": md_table,
        "scaling": scaling,
        "documents": {r: {fmt: run["docs"] for fmt, run in per.items()} for r, per in runs.items()},
        "markdown_documents": {r: {fmt: run["docs"] for fmt, run in per.items()} for r, per in md_runs.items()},
    }
    (out / "latest.json").write_text(json.dumps(raw, ensure_ascii=False, indent=1), encoding="utf-8")
    print(report)
    print(f"[bench] wrote {out / 'latest.md'} and {out / 'latest.json'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
