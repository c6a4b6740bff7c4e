"""The native module's type stub (``_native.pyi``) says what the built module exports.

mypy's stubtest imports the built ``rhwp_core._native`` and compares it with the stub in the
source tree: every name the module exports is in the stub and the other way round, every class
and whether it can be subclassed, every function's and method's parameters (names, order,
defaults). A name added to, removed from or changed in ``rhwp_core/src`` without the stub fails here.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SOURCE_PACKAGES = Path(__file__).resolve().parents[1] / "python"


def test_the_stub_matches_the_built_module(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "rhwp_core._native"],
        # The stub of the source tree (MYPYPATH wins over the installed copy), checked against the
        # installed module; run elsewhere so the source folder `rhwp_core/` shadows nothing.
        env={**os.environ, "MYPYPATH": str(SOURCE_PACKAGES)},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success" in result.stdout
