"""The benchmark scripts still run (they are benchmarks, not timed tests: no speed is asserted)."""

from __future__ import annotations

import re
import subprocess
import sys

from corpus_support import ROOT, require_shared


def test_hwpml_bench_runs_and_prints_its_ratio() -> None:
    shared = require_shared()
    script = ROOT / "benches" / "hwpml_bench.py"
    done = subprocess.run(
        [sys.executable, str(script), "--corpus", str(shared / "corpus"), "--rounds", "1", "--repeat", "3"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert re.search(r"hwpx corpus\s+\d+ documents\s+[0-9.]+ MB/s", done.stdout), done.stdout
    assert len(re.findall(r"hwpml body-heavy", done.stdout)) == 3, done.stdout
    assert re.search(r"worst body-heavy HWPML: [0-9.]+x", done.stdout), done.stdout
