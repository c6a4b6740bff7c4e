"""Where the corpus and the shared tools are (used by conftest and corpus tests).

The corpus lives outside the repository (`../shared/corpus` next to the checkout, or
$RHWP_CORPUS). Locally a missing corpus skips the corpus tests; in CI (env CI set)
it is a failure, never a skip.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"


def _shared_dir() -> Path | None:
    candidates = []
    if os.environ.get("RHWP_SHARED"):
        candidates.append(Path(os.environ["RHWP_SHARED"]))
    if os.environ.get("RHWP_CORPUS"):
        candidates.append(Path(os.environ["RHWP_CORPUS"]).parent)
    candidates += [ROOT.parent / "shared", Path("/work/shared")]
    for c in candidates:
        if (c / "corpus" / "MANIFEST.tsv").is_file():
            return c
    return None


SHARED = _shared_dir()


def require_shared() -> Path:
    if SHARED is None:
        msg = "the shared corpus is missing (set RHWP_CORPUS=/path/to/shared/corpus)"
        if os.environ.get("CI"):
            pytest.fail(msg + " — in CI a missing corpus is a failure")
        pytest.skip(msg)
    return SHARED
